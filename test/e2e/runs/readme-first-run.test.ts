/**
 * Issue 34, item 8: the README's first column run works offline, on loopback. This test reads the
 * steps from README.md ("A first column run, offline") and follows them against the real service in
 * its own process: the service started with the README's settings, `stk bootstrap --password-stdin`
 * as the README shows it, then each `stk` line of the block, its placeholders (`<tableId>`...) filled
 * with what the earlier lines answered and `127.0.0.1:3000` with the service's address.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { deriveKey } from '../../../src/domain/columns/fields.ts';
import { runStk } from '../../support/cli.ts';
import { freshDatabase, type TestDatabase } from '../../support/postgres.ts';
import { type ServiceProcess, startServiceProcess } from '../../support/service-process.ts';

const test = suite<Context>("the README's first column run, offline, followed step by step");

const README = new URL('../../../README.md', import.meta.url);

/** The words of a shell line: single and double quotes, backslash-newline, a `#` comment dropped. */
function shellWords(line: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === "'" || c === '"') {
      const end = line.indexOf(c, i + 1);
      if (end === -1) throw new Error(`unclosed quote in: ${line}`);
      word = (word ?? '') + line.slice(i + 1, end);
      i = end;
    } else if (/\s/.test(c)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else if (c === '#' && word === undefined) {
      break;
    } else word = (word ?? '') + c;
  }
  if (word !== undefined) words.push(word);
  return words;
}

/** The ```sh blocks of the README's section `heading`, each as its commands (continuations joined). */
function blocksOf(readme: string, heading: string): string[][] {
  const start = readme.indexOf(`\n${heading}\n`);
  assert.ok(start >= 0, `README.md has no "${heading}"`);
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end === -1 ? undefined : end);
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map(([, body]) =>
    body!
      .replace(/\\\n\s*/g, ' ')
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '' && !line.startsWith('#')),
  );
}

interface Context {
  db: TestDatabase;
  service: ServiceProcess;
  dir: string;
}

test.before(async (ctx) => {
  ctx.db = await freshDatabase();
  ctx.dir = await mkdtemp(join(tmpdir(), 'stk-readme-'));
});
test.after(async (ctx) => {
  await ctx.service?.stop();
  await rm(ctx.dir, { recursive: true, force: true });
  await ctx.db?.drop();
});

test('start the service as the README says, bootstrap without a terminal, create, insert, run, read the cell', async (ctx) => {
  const readme = await readFile(README, 'utf8');
  const [start, steps] = blocksOf(readme, '### A first column run, offline');
  assert.ok(start && steps, 'two shell blocks: the start, then the steps');

  // `VAR=value ... npm start`: the service with those settings (on a database and port of the test's).
  assert.is(start.length, 1);
  const words = shellWords(start[0]!);
  const settings = words.slice(0, words.indexOf('npm'));
  assert.equal(words.slice(settings.length), ['npm', 'start']);
  assert.ok(settings.includes('ALLOW_PRIVATE_NETWORK_TARGETS=true'), start[0]);
  const env = Object.fromEntries(settings.map((s) => s.split('=') as [string, string]));
  ctx.service = await startServiceProcess({ ...env, DATABASE_URL: ctx.db.url, LOG_LEVEL: 'warn' });
  const address = new URL(ctx.service.url).host;

  const stkEnv = { STK_CONFIG: join(ctx.dir, 'config.json'), STK_BASE_URL: ctx.service.url };
  // The README's bootstrap for use without a terminal: the password on stdin, the key saved.
  const bootstrap = /^printf '%s\\n' '([^']+)' \| (stk bootstrap .*--password-stdin)$/m.exec(readme);
  assert.ok(bootstrap, 'the README shows stk bootstrap --password-stdin');
  const boot = await runStk(shellWords(bootstrap[2]!).slice(1), { env: stkEnv, input: `${bootstrap[1]}\n` });
  assert.is(boot.code, 0, boot.stderr);
  assert.match(boot.stdout, 'API key (shown once');

  const known: Record<string, string> = {};
  let listed: { data: { cells: Record<string, unknown> }[] } | undefined;
  for (const step of steps) {
    const parts = shellWords(step);
    let input: string | undefined;
    let args = parts;
    if (parts[0] === 'echo') {
      assert.is(parts[2], '|', step);
      input = parts[1]!.replaceAll('127.0.0.1:3000', address);
      args = parts.slice(3);
    }
    assert.is(args[0], 'stk', step);
    args = args.slice(1).map((word) =>
      word.replace(/<(\w+)>/g, (_, name: string) => {
        const value = known[name];
        assert.ok(value, `${step}: nothing earlier gave <${name}>`);
        return value;
      }),
    );
    // --json: the same command, its answer read by the test rather than by eye.
    const ran = await runStk(['--json', ...args], { env: stkEnv, input });
    assert.is(ran.code, 0, `${step}\n${ran.stderr}\n${ran.stdout}`);
    const [group, verb] = args;
    const last = () => JSON.parse(ran.stdout.trim().split('\n').at(-1)!);
    if (group === 'tables' && verb === 'create') known.tableId = JSON.parse(ran.stdout).id;
    if (group === 'columns' && verb === 'create') {
      const label = args[args.indexOf('--label') + 1]!;
      known[`${deriveKey(label)}ColumnId`] = JSON.parse(ran.stdout).id;
    }
    if (group === 'columns' && verb === 'run') {
      assert.is(last().status, 'succeeded', ran.stdout);
      known.runId = last().id;
    }
    if (group === 'runs' && verb === 'rows') assert.equal(JSON.parse(ran.stdout).data, []);
    if (group === 'rows' && verb === 'list') listed = JSON.parse(ran.stdout);
  }
  assert.ok(listed, 'the steps end with the rows listed');
  assert.is(listed.data.length, 1);
  assert.equal(listed.data[0]!.cells.health, { status: 'ok' }, 'the Health cell holds /healthz');
});

test.run();
