import type { Operation } from '../fuzz/operations.ts';
import { BODY_CASES, NO_FOREIGN_IDS, OWN_NAMESPACE, PATH_BODIES, PUBLIC_PARAMS } from './bodies.ts';
import type { Organization } from './fixtures.ts';
import { asB, type Probe } from './probe.ts';
import type { IsolatedService } from './service.ts';

export const key = (op: { method: string; path: string }) => `${op.method} ${op.path}`;
export const pathParams = (op: Operation) => op.params.filter((p) => p.in === 'path').map((p) => p.name);
/** An organization's object by the name the matrix gives it; `marker` is the text in its names. */
export const nameOf = (org: Organization, name: string) =>
  name === 'marker' ? org.marker : (org.ids[name] as string);
export const fill = (path: string, values: Record<string, string>) =>
  path.replace(/\{(\w+)\}/g, (_, n: string) => encodeURIComponent(values[n] as string));

/** What the matrix makes of the document: the probes to send, what it cannot judge, what it left out. */
export interface Plan {
  probes: Probe[];
  problems: string[];
  left: string[];
}

/**
 * A probe per operation with path parameters: all of the path A's, then (nested paths) B's own
 * parent with A's children. Deletions last: should one wrongly succeed, the others still find A's
 * objects. A parameter or a body the matrix has no value for is a problem telling what to add.
 */
export function pathPlan(s: IsolatedService): Plan {
  const plan: Plan = { probes: [], problems: [], left: [] };
  const ops = s.operations
    .filter((op) => pathParams(op).length > 0)
    .sort((x, y) => Number(x.method === 'DELETE') - Number(y.method === 'DELETE'));
  for (const op of ops) {
    const params = pathParams(op);
    const open = params.filter((n) => PUBLIC_PARAMS[n]);
    if (open.length) {
      plan.left.push(`${key(op)} (${open.map((n) => PUBLIC_PARAMS[n]).join('; ')})`);
      continue;
    }
    const missing = params.filter((n) => s.a.ids[n] === undefined);
    if (missing.length) {
      plan.problems.push(
        `${key(op)}: the matrix has no object for path parameter ${missing.join(', ')}: make one in ` +
          'buildOrganization (test/support/isolation/fixtures.ts) and name it in its ids, or list the ' +
          'parameter in PUBLIC_PARAMS with the reason',
      );
      continue;
    }
    const bodyOf = PATH_BODIES[key(op)];
    const undo = OWN_NAMESPACE[key(op)];
    if (op.body && !bodyOf) {
      plan.problems.push(
        `${key(op)} takes a body: add a valid one to PATH_BODIES (test/support/isolation/bodies.ts)`,
      );
      continue;
    }
    for (const foreign of [params, ...(params.length > 1 ? [params.slice(1)] : [])])
      plan.probes.push({
        label: `${key(op)} [A's ${foreign.join(', ')}]`,
        method: op.method,
        build: (pick) => ({
          path: fill(op.path, Object.fromEntries(params.map((n) => [n, pick(n)]))),
          body: bodyOf?.(s.b),
        }),
        aValues: Object.fromEntries(foreign.map((n) => [n, s.a.ids[n] as string])),
        expect: undo ? 'own' : 'refused',
        after: undo ? (path) => asB(s, undo, path) : undefined,
      });
  }
  return plan;
}

/**
 * A probe per body case (ids of A in a body or a query), and a problem for every operation without
 * path parameters that takes a body and is neither covered by a case nor said to name no objects.
 */
export function bodyPlan(s: IsolatedService): Plan {
  const plan: Plan = { probes: [], problems: [], left: [] };
  for (const c of BODY_CASES) {
    if (!s.operations.some((o) => key(o) === key(c))) {
      plan.problems.push(`${c.label}: ${key(c)} is not in the document any more: update BODY_CASES`);
      continue;
    }
    // The names the case takes from A, found by running it once with a recorder.
    const named = new Set<string>();
    const record = (n: string) => {
      named.add(n);
      return '';
    };
    c.body?.(s.b, record);
    c.query?.(record);
    c.headers?.(record);
    plan.probes.push({
      label: c.label,
      method: c.method,
      build: (pick) => {
        const query = c.query ? `?${new URLSearchParams(c.query(pick))}` : '';
        return {
          path: `${fill(c.path, s.b.ids)}${query}`,
          body: c.body?.(s.b, pick),
          headers: c.headers?.(pick),
        };
      },
      aValues: Object.fromEntries([...named].map((n) => [n, nameOf(s.a, n)])),
      expect: c.expect ?? 'own',
      mayDiffer: c.mayDiffer,
    });
  }
  for (const op of s.operations) {
    if (pathParams(op).length > 0 || !op.body) continue;
    if (!NO_FOREIGN_IDS[key(op)] && !BODY_CASES.some((c) => key(c) === key(op)))
      plan.problems.push(
        `${key(op)} takes a body and the matrix does not know whether it names objects: add its ids to ` +
          'BODY_CASES or the operation to NO_FOREIGN_IDS with the reason (test/support/isolation/bodies.ts)',
      );
  }
  return plan;
}
