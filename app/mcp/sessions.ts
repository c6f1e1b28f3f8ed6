import { randomBytes } from 'node:crypto';
import type { Pool } from '../../src/db/pool.ts';

/**
 * MCP sessions (the Mcp-Session-Id of Streamable HTTP), kept in PostgreSQL (`mcp_sessions`) so that
 * any process of the service serves any session: the service stays stateless behind its load
 * balancer. A session belongs to the API key that opened it; another key naming it finds nothing.
 * A process remembers a session it has seen for a few seconds, so a busy session costs no query per
 * message; an end in another process is seen here within that time.
 */
export interface McpSession {
  id: string;
  keyId: string;
  organizationId: string;
  protocolVersion: string;
}

/** A session unused this long is gone (404: the client opens a new one). */
const IDLE_LIMIT = "interval '24 hours'";
const REMEMBER_MS = 5_000;
/** How often a session in use has its last use recorded (not on every message). */
const TOUCH_MS = 5 * 60_000;
const SWEEP_MS = 60 * 60_000;

export class SessionStore {
  private readonly seen = new Map<string, { session: McpSession; at: number; touched: number }>();
  private lastSweep = 0;

  constructor(private readonly pool: Pool) {}

  async open(keyId: string, organizationId: string, protocolVersion: string): Promise<McpSession> {
    const session = {
      id: `mcp_${randomBytes(24).toString('base64url')}`,
      keyId,
      organizationId,
      protocolVersion,
    };
    await this.pool.query(
      'INSERT INTO mcp_sessions (session_id, key_id, organization_id, protocol_version) VALUES ($1, $2, $3, $4)',
      [session.id, keyId, organizationId, protocolVersion],
    );
    const now = Date.now();
    this.seen.set(session.id, { session, at: now, touched: now });
    if (now - this.lastSweep > SWEEP_MS) {
      this.lastSweep = now;
      await this.pool.query(`DELETE FROM mcp_sessions WHERE last_used_at < now() - interval '7 days'`);
    }
    return session;
  }

  /** The live session of this id opened by this key, if there is one. */
  async find(id: string, keyId: string): Promise<McpSession | undefined> {
    const now = Date.now();
    const known = this.seen.get(id);
    if (known && now - known.at < REMEMBER_MS) {
      if (now - known.touched > TOUCH_MS) {
        known.touched = now;
        await this.pool.query('UPDATE mcp_sessions SET last_used_at = now() WHERE session_id = $1', [id]);
      }
      return known.session.keyId === keyId ? known.session : undefined;
    }
    const { rows } = await this.pool.query<{
      key_id: string;
      organization_id: string;
      protocol_version: string;
    }>(
      `UPDATE mcp_sessions SET last_used_at = now()
       WHERE session_id = $1 AND ended_at IS NULL AND last_used_at > now() - ${IDLE_LIMIT}
       RETURNING key_id, organization_id, protocol_version`,
      [id],
    );
    const row = rows[0];
    if (!row) {
      this.seen.delete(id);
      return undefined;
    }
    const session = {
      id,
      keyId: row.key_id,
      organizationId: row.organization_id,
      protocolVersion: row.protocol_version,
    };
    this.seen.set(id, { session, at: now, touched: now });
    return session.keyId === keyId ? session : undefined;
  }

  async end(id: string): Promise<void> {
    this.seen.delete(id);
    await this.pool.query('UPDATE mcp_sessions SET ended_at = now() WHERE session_id = $1', [id]);
  }
}
