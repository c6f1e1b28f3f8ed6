import { type Answer, bearer, call } from '../accounts.ts';
import { leaks, normalized, unknownLike } from './answers.ts';
import { tellTales } from './fixtures.ts';
import { type IsolatedService, settled } from './service.ts';

/** One request of B. */
export const asB = (
  s: IsolatedService,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Answer> => call(s.t.url, method, path, { headers: { ...headers, ...bearer(s.b.key) }, body });

/**
 * What B's request may do: be refused (a 4xx, nothing stored), read (any answer, nothing stored),
 * or write B's own (a secret of B named like A's), which then is the new baseline.
 */
export type Expect = 'refused' | 'read' | 'own';

export interface Probe {
  label: string;
  method: string;
  /** The request, with `pick(name)` naming A's object in one send and an unknown one in the other. */
  build(pick: (name: string) => string): { path: string; body?: unknown; headers?: Record<string, string> };
  /** Name -> A's value, for the names the request takes from A. */
  aValues: Record<string, string>;
  expect: Expect;
  /** Why the two answers may differ (printed); without it they must read the same. */
  mayDiffer?: string;
  /** Run after each send (the undo of an `own` write). */
  after?(path: string): Promise<unknown>;
}

/**
 * Sends a request as B twice, once naming A's objects and once unknown ones of the same form, and
 * answers what is wrong: the two answers reading differently (an object of A reached, or told
 * apart from nothing), an answer holding anything of A the request did not carry, a 5xx, a success
 * where a refusal was due, or a refused request changing what is stored.
 */
export async function probe(s: IsolatedService, p: Probe): Promise<string[]> {
  const unknown = Object.fromEntries(Object.entries(p.aValues).map(([n, v]) => [n, unknownLike(v)]));
  // B's own ids read as `B:<name>`, so that an echo of them does not differ between the two sends.
  const own = Object.entries(s.b.ids).map(([n, v]) => [v, `B:${n}`] as [string, string]);
  const names = (values: Record<string, string>) =>
    new Map([...own, ...Object.entries(values).map(([n, v]) => [v, n] as [string, string])]);
  const problems: string[] = [];
  const baseline = await s.state.snapshot();
  const answers: string[] = [];
  for (const values of [p.aValues, unknown]) {
    const { path, body, headers } = p.build((n) => values[n] ?? s.b.ids[n] ?? '');
    const answer = await asB(s, p.method, path, body, headers);
    const found = leaks(answer, tellTales(s.a), `${path} ${JSON.stringify(body)} ${JSON.stringify(headers)}`);
    if (found.length)
      problems.push(`${p.label}: the answer shows A's ${found.join(', ')}: ${JSON.stringify(answer.body)}`);
    if (answer.status >= 500) problems.push(`${p.label}: a ${answer.status}`);
    if (p.expect === 'refused' && answer.status < 400)
      problems.push(
        `${p.label}: B got a ${answer.status} for ${path}: ${JSON.stringify(answer.body).slice(0, 300)}`,
      );
    answers.push(normalized(answer, names(values)));
    await p.after?.(path);
  }
  // B's own writes are delivered to B's subscription: let that finish before the next baseline.
  if (p.expect === 'own') await settled(s.t, s.b, s.hooks.b);
  if (process.env.ISOLATION_VERBOSE) console.log(`  ${p.label}\n    ${answers.join('\n    ')}`);
  if (answers[0] !== answers[1] && p.mayDiffer)
    console.log(
      `  ${p.label}: answers differ by design: ${p.mayDiffer}\n    A's:     ${answers[0]}\n    unknown: ${answers[1]}`,
    );
  else if (answers[0] !== answers[1])
    problems.push(
      `${p.label}: A's ids and unknown ones answer differently:\n    A's:     ${answers[0]}\n    unknown: ${answers[1]}`,
    );
  const now = p.expect === 'own' ? baseline : await s.state.snapshot();
  if (now !== baseline)
    problems.push(`${p.label}: B's request changed what is stored (${changed(s, baseline, now)})`);
  return problems;
}

/** Which part of a snapshot (test/support/fuzz/stored-state.ts: the log's head, then a sum per table) moved. */
function changed(s: IsolatedService, before: string, after: string): string {
  const [headBefore, sumsBefore = ''] = before.split(' ');
  const [headAfter, sumsAfter = ''] = after.split(' ');
  const a = sumsBefore.split(',');
  const b = sumsAfter.split(',');
  const tables = s.state.tables.filter((_, i) => a[i] !== b[i]);
  return [...(headBefore === headAfter ? [] : ['the event log']), ...tables].join(', ');
}
