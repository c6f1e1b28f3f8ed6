import { z } from 'zod';

/** One entry of an article's table of contents, as stored: text, the anchor it links to, nesting. */
export interface TocEntry {
  text: string;
  anchor: string;
  level?: number;
  children: TocEntry[];
}

export const tocEntrySchema: z.ZodType<TocEntry> = z.object({
  text: z.string(),
  anchor: z.string(),
  level: z.number().int().min(1).max(6).optional(),
  get children() {
    return z.array(tocEntrySchema);
  },
});

export const articleImageSchema = z.object({ url: z.string(), alt: z.string().optional() });
export type ArticleImage = z.infer<typeof articleImageSchema>;

/** JSON-LD is kept as the provider sent it once it parses: one object or a list of objects. */
export const jsonLdSchema = z.union([
  z.record(z.string(), z.unknown()),
  z.array(z.record(z.string(), z.unknown())),
]);
export type JsonLd = z.infer<typeof jsonLdSchema>;

/**
 * An article as the service keeps it, whatever names the content API used for its fields. The HTML is
 * the upstream HTML, untrusted: it is sanitized before anyone renders it.
 */
export const articleContentSchema = z.object({
  slug: z.string(),
  title: z.string(),
  description: z.string().nullable(),
  html: z.string(),
  toc: z.array(tocEntrySchema),
  jsonLd: jsonLdSchema.nullable(),
  images: z.array(articleImageSchema),
  publishedAt: z.string().nullable(),
  updatedAt: z.string().nullable(),
});
export type ArticleContent = z.infer<typeof articleContentSchema>;

/** Slugs the service accepts: they become stream names, row keys and URL path segments. */
export const SLUG_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,199}$/;
export const KIND_PATTERN = /^[a-z][a-z0-9_-]{0,31}$/;
export const DEFAULT_KIND = 'blog';
