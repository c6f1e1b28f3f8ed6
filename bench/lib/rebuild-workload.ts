import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { contentHash } from '../../src/domain/content/article.ts';
import '../../src/domain/columns/events.ts';
import { service } from '../../app/modules.ts';
import { columnStream } from '../../src/domain/columns/column-state.ts';
import { articleStream } from '../../src/domain/content/article.ts';

/**
 * The log the rebuild benchmark replays: content syncs and column edits interleaved, as a service
 * that has run for a while would have written them. Each article is synced twice (published, then
 * updated); each column is created and patched three times.
 */
export interface Workload {
  events: number;
  articleEvents: number;
  columnEvents: number;
  articles: number;
  columns: number;
}

export function workload(events: number): Workload {
  const articleEvents = Math.floor(events / 2);
  const columnEvents = events - articleEvents;
  return {
    events,
    articleEvents,
    columnEvents,
    articles: Math.ceil(articleEvents / 2),
    columns: Math.ceil(columnEvents / 4),
  };
}

const PARAGRAPH =
  'Research tables keep one row per company and one column per fact an analyst wants to know. ' +
  'Enrichment columns fill themselves from providers; their run conditions decide which rows qualify. ';

/** About 1.3 KB of article HTML with the usual elements (headings, links, lists, an image). */
function articleHtml(n: number, revision: number): string {
  return (
    `<h2 id="intro">Introduction ${n}</h2><p>${PARAGRAPH}<a href="https://example.com/docs/${n}">Read more</a>.</p>` +
    `<h2 id="setup">Setting up (revision ${revision})</h2><ul><li>Create a table</li><li>Add columns</li>` +
    `<li>Run them</li></ul><p>${PARAGRAPH}${PARAGRAPH}</p>` +
    `<img src="https://cdn.example.com/img/${n}.png" alt="Diagram ${n}"><h2 id="next">Next steps</h2><p>${PARAGRAPH}</p>`
  );
}

function articleEvent(n: number, revision: number, at: Date) {
  const kind = 'blog';
  const article = {
    slug: `post-${n}`,
    title: `How to build a research table, part ${n}`,
    description: `Part ${n} of the series (revision ${revision}).`,
    html: articleHtml(n, revision),
    toc: [
      { text: 'Introduction', anchor: 'intro', level: 2, children: [] },
      { text: 'Setting up', anchor: 'setup', level: 2, children: [] },
      { text: 'Next steps', anchor: 'next', level: 2, children: [] },
    ],
    jsonLd: { '@context': 'https://schema.org', '@type': 'BlogPosting', headline: `Part ${n}` },
    images: [{ url: `https://cdn.example.com/img/${n}.png`, alt: `Diagram ${n}` }],
    publishedAt: new Date(at.getTime() - 86_400_000).toISOString(),
    updatedAt: at.toISOString(),
  };
  return {
    stream: articleStream.name(kind, article.slug),
    revision,
    type: 'ArticleSynced',
    data: {
      ...article,
      kind,
      contentHash: contentHash(kind, article),
      source: 'full',
      fetchedAt: at.toISOString(),
    },
  };
}

function columnEvent(c: number, revision: number) {
  const tableId = `tbl_${Math.floor(c / 25)}`;
  const columnId = `col_${c}`;
  const stream = columnStream.name(tableId, columnId);
  if (revision === 0)
    return {
      stream,
      revision,
      type: 'ColumnCreated',
      data: {
        tableId,
        columnId,
        key: `company_${c % 25}`,
        label: `Company ${c}`,
        kind: 'enrichment',
        dataType: 'text',
        origin: 'api',
        status: 'idle',
        autoRun: 'never',
        config: { provider: 'llm', mode: 'basic', promptSource: 'generated', llmLane: 'very_fast' },
        position: c % 25,
        isImportant: false,
      },
    };
  const changes =
    revision === 1
      ? { label: `Company ${c} (renamed)` }
      : revision === 2
        ? { autoRun: 'onInsert', config: { llmLane: 'fast', prompt: `Summarise company ${c}` } }
        : { isImportant: true, position: (c % 25) + 0.5 };
  return { stream, revision, type: 'ColumnPatched', data: { tableId, columnId, changes } };
}

type Generated = ReturnType<typeof articleEvent> | ReturnType<typeof columnEvent>;

/** The log in order: first revisions early, later revisions later, the two kinds interleaved. */
function* generate(w: Workload): Generator<Generated> {
  const start = Date.parse('2026-01-01T00:00:00Z');
  let a = 0;
  let c = 0;
  for (let i = 0; i < w.events; i++) {
    const at = new Date(start + i * 1000);
    if (i % 2 === 0 && a < w.articleEvents) {
      // Revision r of article n: all first syncs, then all updates.
      yield articleEvent(a % w.articles, Math.floor(a / w.articles), at);
      a++;
    } else if (c < w.columnEvents) {
      yield columnEvent(c % w.columns, Math.floor(c / w.columns));
      c++;
    } else {
      yield articleEvent(a % w.articles, Math.floor(a / w.articles), at);
      a++;
    }
  }
}

/**
 * Writes the log straight into the events table in transactions of `chunk` events (appending 200,000
 * events through the API would dominate the run and is measured elsewhere). Every event goes through
 * the registry's validation, as an append would.
 */
export async function seedLog(pool: pg.Pool, w: Workload, chunk = 5000): Promise<void> {
  let batch: Generated[] = [];
  const flush = async () => {
    if (batch.length === 0) return;
    const prepared = batch.map((e) =>
      service.registry.prepare({
        id: randomUUID(),
        type: e.type,
        data: e.data,
        metadata: { actor: 'system:sync' },
      }),
    );
    await pool.query(
      `INSERT INTO events (stream_name, stream_revision, event_id, type, data, metadata)
       SELECT * FROM unnest($1::text[], $2::bigint[], $3::uuid[], $4::text[], $5::jsonb[], $6::jsonb[])`,
      [
        batch.map((e) => e.stream),
        batch.map((e) => e.revision),
        prepared.map((e) => e.id),
        prepared.map((e) => e.type),
        prepared.map((e) => JSON.stringify(e.data)),
        prepared.map((e) => JSON.stringify(e.metadata)),
      ],
    );
    batch = [];
  };
  for (const event of generate(w)) {
    batch.push(event);
    if (batch.length >= chunk) await flush();
  }
  await flush();
  await pool.query('ANALYZE events');
}
