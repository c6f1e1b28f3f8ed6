import { z } from 'zod';
import { DEFAULT_KIND, KIND_PATTERN } from './content-api/article.ts';

const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v));

const port = z.coerce.number().int().min(0).max(65535);

/** 32 bytes in standard base64 (what `openssl rand -base64 32` prints). */
export const isMasterKeyText = (text: string) => {
  const bytes = Buffer.from(text, 'base64');
  return bytes.length === 32 && bytes.toString('base64') === text;
};
const MASTER_KEY_FORM = 'expected 32 random bytes in base64 (openssl rand -base64 32)';

/**
 * Every setting the service reads. The environment is parsed once, at start-up; a bad value stops the
 * process with a message naming the variable and the expected form.
 */
export const configSchema = z.object({
  PORT: port.default(3000).describe('a TCP port, 0-65535'),
  HOST: z.string().min(1).default('127.0.0.1'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  DATABASE_URL: optionalString.pipe(
    z.url({ protocol: /^postgres(ql)?$/, error: 'expected a postgres:// URL' }).optional(),
  ),
  DATA_DIR: z.string().min(1).default('./.data'),
  EVENTSTORE_URL: optionalString.pipe(
    z.url({ protocol: /^esdb(\+discover)?$/, error: 'expected an esdb:// URL' }).optional(),
  ),
  CONTENT_API_URL: optionalString.pipe(
    z.url({ protocol: /^https?$/, error: 'expected an http(s) URL' }).optional(),
  ),
  CONTENT_API_KEY: optionalString,
  CONTENT_PROVIDER: z
    .string()
    .regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'expected a lower-case path segment such as "content"')
    .default('content'),
  /**
   * The kinds of content the sync endpoint accepts besides `blog` (which it always serves): anything
   * else a caller names is refused, so that nobody can store copies of an article under invented kinds.
   */
  CONTENT_KINDS: z
    .string()
    .default(DEFAULT_KIND)
    .transform((v) => [...new Set([DEFAULT_KIND, ...v.split(',').map((k) => k.trim())])].filter(Boolean))
    .refine((kinds) => kinds.every((k) => KIND_PATTERN.test(k)), {
      error:
        'expected a comma-separated list of kinds, each 1-32 of a-z, 0-9, "-" or "_", starting with a letter',
    }),
  CRON_SECRET: optionalString,
  /** Per request to the content API; each of up to three attempts gets this long. */
  CONTENT_API_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
  SITE_URL: z
    .url({ protocol: /^https?$/, error: 'expected an http(s) URL' })
    .default('http://localhost:3000'),
  METRICS_TOKEN: optionalString,
  BOOTSTRAP_RATE_LIMIT: z.coerce.number().int().positive().default(10),
  SYNC_RATE_LIMIT: z.coerce.number().int().positive().default(60),
  /**
   * Whose X-Forwarded-For to believe for the client address (rate limits): unset or `false` trusts
   * nobody, `true` every hop, a number that many hops, otherwise a comma-separated list of proxy
   * addresses or CIDRs. Trusting a client-supplied header lets anyone dodge per-address limits.
   */
  TRUST_PROXY: optionalString.transform((v): boolean | number | string => {
    if (v === undefined || v === 'false') return false;
    if (v === 'true') return true;
    return /^\d+$/.test(v) ? Number(v) : v;
  }),
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
  /**
   * How long a request waits for a database connection (a new one, or a pooled one coming free) before
   * it answers 503: while the database is down, clients hear so within this bound instead of hanging.
   */
  DB_CONNECT_TIMEOUT_MS: z.coerce.number().int().positive().default(3_000),
  /**
   * PostgreSQL's statement_timeout for the service's connections: a statement waiting on a lock or
   * running longer is cancelled and the request answers 503. 0 leaves statements unbounded. Migrations
   * run on a connection of their own without it; operator commands (stk admin) do not set it.
   */
  DB_STATEMENT_TIMEOUT_MS: z.coerce.number().int().nonnegative().default(15_000),
  /**
   * Connections kept apart for background work: the projections' batches and the work queue's claims
   * and settlements. Sharing the requests' pool, they queued behind every request under load, and every
   * write waiting on a read model (read-your-writes) waited on that queue too.
   */
  DB_BACKGROUND_POOL_SIZE: z.coerce.number().int().min(2).max(100).default(10),
  /**
   * How long an Idempotency-Key claim whose request never answered (its process died) holds the key: a
   * retry before then hears 409 idempotency_key_in_use, one after it takes the claim over.
   */
  IDEMPOTENCY_LEASE_SECONDS: z.coerce.number().int().positive().default(120),
  /**
   * The most eligible rows a column run's start lists in its start event (and reads into memory). A run
   * over more selects its rows as it goes, a step at a time, so that a start over a million rows
   * answers at once and no process holds its rows (docs/runs.md).
   */
  RUN_LISTED_ROWS: z.coerce.number().int().positive().default(10_000),
  /**
   * How long a request's headers and body together may take to arrive; past it the client gets a 408
   * and the connection closes. Without it, a body shorter than its Content-Length held a connection
   * open for ever. It does not bound the handler: a full sync may run for minutes.
   */
  REQUEST_TIMEOUT_MS: z.coerce.number().int().positive().default(30_000),
  /** How long an idle keep-alive connection stays open; above the 60 s idle timeout of common load balancers. */
  KEEP_ALIVE_TIMEOUT_MS: z.coerce.number().int().positive().default(72_000),
  /**
   * Lets http_request columns and webhooks call loopback, private and link-local addresses. Off, the
   * SSRF guard refuses them after DNS resolution and on every redirect (cloud metadata addresses stay
   * refused either way). Tests and on-premises installs that call their own network turn it on.
   */
  ALLOW_PRIVATE_NETWORK_TARGETS: z
    .enum(['true', 'false'], { error: 'expected true or false' })
    .default('false')
    .transform((v) => v === 'true'),
  /** Outbound requests a second this process sends to one host (column runs, webhooks); bursts as large. */
  OUTBOUND_RATE_PER_HOST: z.coerce.number().positive().default(10),
  /**
   * The OpenAI-compatible chat completions API of llm columns. Neither URL nor key set: llm cells fail
   * with provider_unavailable (and cost nothing). A URL without a key serves local models.
   */
  LLM_BASE_URL: optionalString.pipe(
    z.url({ protocol: /^https?$/, error: 'expected an http(s) URL' }).optional(),
  ),
  LLM_API_KEY: optionalString,
  /**
   * The SMTP server task emails go out through (smtp:// or smtps://, credentials in the URL). Unset:
   * scheduling an email answers 409 provider_unavailable (the tasks contract).
   */
  SMTP_URL: optionalString.pipe(
    z.url({ protocol: /^smtps?$/, error: 'expected an smtp:// or smtps:// URL' }).optional(),
  ),
  /**
   * The search and LinkedIn data providers (docs/search-and-linkedin.md). Each is an operator's choice,
   * so its URL is trusted like LLM_BASE_URL: it may be on the private network (the SSRF guard still
   * refuses cloud metadata addresses). Unset: its routes answer 503 provider_unavailable naming it.
   */
  SEARXNG_URL: optionalString.pipe(
    z.url({ protocol: /^https?$/, error: 'expected an http(s) URL' }).optional(),
  ),
  PEOPLE_DATA_URL: z
    .url({ protocol: /^https?$/, error: 'expected an http(s) URL' })
    .default('https://api.peopledatalabs.com'),
  PEOPLE_DATA_API_KEY: optionalString,
  LINKEDIN_DATA_URL: optionalString.pipe(
    z.url({ protocol: /^https?$/, error: 'expected an http(s) URL' }).optional(),
  ),
  LINKEDIN_DATA_API_KEY: optionalString,
  /** The connected LinkedIn account the provider acts as; unset: the first one it lists. */
  LINKEDIN_DATA_ACCOUNT_ID: optionalString,
  /** How long an organization's search answers are reused, free of credits. 0 turns the cache off. */
  SEARCH_CACHE_TTL_SECONDS: z.coerce.number().int().nonnegative().default(3600),
  /** Per attempt to a search or LinkedIn data provider. */
  SEARCH_PROVIDER_TIMEOUT_MS: z.coerce.number().int().positive().default(15_000),
  /** The model of each llmLane (an llm column's config.model overrides it). */
  LLM_MODEL_VERY_FAST: z.string().min(1).default('gpt-4.1-nano'),
  LLM_MODEL_FAST: z.string().min(1).default('gpt-4.1-mini'),
  LLM_MODEL_BALANCED: z.string().min(1).default('gpt-4.1'),
  LLM_MODEL_SMART: z.string().min(1).default('o3'),
  /** Per llm call, each of its up to three attempts. */
  LLM_TIMEOUT_MS: z.coerce.number().int().positive().default(60_000),
  /**
   * The master key that wraps the data keys of workspace secrets. Unset: the key file
   * `DATA_DIR/secrets-master.key`, generated on first use (docs/secrets-and-prompts.md).
   */
  SECRETS_MASTER_KEY: optionalString.pipe(
    z.string().trim().refine(isMasterKeyText, { error: MASTER_KEY_FORM }).optional(),
  ),
  /**
   * Master keys this process still unwraps data keys with but never wraps under: the old key while
   * `stk admin secrets rotate-master-key` moves every data key to SECRETS_MASTER_KEY. Comma-separated.
   */
  SECRETS_PREVIOUS_MASTER_KEYS: optionalString.transform((v, ctx) => {
    const keys = (v ?? '')
      .split(',')
      .map((k) => k.trim())
      .filter((k) => k !== '');
    if (keys.some((k) => !isMasterKeyText(k))) ctx.addIssue({ code: 'custom', message: MASTER_KEY_FORM });
    return keys;
  }),
  /** Days a webhook delivery's history is kept after its last attempt (docs/webhooks.md). */
  WEBHOOK_HISTORY_DAYS: z.coerce.number().int().positive().default(30),
  /**
   * Seconds before each webhook delivery attempt, comma-separated: the first attempt's delay, then
   * the wait after each failure (docs/webhooks.md). Unset: the Standard Webhooks schedule.
   */
  WEBHOOK_RETRY_SCHEDULE: optionalString.transform((v, ctx) => {
    if (v === undefined) return [...DEFAULT_RETRY_SCHEDULE];
    const schedule = parseRetrySchedule(v);
    if (typeof schedule === 'string') ctx.addIssue({ code: 'custom', message: schedule });
    return typeof schedule === 'string' ? [] : schedule;
  }),
});

