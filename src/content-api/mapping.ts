import { isCalendarDay } from '../calendar.ts';
import type { ArticleContent, ArticleImage, JsonLd, TocEntry } from './article.ts';

/**
 * Tolerant reading of the content API. Providers (and versions of one provider) name the same field
 * differently; every alias the service has seen is listed here, first match wins.
 */
type Obj = Record<string, unknown>;

export const isObject = (value: unknown): value is Obj =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const LIST_KEYS = ['posts', 'data', 'items', 'articles', 'results'] as const;
const WRAPPER_KEYS = ['post', 'article', 'data'] as const;
const HTML_KEYS = ['html', 'content_html', 'contentHtml', 'content', 'body'] as const;
const TITLE_KEYS = ['title', 'headline'] as const;
const DESCRIPTION_PATHS = [
  ['description'],
  ['meta_description'],
  ['metaDescription'],
  ['metadescription'],
  ['seo', 'meta_description'],
  ['meta', 'description'],
  ['excerpt'],
] as const;
const TOC_KEYS = ['toc', 'table_of_contents', 'tableOfContents', 'outline'] as const;
const JSON_LD_KEYS = ['json_ld', 'jsonLd', 'schema', 'structured_data'] as const;
const IMAGE_KEYS = [
  'image_url',
  'imageUrl',
  'cover_image',
  'hero_image_url',
  'featured_image',
  'og_image',
] as const;

// Bounds on what one article may carry, so a hostile payload cannot make a row enormous.
const MAX_TOC_ENTRIES = 500;
const MAX_TOC_DEPTH = 6;
const MAX_IMAGES = 50;

export function at(obj: Obj, path: readonly string[]): unknown {
  let value: unknown = obj;
  for (const key of path) {
    if (!isObject(value)) return undefined;
    value = value[key];
  }
  return value;
}

