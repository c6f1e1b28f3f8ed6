import { DEFAULT_KIND, KIND_PATTERN, SLUG_PATTERN } from '../../content-api/article.ts';
import { isObject } from '../../content-api/mapping.ts';
import { AppError } from '../../errors.ts';
import type { SyncTarget } from './sync-item.ts';
import type { SyncError } from './sync-report.ts';

export const MAX_SLUGS_PER_REQUEST = 100;

type Obj = Record<string, unknown>;

/** A slug as named in the body, before it is checked: any JSON value found where a slug belongs. */
interface Named {
  slug: unknown;
  kind: unknown;
}

const asArray = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const slugOf = (value: unknown): unknown => (isObject(value) ? value.slug : undefined);

/**
 * Every place a slug is found in the bodies the service accepts: `{ items: [{ slug, kind }] }` and the
 * shapes of the provider's publish_article notification (`slug`, `slugs[]`, `article.slug`,
 * `articles[].slug`, `post.slug`, `post.current.slug`, `entry.slug`), at the top level or under `data`.
 */
function namedIn(obj: Obj): Named[] {
  const found: Named[] = [];
  const add = (slug: unknown, kind: unknown = undefined) => {
    // Some CMSs nest the slug as { current: "..." }.
    const value = isObject(slug) && typeof slug.current === 'string' ? slug.current : slug;
    if (value !== undefined && value !== null) found.push({ slug: value, kind });
  };
  add(obj.slug, obj.kind);
  for (const slug of asArray(obj.slugs)) add(slug);
  for (const item of asArray(obj.items))
    add(isObject(item) ? item.slug : item, isObject(item) ? item.kind : undefined);
  add(slugOf(obj.article));
  for (const article of asArray(obj.articles)) add(slugOf(article));
  if (isObject(obj.post)) {
    add(obj.post.slug);
    add(slugOf(obj.post.current));
  }
  add(slugOf(obj.entry));
  return found;
}

export interface NamedSyncRequest {
  targets: SyncTarget[];
  /** Named but unusable slugs and kinds: reported as errors, the others still sync. */
  rejected: SyncError[];
}

/**
 * The slugs a named sync must fetch. Whatever HTML the notification carries is ignored: content is
 * always refetched. A body that names no slug at all is a 400, never a silent probe.
 */
export function parseNamedSync(body: unknown): NamedSyncRequest {
  const root: unknown = Array.isArray(body) ? { items: body } : body;
  if (!isObject(root)) {
    throw new AppError(
      'bad_request',
      'The body must be a JSON object naming slugs, e.g. {"items":[{"slug":"..."}]}.',
    );
  }
  const named = [...namedIn(root), ...(isObject(root.data) ? namedIn(root.data) : [])];
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
