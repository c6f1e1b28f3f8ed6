import { type ArticleEvent, effectiveUpdatedAt } from '../../src/domain/content/article.ts';
import type { Projection, RecordedOf } from '../../src/projection/types.ts';

/** The logical table the public pages read; queries import this name rather than spelling it. */
export const SITE_CONTENT = 'site_content';

/**
 * The website's own copy of its articles, one row per (kind, slug), upserted from ArticleSynced and
 * never deleted. The HTML is kept as it came and sanitized at render time: sanitize-html costs 2-3 ms
 * for a 20 KB article, which in the projection would sit inside every sync's response time, while a
 * rendered page is cached per process (queries/content/site/page-cache.ts) and sanitized once per change.
 */
export const siteContentProjection: Projection<ArticleEvent> = {
  name: 'site_content',
  version: 1,
  handles: ['ArticleSynced'],
  tables: {
    [SITE_CONTENT]: (t) => [
      `CREATE TABLE ${t} (
        kind         text NOT NULL,
        slug         text NOT NULL,
        title        text NOT NULL,
        description  text,
        -- As the content API sent it: untrusted, sanitized whenever it is rendered.
        upstream_html text NOT NULL,
        toc          jsonb NOT NULL DEFAULT '[]',
        json_ld      jsonb,
        images       jsonb NOT NULL DEFAULT '[]',
        published_at timestamptz,
        updated_at   timestamptz NOT NULL,
        synced_at    timestamptz NOT NULL,
        content_hash text NOT NULL,
        revision     bigint NOT NULL,
        PRIMARY KEY (kind, slug)
      )`,
      `CREATE INDEX ${t}_newest ON ${t} (kind, (coalesce(published_at, updated_at)) DESC, slug)`,
      // Out of line but not compressed: pglz was the largest single cost of a sync in PostgreSQL (about
      // 1 s of CPU per 100 MB) and is paid again on every uncached page view; this table holds one row
      // per article, so the space it saves is small. The event log keeps its history compressed. (A
      // table created before this line has it from migration 1700000000006.)
      `ALTER TABLE ${t} ALTER COLUMN upstream_html SET STORAGE EXTERNAL`,
    ],
  },
  async apply(events, { tx, table }) {
    // One statement per batch; within a batch only the newest revision of an article counts.
    const latest = new Map<string, RecordedOf<ArticleEvent>>();
    for (const event of events) {
      const key = `${event.data.kind}\u0000${event.data.slug}`;
      const seen = latest.get(key);
      if (!seen || seen.revision < event.revision) latest.set(key, event);
    }
    const rows = [...latest.values()];
    if (rows.length === 0) return;
    const t = table(SITE_CONTENT);
    // The batch goes as one JSON document: node-postgres would escape every character of 20 KB of
    // HTML per row into an array literal, which costs more than the statement itself.
    const batch = rows.map((e) => ({
      kind: e.data.kind,
      slug: e.data.slug,
      title: e.data.title,
      description: e.data.description,
      upstream_html: e.data.html,
      toc: e.data.toc,
      json_ld: e.data.jsonLd,
      images: e.data.images,
      published_at: e.data.publishedAt,
      updated_at: effectiveUpdatedAt(e.data),
      synced_at: e.data.fetchedAt,
      content_hash: e.data.contentHash,
      revision: String(e.revision),
    }));
    await tx.query(
      `INSERT INTO ${t} (kind, slug, title, description, upstream_html, toc, json_ld, images, published_at,
                         updated_at, synced_at, content_hash, revision)
       SELECT kind, slug, title, description, upstream_html, coalesce(toc, '[]'), json_ld,
              coalesce(images, '[]'), published_at, updated_at, synced_at, content_hash, revision
       FROM json_to_recordset($1::json) AS r(kind text, slug text, title text, description text,
            upstream_html text, toc jsonb, json_ld jsonb, images jsonb, published_at timestamptz,
            updated_at timestamptz, synced_at timestamptz, content_hash text, revision bigint)
       ON CONFLICT (kind, slug) DO UPDATE SET
         title = EXCLUDED.title, description = EXCLUDED.description, upstream_html = EXCLUDED.upstream_html,
         toc = EXCLUDED.toc, json_ld = EXCLUDED.json_ld, images = EXCLUDED.images,
         published_at = EXCLUDED.published_at, updated_at = EXCLUDED.updated_at,
         synced_at = EXCLUDED.synced_at, content_hash = EXCLUDED.content_hash, revision = EXCLUDED.revision
       WHERE ${t}.revision < EXCLUDED.revision`,
      [JSON.stringify(batch)],
    );
  },
};
