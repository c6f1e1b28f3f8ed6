import { PLACEHOLDER } from '../../../src/domain/columns/references.ts';
import type { Encode } from './render.ts';

/** The part of a URL a placeholder of an http_request's `url` template fills in. */
export type UrlPart = 'base' | 'userinfo' | 'host' | 'path' | 'query' | 'fragment';

/** A scheme and its `//`: what opens an authority (`https://`). */
const SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;

/**
 * Where the placeholder at `offset` of `template` lands, read from the template's own text (each
 * placeholder stands for an opaque value, so a value never decides where the next one goes):
 *
 * - `base`: the placeholder starts the URL (`{{secrets.api_base}}/v1`);
 * - `userinfo`: after `scheme://` and before an `@` of the template in the authority;
 * - `host`: after `scheme://`, up to the first `/`, `?` or `#` of the template (`host`, `host:port`);
 * - `path`, `query` (after the first `?`), `fragment` (after the first `#`).
 */
export function urlPartAt(template: string, offset: number): UrlPart {
  if (offset === 0) return 'base';
  // The template with every placeholder blanked out: only the author's own characters delimit.
  const skeleton = template.replace(PLACEHOLDER, (match) => '_'.repeat(match.length));
  const scheme = SCHEME.exec(skeleton);
  let rest = 0;
  if (scheme) {
    const start = scheme[0].length;
    const end = skeleton.slice(start).search(/[/?#]/);
    const authorityEnd = end === -1 ? skeleton.length : start + end;
    if (offset >= start && offset < authorityEnd) {
      return skeleton.slice(offset, authorityEnd).includes('@') ? 'userinfo' : 'host';
    }
    rest = authorityEnd;
  }
  const before = skeleton.slice(rest, offset);
  if (before.includes('#')) return 'fragment';
  if (before.includes('?')) return 'query';
  return 'path';
}

/**
 * In a host, what would end the authority or move the host elsewhere (`/`, `?`, `#`, `@`, `\`,
 * white space and control characters) is percent-encoded, so the URL parser refuses such a host
 * rather than reading another one; the rest goes in as it is, so a cell may hold `host:port`, an
 * `[IPv6]` literal or an internationalised name.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it encodes
const HOST_DELIMITERS = /[/?#@\\\s\u0000-\u001f\u007f]/g;

/** How a value is written in each part of a URL. */
export function encodeForUrlPart(text: string, part: UrlPart): string {
  switch (part) {
    case 'base':
      return text;
    case 'host':
      return text.replace(HOST_DELIMITERS, (c) => encodeURIComponent(c));
    default:
      // One path segment, one query value, one user name: `../`, `a&b=c`, `x@y` cannot reshape the URL.
      return encodeURIComponent(text);
  }
}

/** The encoder of an http_request's URL template: each value as the part it lands in wants it. */
export function urlEncoder(template: string): Encode {
  return (text, offset) => encodeForUrlPart(text, urlPartAt(template, offset));
}
