import { randomBytes, randomUUID } from 'node:crypto';
import { ALPHABET, randomId } from '../../../src/ids.ts';
import type { Answer } from '../accounts.ts';

/** The answer when its status is `status`; else throws with what came instead. */
export function ok(answer: Answer, status: number, what: string): Answer {
  if (answer.status !== status)
    throw new Error(`${what}: expected ${status}, got ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer;
}

// Most ids are `<prefix>_` and 20 characters; row ids are longer (time-ordered), enrollment ids two in one.
const SERVICE_ID = new RegExp(`^([a-z]+)_([${ALPHABET}]{20,})$`);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** An id of the same form as `id` that names nothing: what the service must answer A's id like. */
export function unknownLike(id: string): string {
  const [, prefix, tail] = SERVICE_ID.exec(id) ?? [];
  if (prefix && tail) {
    const random = randomId(prefix).slice(prefix.length + 1);
    return `${prefix}_${random.repeat(Math.ceil(tail.length / random.length)).slice(0, tail.length)}`;
  }
  if (UUID.test(id)) return randomUUID();
  // Key ids are hex.
  if (/^[0-9a-f]+$/.test(id)) return randomBytes(id.length).toString('hex').slice(0, id.length);
  if (id.includes('@')) return `${randomBytes(6).toString('hex')}@example.com`;
  // A name (a secret's): as long, unused.
  return `x${randomBytes(Math.ceil(id.length / 2)).toString('hex')}`.slice(0, id.length);
}

// The service's ids, UUIDs, and the message ids of webhook deliveries (msg_ and base64url).
const NEW_ID = new RegExp(
  `\\b[a-z]+_[${ALPHABET}]{20,}\\b|\\bmsg_[A-Za-z0-9_-]{20,}|\\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\\b`,
  'g',
);
const TIME = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g;
/** Fields that differ between any two requests: the request's own id, and where it was made. */
export const PER_REQUEST = new Set(['requestId', 'instance']);

/**
 * An answer as a comparable text: its status, its content type and its body with each id the
 * request named put back to the name it was given under (so A's id and an unknown one read the same),
 * ids made by the request itself and timestamps blanked, and per-request fields dropped.
 */
export function normalized(answer: Answer, names: Map<string, string>): string {
  const body = JSON.stringify(answer.body, (key, value) => (PER_REQUEST.has(key) ? undefined : value)) ?? '';
  let text = body;
  // Longest first, so that an id inside another (a secret name in a path) is replaced whole.
  for (const [value, name] of [...names].sort((a, b) => b[0].length - a[0].length))
    text = text.split(value).join(`<${name}>`);
  text = text.replace(NEW_ID, '<new>').replace(TIME, '<time>');
  const type = (answer.headers['content-type'] ?? '').split(';')[0];
  return documentedEquivalent(`${answer.status} ${type} ${text}`);
}

/**
 * The contract answers an object of another organization with 403 `forbidden`, "The table belongs
 * to another organization." (DESIGN.md section 4, docs/errors.md), where an unknown id gets 404
 * `not_found`, "No table <id>.": both refuse, neither shows the object. The two read the same here;
 * every other difference counts.
 */
function documentedEquivalent(text: string): string {
  return text
    .replace(/^403 /, '404 ')
    .replace('"type":"about:blank#forbidden","title":"Access denied","status":403', FOUND_NOT)
    .replace('"type":"about:blank#not_found","title":"Not found","status":404', FOUND_NOT)
    .replaceAll('"code":"forbidden"', '"code":"not_found"')
    .replace(/The ([a-z ]+) belongs to another organization\./g, '<no $1>')
    .replace(/No ([a-z ]+) <\w+>\./g, '<no $1>');
}
const FOUND_NOT = '<not found>';

/** The tell-tales found in an answer (headers and body) that its request did not carry itself. */
export function leaks(answer: Answer, tellTales: readonly string[], request: string): string[] {
  const text = `${JSON.stringify(answer.headers)} ${typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body)}`;
  return tellTales.filter((t) => text.includes(t) && !request.includes(t));
}
