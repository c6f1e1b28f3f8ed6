import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { columnsProjection } from '../../../../projections/columns/columns.ts';
import '../../../../src/domain/columns/events.ts';
import { columnStream } from '../../../../src/domain/columns/column-state.ts';
import type { EventStore } from '../../../../src/event-store/port.ts';
import { projectionAudit } from '../../../../src/projection/audit.ts';
import { checkpoints } from '../../../../src/projection/checkpoints.ts';
import { Projections } from '../../../../src/projection/projections.ts';
import { rebuildRecords } from '../../../../src/projection/rebuild-records.ts';
import { runAdmin, spawnAdmin } from '../../../support/cli.ts';
import { columnCreated } from '../../../support/column-events.ts';
import { eventually } from '../../../support/eventually.ts';
import { freshBuildRows, tableRows } from '../../../support/rebuild-fixtures.ts';
import { closeStore, openStore, type StoreContext } from '../../../support/store.ts';

interface Ctx extends StoreContext {
  projections: Projections;
}

const test = suite<Ctx>('e2e: stk admin projections rebuild, killed with SIGKILL midway, resumes');

const TABLE = 'tbl_crash';
const COLUMNS = 20;
const PATCHES = 20_000;

/** 20 columns and 20,000 patches of them, appended 100 at a time. */
async function seed(store: EventStore): Promise<void> {
  for (let c = 0; c < COLUMNS; c++)
    await store.append(columnStream.name(TABLE, `col_${c}`), [
      columnCreated(TABLE, `col_${c}`, { key: `k${c}`, label: `Column ${c}`, position: c }),
    ]);
  for (let i = 0; i < PATCHES; i += 100) {
    const columnId = `col_${(i / 100) % COLUMNS}`;
    await store.append(
      columnStream.name(TABLE, columnId),
      Array.from({ length: 100 }, (_, j) => ({
        type: 'ColumnPatched',
        data: {
          tableId: TABLE,
          columnId,
          changes: { label: `patch ${i + j}`, config: { [`p${(i + j) % 50}`]: i + j } },
        },
      })),
    );
  }
}

test.before(async (ctx) => {
  await openStore(ctx);
  await seed(ctx.store);
  // A live runner in this process keeps the old tables current while the CLI rebuilds in another.
  ctx.projections = new Projections(ctx.store, ctx.db.pool, [columnsProjection]);
  await ctx.projections.start();
});

test.after(closeStore);

test('the rebuild resumes from its own checkpoint after SIGKILL and swaps in a fresh build', async (ctx) => {
  const child = spawnAdmin(ctx.db.url, ['projections', 'rebuild', 'columns', '--batch-size', '50']);
  const exited = new Promise<NodeJS.Signals | null>((resolve) =>
    child.once('exit', (_code, signal) => resolve(signal)),
  );
  await eventually(
    'the rebuild to get going',
    async () => ((await checkpoints.get(ctx.db.pool, 'columns@rebuild'))?.eventsApplied ?? 0) >= 2000,
    60_000,
  );
  child.kill('SIGKILL');
  assert.is(await exited, 'SIGKILL');
  const left = await checkpoints.get(ctx.db.pool, 'columns@rebuild');
  assert.ok(left && left.eventsApplied >= 2000 && left.eventsApplied < COLUMNS + PATCHES, 'killed midway');
  assert.ok(await rebuildRecords.get(ctx.db.pool, 'columns'));

  const status = await runAdmin(ctx.db.url, ['projections', 'status', '--json']);
  assert.is(status.code, 0, status.stderr);
  const report = JSON.parse(status.stdout).find((r: { name: string }) => r.name === 'columns');
  assert.is(report.state, 'rebuilding');
  assert.is(report.rebuild.active, false);
  assert.is(report.rebuild.eventsApplied, left!.eventsApplied);

  // More history while nobody rebuilds: the resumed rebuild must take it in too.
  await ctx.store.append(columnStream.name(TABLE, 'col_0'), [
    {
      type: 'ColumnPatched',
      data: { tableId: TABLE, columnId: 'col_0', changes: { label: 'after the crash' } },
    },
  ]);
  const resumed = await runAdmin(ctx.db.url, ['projections', 'rebuild', 'columns']);
  assert.is(resumed.code, 0, resumed.stderr);
  assert.match(resumed.stdout, /columns: rebuilt v1 and swapped in .*resumed/);
  // Not a terminal: plain progress lines on stderr.
  assert.match(resumed.stderr, /columns: [\d,]+\/[\d,]+ events \(\d+%\), [\d,]+ events\/s/);

  const head = await ctx.store.head();
  await eventually(
    'the live runner to follow the swapped tables',
    async () => (await checkpoints.get(ctx.db.pool, 'columns'))?.position.prepare === head.prepare,
  );
  assert.equal(
    await tableRows(ctx.db.pool, columnsProjection),
    await freshBuildRows(ctx.store, ctx.db.pool, columnsProjection),
  );
  assert.is(await rebuildRecords.get(ctx.db.pool, 'columns'), undefined);
  const actions = (await projectionAudit.recent(ctx.db.pool, 'columns')).map((e) => `${e.action} ${e.actor}`);
  assert.equal(actions, [
    'rebuild test-operator',
    'rebuild_resumed test-operator',
    'rebuild_started test-operator',
  ]);
});

test.run();
