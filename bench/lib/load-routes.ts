import type autocannon from 'autocannon';
import { bearer } from '../../test/support/accounts.ts';
import type { LoadFixture } from './load-setup.ts';

/** One group of the mixed load: a route, its share of the connections, and the request its instance sends. */
export interface RouteGroup {
  route: string;
  connections: number;
  request: autocannon.Request;
}

/**
 * The mixed workload of bench/load.ts, one autocannon group per route, `connections` shared out by
 * weight (out of 64, at least one each): column and row reads, blog pages, column PATCHes, row inserts
 * of 5 rows, named content syncs. Bodies and slugs vary by one counter shared across the groups.
 */
export function routeMix(connections: number, fixture: LoadFixture): RouteGroup[] {
  const { key, tableId, slugs } = fixture;
  const auth = { ...bearer(key), 'content-type': 'application/json' };
  let n = 0;
  const share = (weight: number) => Math.max(1, Math.round((connections * weight) / 64));
  return [
    {
      route: 'GET /api/tables/{id}/columns',
      connections: share(8),
      request: { method: 'GET', path: `/api/tables/${tableId}/columns`, headers: auth },
    },
    {
      route: 'GET /api/tables/{id}/rows',
      connections: share(10),
      request: { method: 'GET', path: `/api/tables/${tableId}/rows?limit=50&sort=-score`, headers: auth },
    },
    {
      route: 'GET /blog/{slug}',
      connections: share(14),
      request: {
        method: 'GET',
        path: '/blog',
        setupRequest: (req) => ({ ...req, path: `/blog/${slugs[n++ % slugs.length]}` }),
      },
    },
    {
      route: 'PATCH /api/tables/{id}/columns/{id}',
      connections: share(10),
      request: {
        method: 'PATCH',
        path: `/api/tables/${tableId}/columns/${fixture.nameColumnId}`,
        headers: auth,
        setupRequest: (req) => ({ ...req, body: JSON.stringify({ label: `Name ${n++}` }) }),
      },
    },
    {
      route: 'POST /api/tables/{id}/rows (5 rows)',
      connections: share(12),
      request: {
        method: 'POST',
        path: `/api/tables/${tableId}/rows`,
        headers: auth,
        setupRequest: (req) => ({
          ...req,
          body: JSON.stringify({
            rows: Array.from({ length: 5 }, () => ({ cells: { name: `new ${n}`, score: n++ } })),
          }),
        }),
      },
    },
    {
      route: 'POST /api/content/sync (named)',
      connections: share(10),
      request: {
        method: 'POST',
        path: '/api/content/sync',
        headers: { 'content-type': 'application/json' },
        setupRequest: (req) => ({
          ...req,
          body: JSON.stringify({ items: [{ slug: slugs[n++ % slugs.length] }] }),
        }),
      },
    },
  ];
}

/** The columns of the route table, a row per group. */
export const ROUTE_HEADERS = ['route', 'conns', 'requests', 'req/s', 'p50 ms', 'p99 ms', '429', 'errors'];

/**
 * A group's row of the route table: requests, rate, p50/p99, the 429s (intended answers) and every
 * other non-2xx status, timeout and connection error.
 */
export function routeRow(group: RouteGroup, result: autocannon.Result): string[] {
  const codes = Object.entries(result.statusCodeStats ?? {}) as [string, { count: number }][];
  const limited = codes.filter(([c]) => c === '429').reduce((s, [, v]) => s + v.count, 0);
  const other = codes.filter(([c]) => !/^2/.test(c) && c !== '429').map(([c, v]) => `${v.count}x${c}`);
  // autocannon counts a timeout (no answer within 10 s) among its errors too.
  if (result.timeouts > 0) other.push(`${result.timeouts} timeouts`);
  if (result.errors > result.timeouts) other.push(`${result.errors - result.timeouts} connection errors`);
  return [
    group.route,
    String(group.connections),
    result.requests.total.toLocaleString('en-US'),
    result.requests.average.toFixed(0),
    String(result.latency.p50),
    String(result.latency.p99),
    String(limited),
    other.join(', ') || '0',
  ];
}
