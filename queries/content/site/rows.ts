import { SITE_CONTENT } from '../../../projections/content/site-content.ts';
import type { ArticleImage, JsonLd, TocEntry } from '../../../src/content-api/article.ts';
import type { Pool } from '../../../src/db/pool.ts';

/** A stored article as the public pages read it (the site_content row). */
export interface SiteArticle {
  kind: string;
  slug: string;
  title: string;
  description: string | null;
  /** Untrusted: as the content API sent it. Only ever rendered through the sanitizer. */
  upstream_html: string;
  toc: TocEntry[];
  json_ld: JsonLd | null;
  images: ArticleImage[];
  published_at: Date | null;
  updated_at: Date;
  synced_at: Date;
  content_hash: string;
}

/** A row for lists (index, feeds, sitemap): no HTML, which is most of a row's size. */
export type SiteArticleSummary = Pick<
  SiteArticle,
  'slug' | 'title' | 'description' | 'published_at' | 'updated_at' | 'synced_at'
>;

const SUMMARY = 'slug, title, description, published_at, updated_at, synced_at';
const NEWEST_FIRST = 'coalesce(published_at, updated_at) DESC, slug';

/** Reads of site_content only: the public pages never call the content API. */
export const siteContent = {
  async article(pool: Pool, kind: string, slug: string): Promise<SiteArticle | undefined> {
    const { rows } = await pool.query<SiteArticle>({
      name: 'site-content-article',
      text: `SELECT kind, slug, title, description, upstream_html, toc, json_ld, images, published_at, updated_at,
                    synced_at, content_hash
             FROM ${SITE_CONTENT} WHERE kind = $1 AND slug = $2`,
      values: [kind, slug],
    });
    return rows[0];
  },

  /** Just enough to tell whether a cached page is still current: no HTML, no JSON. */
  async contentHash(pool: Pool, kind: string, slug: string): Promise<string | undefined> {
    const { rows } = await pool.query<{ content_hash: string }>({
      name: 'site-content-hash',
      text: `SELECT content_hash FROM ${SITE_CONTENT} WHERE kind = $1 AND slug = $2`,
      values: [kind, slug],
    });
    return rows[0]?.content_hash;
  },

  async page(pool: Pool, kind: string, limit: number, offset: number): Promise<SiteArticleSummary[]> {
    const { rows } = await pool.query<SiteArticleSummary>(
      `SELECT ${SUMMARY} FROM ${SITE_CONTENT} WHERE kind = $1 ORDER BY ${NEWEST_FIRST} LIMIT $2 OFFSET $3`,
      [kind, limit, offset],
    );
    return rows;
  },

  async count(pool: Pool, kind: string): Promise<number> {
    const { rows } = await pool.query(`SELECT count(*)::int AS n FROM ${SITE_CONTENT} WHERE kind = $1`, [
      kind,
    ]);
    return rows[0].n;
  },
};