function nonEmptyString(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

/** The items of a list page: a bare array, or an array under one of the usual keys (one level deep). */
export function listItemsOf(page: unknown): unknown[] | undefined {
  if (Array.isArray(page)) return page;
  if (!isObject(page)) return undefined;
  for (const key of LIST_KEYS) if (Array.isArray(page[key])) return page[key];
  for (const key of LIST_KEYS) {
    const nested = page[key];
    if (isObject(nested))
      for (const inner of LIST_KEYS) if (Array.isArray(nested[inner])) return nested[inner];
  }
  return undefined;
}

function looksLikeArticle(obj: Obj): boolean {
  return typeof obj.slug === 'string' || htmlOf(obj) !== undefined;
}

/** The article object itself, whether it came bare or wrapped in post, article or data. */
export function unwrapArticle(raw: unknown): Obj | undefined {
  if (!isObject(raw)) return undefined;
  if (looksLikeArticle(raw)) return raw;
  for (const key of WRAPPER_KEYS) {
    const inner = raw[key];
    if (isObject(inner)) return inner;
  }
  return raw;
}

export function htmlOf(article: Obj): string | undefined {
  for (const key of HTML_KEYS) {
    const value = article[key];
    const html = nonEmptyString(value) ?? (isObject(value) ? nonEmptyString(value.html) : undefined);
    if (html !== undefined) return html;
  }
  return undefined;
}

function firstString(obj: Obj, keys: readonly string[]): string | undefined {
  for (const key of keys) {
    const value = nonEmptyString(obj[key]);
    if (value !== undefined) return value.trim();
  }
  return undefined;
}

function descriptionOf(article: Obj): string | null {
  for (const path of DESCRIPTION_PATHS) {
    const value = nonEmptyString(at(article, path));
    if (value === undefined) continue;
    // Excerpts often arrive as HTML; a meta description is plain text.
    const text = value
      .replace(/<[^>]*>/g, ' ')
      .replace(/\s+/g, ' ')
      .trim();
    if (text) return text;
  }
  return null;
}

/** "Getting started!" -> "getting-started": the anchor a heading without an id is usually given. */
export function anchorFromText(text: string): string {
  return text
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

function anchorOf(entry: Obj, text: string): string {
  for (const key of ['id', 'anchor', 'slug', 'href'] as const) {
    const value = nonEmptyString(entry[key]);
    if (value === undefined) continue;
    const hash = value.indexOf('#');
    const anchor = (hash >= 0 ? value.slice(hash + 1) : value).trim();
    if (anchor) return anchor;
  }
  return anchorFromText(text);
}

function tocEntries(value: unknown, depth: number, budget: { left: number }): TocEntry[] {
  let list: unknown = value;
  if (typeof list === 'string') {
    try {
      list = JSON.parse(list);
    } catch {
      return [];
    }
  }
  if (isObject(list)) list = list.items ?? list.entries ?? list.children;
  if (!Array.isArray(list) || depth > MAX_TOC_DEPTH) return [];
  const entries: TocEntry[] = [];
  for (const item of list) {
    if (budget.left <= 0) break;
    if (typeof item === 'string') {
      if (!item.trim()) continue;
      budget.left--;
      entries.push({ text: item.trim(), anchor: anchorFromText(item), children: [] });
      continue;
    }
    if (!isObject(item)) continue;
    const text = firstString(item, ['text', 'title', 'heading']);
    if (text === undefined) continue;
    budget.left--;
    const entry: TocEntry = { text, anchor: anchorOf(item, text), children: [] };
    const level = Number(item.level);
    if (Number.isInteger(level) && level >= 1 && level <= 6) entry.level = level;
    entry.children = tocEntries(item.children, depth + 1, budget);
    entries.push(entry);
  }
  return entries;
}

function tocOf(article: Obj): TocEntry[] {
  for (const key of TOC_KEYS) {
    if (article[key] === undefined || article[key] === null) continue;
    const entries = tocEntries(article[key], 1, { left: MAX_TOC_ENTRIES });
    if (entries.length > 0) return entries;
  }
  return [];
}

/** JSON-LD that is not an object or a list of objects (or a string holding one) is dropped. */
export function jsonLdOf(article: Obj): JsonLd | null {
  for (const key of JSON_LD_KEYS) {
    let value = article[key];
    if (typeof value === 'string') {
      try {
        value = JSON.parse(value);
      } catch {
        continue;
      }
    }
    if (isObject(value)) return value;
    if (Array.isArray(value)) {
      const objects = value.filter(isObject);
      if (objects.length > 0) return objects;
    }
  }
  return null;
}

function imageOf(value: unknown): ArticleImage | undefined {
  const url = nonEmptyString(value) ?? (isObject(value) ? nonEmptyString(value.url ?? value.src) : undefined);
  if (url === undefined) return undefined;
  try {
    // Only absolute web URLs: an image URL ends up in src and og:image attributes.
    const parsed = new URL(url.trim());
    if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return undefined;
  } catch {
    return undefined;
  }
  const alt = isObject(value) ? nonEmptyString(value.alt) : undefined;
  return alt === undefined ? { url: url.trim() } : { url: url.trim(), alt: alt.trim() };
}

function imagesOf(article: Obj): ArticleImage[] {
  const candidates: unknown[] = IMAGE_KEYS.map((key) => article[key]);
  if (Array.isArray(article.images)) candidates.push(...article.images);
  const images: ArticleImage[] = [];
  const seen = new Set<string>();
  for (const candidate of candidates) {
    const image = imageOf(candidate);
    if (!image || seen.has(image.url)) continue;
    seen.add(image.url);
    images.push(image);
    if (images.length >= MAX_IMAGES) break;
  }
  return images;
}

/** An ISO 8601 UTC timestamp from a date string or epoch number; null when absent or unreadable. */
export function isoDate(value: unknown): string | null {
  let date: Date | undefined;
  if (typeof value === 'string' && value.trim()) date = new Date(value.trim());
  // Epoch numbers: below 10^11 they can only be seconds (10^11 ms is 1973).
  if (typeof value === 'number' && Number.isFinite(value))
    date = new Date(value < 1e11 ? value * 1000 : value);
  return date && !Number.isNaN(date.getTime()) ? date.toISOString() : null;
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/**
 * The calendar day a date string names, as JavaScript's date parser reads it: year-month-day when it
 * starts with the year (`2024-02-30T00:00:00Z`, `2024/02/30`), a month name with a day and a year
 * (`Fri, 30 Feb 2024 10:00:00 GMT`, `February 30, 2024`), else month/day/year (`02/30/2024`).
 * Undefined when the string names no day. The time and zone that follow the day are left out.
 */
export function namedDay(text: string): { year: number; month: number; day: number } | undefined {
  const date = text.toLowerCase().replace(/\d{1,2}:\d{2}.*$/s, '');
  const tokens = date.match(/\d+|[a-z]+/g) ?? [];
  const numbers = tokens.filter((t) => /^\d/.test(t));
  const monthWord = tokens.find((t) => /^[a-z]/.test(t) && MONTHS.includes(t.slice(0, 3)));
  if (monthWord !== undefined) {
    const year = numbers.find((n) => n.length >= 3);
    const day = numbers.find((n) => n.length <= 2);
    if (year === undefined || day === undefined) return undefined;
    return { year: Number(year), month: MONTHS.indexOf(monthWord.slice(0, 3)) + 1, day: Number(day) };
  }
  if (numbers.length < 3) return undefined;
  const [a, b, c] = numbers.map(Number) as [number, number, number];
  return numbers[0]!.length >= 3 ? { year: a, month: b, day: c } : { year: c, month: a, day: b };
}

/**
 * A date as `isoDate` reads it, or `impossible` when the string names a day the calendar does not
 * have (30 February): the date parser rolls such a day over into the next month, and the article
 * would be stored with another day than the one its provider sent.
 */
export function articleDate(value: unknown): { iso: string | null } | { impossible: true } {
  const iso = isoDate(value);
  if (iso === null || typeof value !== 'string') return { iso };
  const day = namedDay(value.trim());
  if (day && !isCalendarDay(day.year, day.month, day.day)) return { impossible: true };
  return { iso };
}

const DATE_FIELDS = [
  ['publishedAt', ['published_at', 'publishedAt']],
  ['updatedAt', ['updated_at', 'updatedAt']],
] as const;

type ArticleDates = { publishedAt: string | null; updatedAt: string | null };

/** The article's dates, or the message naming the first one that is not a day of the calendar. */
function datesOf(article: Obj): { ok: true; dates: ArticleDates } | { ok: false; message: string } {
  const dates: ArticleDates = { publishedAt: null, updatedAt: null };
  for (const [field, keys] of DATE_FIELDS) {
    const key = keys.find((k) => article[k] !== undefined && article[k] !== null) ?? keys[0];
    const read = articleDate(article[key]);
    if ('impossible' in read) {
      const shown = JSON.stringify(String(article[key]).slice(0, 100));
      return {
        ok: false,
        message: `${key} ${shown} is not a day of the calendar; the article is not stored (a copy stored before stays as it was).`,
      };
    }
    dates[field] = read.iso;
  }
  return { ok: true, dates };
}

export type MapResult =
  /** `raw` is the article object as the API sent it (unwrapped), kept beside the mapped one. */
  | { ok: true; article: ArticleContent; raw: Record<string, unknown> }
  | {
      ok: false;
      code: 'invalid_article' | 'no_html' | 'slug_mismatch' | 'invalid_date';
      message: string;
    };

/**
 * Maps one raw article payload to the stored shape. `expectedSlug` is the slug that was asked for: an
 * article answering for another slug is refused (a misrouted or cached answer must not overwrite a row).
 */
export function mapArticle(raw: unknown, expectedSlug?: string): MapResult {
  const article = unwrapArticle(raw);
  if (!article) return { ok: false, code: 'invalid_article', message: 'The article is not a JSON object.' };
  const slug = nonEmptyString(article.slug)?.trim() ?? expectedSlug;
  if (slug === undefined) return { ok: false, code: 'invalid_article', message: 'The article has no slug.' };
  if (expectedSlug !== undefined && slug !== expectedSlug) {
    return {
      ok: false,
      code: 'slug_mismatch',
      message: `The content API answered with the article "${slug.slice(0, 200)}" instead.`,
    };
  }
  const html = htmlOf(article);
  if (html === undefined) return { ok: false, code: 'no_html', message: 'The article carries no HTML.' };
  const dates = datesOf(article);
  if (!dates.ok) return { ok: false, code: 'invalid_date', message: dates.message };
  return {
    ok: true,
    raw: article,
    article: {
      slug,
      title: firstString(article, TITLE_KEYS) ?? slug,
      description: descriptionOf(article),
      html,
      toc: tocOf(article),
      jsonLd: jsonLdOf(article),
      images: imagesOf(article),
      ...dates.dates,
    },
  };
}
