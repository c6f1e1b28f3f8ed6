import pg from 'pg';
import type { DestinationStream } from 'pino';
import type { Config } from '../../src/config.ts';
import { contract } from './conformance.ts';
import { beforeDrop } from './postgres.ts';

/**
 * Issue 20, item 5: no secret the suite knows of appears in a response (headers and body), a log
 * line (test apps log at `trace` into `scanningLog`) or an event of a test database (read before the
 * database is dropped). Secrets are known per database: those the apps over it were given (env) and
 * those their answers revealed once or their requests set (`learnFromExchange`). A hit is a leak;
 * test/run.ts prints each and fails the run.
 */

export interface Leak {
  /** The test file running when it was found. */
  source: string;
  /** Where: `response GET /api/keys/:keyId 200`, `log line`, `event key.issued in ...`. */
  where: string;
  /** What leaked, by its label (never the value). */
  what: string;
}

export const leaks: Leak[] = [];

/** Shorter values would be found by chance (in ids, words, numbers): only longer ones are known. */
const MIN_LENGTH = 8;

/** A password hash (src/auth: `scrypt$...`) belongs in its event and nowhere else. */
const PASSWORD_HASH = /scrypt\$[^\s"]{16}/;

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The secrets known for one database, searched for with one regular expression. */
export class SecretRegistry {
  private readonly labels = new Map<string, string>();
  private pattern: RegExp | undefined;

  add(value: unknown, label: string): void {
    if (typeof value !== 'string' || value.length < MIN_LENGTH || this.labels.has(value)) return;
    this.labels.set(value, label);
    this.pattern = undefined;
  }

  get size(): number {
    return this.labels.size;
  }

  /** The label of each known secret found in `text`. */
  find(text: string): string[] {
    if (this.labels.size === 0) return [];
    this.pattern ??= new RegExp([...this.labels.keys()].map(escapeRegExp).join('|'), 'g');
    return [...new Set([...text.matchAll(this.pattern)].map(([match]) => this.labels.get(match) ?? '?'))];
  }
}

const registries = new Map<string, SecretRegistry>();

export function registryOf(databaseUrl: string): SecretRegistry {
  let registry = registries.get(databaseUrl);
  if (!registry) {
    registry = new SecretRegistry();
    registries.set(databaseUrl, registry);
  }
  return registry;
}

/** Settings that are secrets, by name; `DATABASE_URL` and `SMTP_URL` by their credentials. */
const SECRET_SETTINGS = [
  'CRON_SECRET',
  'CONTENT_API_KEY',
  'METRICS_TOKEN',
  'LLM_API_KEY',
  'SECRETS_MASTER_KEY',
] as const;

export function registerConfigSecrets(registry: SecretRegistry, config: Config): void {
  for (const name of SECRET_SETTINGS) registry.add(config[name], name);
  for (const key of config.SECRETS_PREVIOUS_MASTER_KEYS ?? [])
    registry.add(key, 'SECRETS_PREVIOUS_MASTER_KEYS');
  for (const name of ['DATABASE_URL', 'SMTP_URL'] as const) {
    const url = config[name];
    if (!url) continue;
    const { username, password } = new URL(url);
    // The embedded test server's password is the well-known `postgres`: the user:password@ pair of
    // a URL is what would show a leaked connection string.
    if (password) registry.add(`${username}:${password}@`, `${name} credentials`);
    if (password.length >= MIN_LENGTH && password !== username) registry.add(password, `${name} password`);
  }
}

/**
 * The answers allowed to carry a secret, by method and route: each reveals a new one once (its
 * creator must keep it). Their bodies are still searched for every secret known before them.
 */
const REVEALS: Record<string, (body: Record<string, unknown>) => [string, unknown][]> = {
  'POST /api/auth/agent-bootstrap': (b) => apiKeyParts(b.apiKey),
  'POST /api/auth/login': (b) => apiKeyParts(b.apiKey),
  'POST /api/keys': (b) => apiKeyParts(b.apiKey),
  'POST /api/webhooks': (b) => [['webhook signing secret', b.secret]],
  'POST /api/webhooks/:id/rotate-secret': (b) => [['webhook signing secret', b.secret]],
};

/** `stk_{keyId}.{secret}`: the key id is public (it names the key in listings); the rest is not. */
function apiKeyParts(apiKey: unknown): [string, unknown][] {
  if (typeof apiKey !== 'string') return [];
  return [['API key secret', apiKey.slice(apiKey.lastIndexOf('.') + 1)]];
}

/** Requests that set a secret, by method and route: what of their body is one. */
const SETS: Record<string, (body: Record<string, unknown>) => [string, unknown][]> = {
  'PUT /api/secrets/:name': (b) => [['secret value', b.value]],
  'POST /api/auth/agent-bootstrap': (b) => [['password', b.password]],
  'POST /api/auth/login': (b) => [['password', b.password]],
  'POST /api/users': (b) => [['password', b.password]],
};

export interface Seen {
  method: string;
  route?: string;
  status: number;
  headers: Record<string, unknown>;
  requestBody: unknown;
  /** The body as text, undefined for a stream or none. */
  body?: string;
}

const objectOf = (value: unknown) =>
  value && typeof value === 'object' ? (value as Record<string, unknown>) : ({} as Record<string, unknown>);

/**
 * One response of a test app over the database of `registry`: searched for every known secret (and
 * password hashes), then what it revealed or its request set becomes known.
 */
export function scanResponse(registry: SecretRegistry, seen: Seen): void {
  const name = `${seen.method} ${seen.route ?? '(no route)'}`;
  const where = `response ${name} ${seen.status}`;
  const text = `${JSON.stringify(seen.headers)}\n${seen.body ?? ''}`;
  report(where, registry.find(text));
  if (PASSWORD_HASH.test(text)) report(where, ['a password hash']);
  if (seen.status >= 200 && seen.status < 300) {
    let body: Record<string, unknown> = {};
    try {
      body = objectOf(JSON.parse(seen.body ?? 'null'));
    } catch {}
    for (const [label, value] of REVEALS[name]?.(body) ?? []) registry.add(value, label);
    for (const [label, value] of SETS[name]?.(objectOf(seen.requestBody)) ?? []) registry.add(value, label);
  }
}

function report(where: string, found: readonly string[]): void {
  for (const what of found) leaks.push({ source: contract.currentFile, where, what });
}

/** A pino destination that searches each line and keeps none. */
export function scanningLog(registry: SecretRegistry, next?: DestinationStream): DestinationStream {
  return {
    write(line: string) {
      report('log line', registry.find(line));
      if (PASSWORD_HASH.test(line)) report('log line', ['a password hash']);
      next?.write(line);
    },
  };
}

/** Every event of the database, searched before it is dropped (events keep password hashes by design). */
async function scanEvents(database: { url: string }): Promise<void> {
  const registry = registries.get(database.url);
  registries.delete(database.url);
  if (!registry?.size) return;
  const client = new pg.Client(database.url);
  try {
    await client.connect();
    const { rows } = await client.query<{ stream_name: string; type: string; text: string }>(
      `SELECT stream_name, type, data::text || ' ' || metadata::text AS text FROM events`,
    );
    for (const row of rows) report(`event ${row.type} in ${row.stream_name}`, registry.find(row.text));
  } catch (error) {
    // A database some test dropped itself, or one without an event table: nothing to leak from.
    const code = (error as { code?: string }).code;
    if (code !== '3D000' && code !== '42P01')
      leaks.push({ source: contract.currentFile, where: 'events', what: `not searched: ${error}` });
  } finally {
    await client.end().catch(() => {});
  }
}

beforeDrop.push(scanEvents);
