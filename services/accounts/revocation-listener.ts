import pg from 'pg';
import { API_KEY_REVOKED_CHANNEL } from '../../projections/accounts/api-keys.ts';
import type { VerifiedKeyCache } from '../../src/auth/key-cache.ts';
import { backoffMs } from '../../src/db/backoff.ts';
import type { Pool } from '../../src/db/pool.ts';

/**
 * Keeps a process's key cache honest when another process revokes a key. The api_keys projection
 * sends `NOTIFY api_key_revoked, <key id>` inside the transaction that marks the key revoked, so every
 * listening process hears of it the moment the revocation becomes visible. The cache serves only
 * while this LISTEN connection is up: when it drops, the cache is switched off (every request reads
 * the database again) until the connection is back, so a notice missed meanwhile cannot leave a
 * revoked key accepted.
 *
 * The connection is closed when the pool is ended (service shutdown, test teardown).
 */
export class RevocationListener {
  private client?: pg.Client;
  private stopped = false;
  private attempt = 0;
  private readonly watch: NodeJS.Timeout;

  constructor(
    private readonly pool: Pool,
    private readonly cache: VerifiedKeyCache,
  ) {
    this.watch = setInterval(() => {
      if (this.pool.ending || this.pool.ended) this.stop();
    }, 500);
    this.watch.unref();
    void this.connect();
  }

  stop(): void {
    this.stopped = true;
    clearInterval(this.watch);
    this.cache.setEnabled(false);
    const client = this.client;
    this.client = undefined;
    void client?.end().catch(() => {});
  }

  private async connect(): Promise<void> {
    if (this.stopped || this.pool.ending || this.pool.ended) return this.stop();
    const client = new pg.Client(this.pool.options);
    client.on('error', () => {}); // 'end' follows; reconnecting happens there
    client.on('notification', (message) => {
      if (message.channel === API_KEY_REVOKED_CHANNEL && message.payload)
        this.cache.invalidate(message.payload);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${API_KEY_REVOKED_CHANNEL}`);
    } catch {
      await client.end().catch(() => {});
      return this.retry();
    }
    if (this.stopped) {
      await client.end().catch(() => {});
      return;
    }
    client.once('end', () => {
      if (this.client !== client) return;
      this.client = undefined;
      this.cache.setEnabled(false);
      this.retry();
    });
    this.client = client;
    this.attempt = 0;
    this.cache.setEnabled(true);
  }

  private retry(): void {
    if (this.stopped) return;
    const delay = backoffMs(this.attempt++);
    setTimeout(() => void this.connect(), delay).unref();
  }
}
