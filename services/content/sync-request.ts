import { DEFAULT_KIND, KIND_PATTERN, SLUG_PATTERN } from '../../src/content-api/article.ts';
import { isObject } from '../../src/content-api/mapping.ts';
import { containersOf, namedIn } from '../../src/domain/content/sync-shapes.ts';
import { AppError } from '../../src/errors.ts';
import type { SyncTarget } from './sync-item.ts';
import type { SyncError } from './sync-report.ts';

export const MAX_SLUGS_PER_REQUEST = 100;

export interface NamedSyncRequest {
  targets: SyncTarget[];
  /** Named but unusable slugs and kinds: reported as errors, the others still sync. */
  rejected: SyncError[];
}

/**
 * The slugs a named sync must fetch, in any of the shapes of sync-shapes.ts. Whatever HTML the
 * notification carries is ignored: content is always refetched. A body that names no slug at all is a
 * 400, never a silent probe. A kind that is not one of `servedKinds` is an error entry: nothing is
 * fetched or stored for it.
 */
export function parseNamedSync(body: unknown, servedKinds: readonly string[]): NamedSyncRequest {
  const root: unknown = Array.isArray(body) ? { items: body } : body;
  if (!isObject(root)) {
    throw new AppError(
      'bad_request',
      'The body must be a JSON object naming slugs, e.g. {"items":[{"slug":"..."}]}.',
    );
  }
  const named = containersOf(root).flatMap((part) => namedIn(part, servedKinds));
  if (named.length === 0) {
    throw new AppError(
      'bad_request',
      'The body names no slug: send {"items":[{"slug":"...","kind":"blog"}]} or a publish_article notification.',
    );
  }
  const targets: SyncTarget[] = [];
  const rejected: SyncError[] = [];
  const seen = new Set<string>();
  for (const { slug: rawSlug, kind: rawKind } of named) {
    const slug = typeof rawSlug === 'string' ? rawSlug.trim() : rawSlug;
    const kind = rawKind === undefined || rawKind === null ? DEFAULT_KIND : String(rawKind).trim();
    const key = `${kind}\u0000${typeof slug === 'string' ? slug : JSON.stringify(slug)}`;
    if (seen.has(key)) continue;
    seen.add(key);
    if (typeof slug !== 'string' || !SLUG_PATTERN.test(slug)) {
      rejected.push({
        slug: (typeof slug === 'string' ? slug : (JSON.stringify(slug) ?? '')).slice(0, 200),
        kind: kind.slice(0, 32),
        code: 'invalid_slug',
        message: 'A slug is 1-200 letters, digits, "-" or "_", starting with a letter or digit.',
      });
    } else if (!KIND_PATTERN.test(kind)) {
      rejected.push({
        slug,
        kind: kind.slice(0, 32),
        code: 'invalid_kind',
        message: 'A kind is 1-32 lower-case letters, digits, "-" or "_", starting with a letter.',
      });
    } else if (!servedKinds.includes(kind)) {
      rejected.push({
        slug,
        kind,
        code: 'unknown_kind',
        message: `The kind "${kind}" is not served here; served kinds: ${servedKinds.join(', ')}.`,
      });
    } else {
      targets.push({ kind, slug });
    }
  }
  const total = targets.length + rejected.length;
  if (total > MAX_SLUGS_PER_REQUEST) {
    throw new AppError(
      'bad_request',
      `The body names ${total} slugs; at most ${MAX_SLUGS_PER_REQUEST} are synced per request.`,
    );
  }
  return { targets, rejected };
}
