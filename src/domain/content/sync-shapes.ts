import { at, isObject } from '../../content-api/mapping.ts';

type Obj = Record<string, unknown>;

/** A slug as named in a body, before it is checked: any JSON value found where a slug belongs. */
export interface Named {
  slug: unknown;
  /** The kind the body names beside the slug, if it names one. */
  kind?: unknown;
}

/** One place a publish notification puts its slugs. */
export interface SlugShape {
  /** Who sends it. */
  source: string;
  /** Where the slug sits in the body (or in its `data` or `payload`), as docs/content-sync.md lists it. */
  path: string;
  find(obj: Obj): Named[];
}

const asArray = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const one =
  (...path: string[]) =>
  (obj: Obj): Named[] => [{ slug: at(obj, path) }];
const each =
  (list: string, ...path: string[]) =>
  (obj: Obj): Named[] =>
    asArray(obj[list]).map((item) => ({ slug: isObject(item) ? at(item, path) : undefined }));

/** A field that is either one value or one value per locale (`{ "en-US": "...", "de-DE": "..." }`). */
const perLocale = (value: unknown): Named[] =>
  (isObject(value) ? Object.values(value) : [value]).map((slug) => ({ slug }));

/**
 * Every place a slug is found, in the order the body is read. Each shape is read at the top level of
 * the body and again under its `data` and its `payload`. A shape reads its own fields only: an id is
 * never taken for a slug (Prismic's own webhook names document ids, which the content API cannot look
 * up, so it names no slug here).
 */
export const SLUG_SHAPES: readonly SlugShape[] = [
  // The items form of the contract and the simplest notifications; a slug nested as { current }
  // (Sanity) is unwrapped wherever it is found.
  {
    source: 'this API, WordPress REST, Sanity, Hygraph, Directus',
    path: 'slug',
    find: (o) => [{ slug: o.slug, kind: o.kind }],
  },
  { source: 'this API', path: 'slugs[]', find: (o) => asArray(o.slugs).map((slug) => ({ slug })) },
  {
    source: 'this API',
    path: 'items[].slug',
    find: (o) => asArray(o.items).map((i) => (isObject(i) ? { slug: i.slug, kind: i.kind } : { slug: i })),
  },
  { source: 'the content provider', path: 'article.slug', find: one('article', 'slug') },
  { source: 'the content provider', path: 'articles[].slug', find: each('articles', 'slug') },
  { source: 'WordPress plugins', path: 'post.slug', find: one('post', 'slug') },
  { source: 'Ghost', path: 'post.current.slug', find: one('post', 'current', 'slug') },
  { source: 'WordPress (post object)', path: 'post.post_name', find: one('post', 'post_name') },
  { source: 'WordPress (post object)', path: 'post_name', find: one('post_name') },
  { source: 'Strapi', path: 'entry.slug', find: one('entry', 'slug') },
  { source: 'Contentful', path: 'fields.slug', find: (o) => perLocale(at(o, ['fields', 'slug'])) },
  {
    // Only on a document (it has a `type`): Strapi and Contentstack put their own ids in `uid`.
    source: 'Prismic',
    path: 'uid',
    find: (o) => (typeof o.type === 'string' ? [{ slug: o.uid }] : []),
  },
  {
    // `blog/my-post`: the folders are the CMS's, the last segment is the story's slug.
    source: 'Storyblok',
    path: 'full_slug',
    find: (o) =>
      typeof o.full_slug === 'string' ? [{ slug: o.full_slug.split('/').filter(Boolean).at(-1) }] : [],
  },
  { source: 'DatoCMS', path: 'entity.attributes.slug', find: one('entity', 'attributes', 'slug') },
  { source: 'Webflow', path: 'fieldData.slug', find: one('fieldData', 'slug') },
  { source: 'Webflow', path: 'items[].fieldData.slug', find: each('items', 'fieldData', 'slug') },
  {
    // ButterCMS names a post by its slug in `data.id`; only its post events are articles.
    source: 'ButterCMS',
    path: 'data.id',
    find: (o) =>
      /^post\./.test(String(at(o, ['webhook', 'event']) ?? '')) ? [{ slug: at(o, ['data', 'id']) }] : [],
  },
];

/**
 * Where a CMS names the content type of what it publishes. A body that names no kind gets the first of
 * these that is a kind the site serves; any other value is ignored (the kind stays `blog`), so a
 * content type never becomes a kind nobody configured.
 */
export const KIND_HINTS: readonly { source: string; path: readonly string[] }[] = [
  { source: 'Contentful', path: ['sys', 'contentType', 'sys', 'id'] },
  { source: 'Sanity', path: ['_type'] },
  { source: 'Strapi', path: ['model'] },
  { source: 'WordPress (post object)', path: ['post', 'post_type'] },
  { source: 'Prismic, WordPress REST', path: ['type'] },
];

/** The parts of a body read for slugs: the body itself, and its `data` and `payload` objects. */
export const containersOf = (root: Obj): Obj[] => [root, root.data, root.payload].filter(isObject);

/** The slugs one part of a body names, each with its kind: named, hinted by the CMS, or none. */
export function namedIn(obj: Obj, servedKinds: readonly string[]): Named[] {
  const hint = KIND_HINTS.map(({ path }) => at(obj, path)).find(
    (value) => typeof value === 'string' && servedKinds.includes(value),
  );
  return SLUG_SHAPES.flatMap((shape) => shape.find(obj)).flatMap(({ slug, kind }) => {
    // Some CMSs nest the slug as { current: "..." }.
    const value = isObject(slug) && typeof slug.current === 'string' ? slug.current : slug;
    return value === undefined || value === null ? [] : [{ slug: value, kind: kind ?? hint }];
  });
}