export type Config = z.infer<typeof configSchema>;

/**
 * The Standard Webhooks schedule: at once, then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h after
 * each failure (the webhooks worker reads it from here, as WEBHOOK_RETRY_SCHEDULE's default).
 */
export const DEFAULT_RETRY_SCHEDULE: readonly number[] = [0, 5, 300, 1800, 7200, 18000, 36000, 36000];

/** The schedule from its text, or an error message (for the configuration). */
export function parseRetrySchedule(text: string): number[] | string {
  const parts = text.split(',').map((p) => p.trim());
  if (parts.length === 0 || parts.some((p) => !/^\d+(\.\d+)?$/.test(p))) {
    return 'expected comma-separated seconds, such as 0,5,300';
  }
  return parts.map(Number);
}

export class ConfigError extends Error {
  constructor(readonly issues: string[]) {
    super(`Invalid configuration:\n${issues.map((i) => `  - ${i}`).join('\n')}`);
  }
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // A blank variable counts as unset: `PORT=` must mean the default port, not port 0.
  const given = Object.fromEntries(Object.entries(env).filter(([, v]) => v === undefined || v.trim() !== ''));
  const result = configSchema.safeParse(given);
  if (result.success) return result.data;
  throw new ConfigError(
    result.error.issues.map((issue) => {
      const name = issue.path.join('.');
      // Secrets are never echoed, nor URLs: they may carry a user:password.
      const shown =
        name in given && !/SECRET|KEY|TOKEN|PASSWORD|_URL$/.test(name) ? ` (got "${given[name]}")` : '';
      return `${name}: ${issue.message}${shown}`;
    }),
  );
}
