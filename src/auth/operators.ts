import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { inTransaction, type Pool, type PoolClient } from '../db/pool.ts';
import { hashSecret, secretMatches } from './keys.ts';

/**
 * Operators of the console (/admin) and their sessions (migration 0030). A credential looks like
 * `stko_{operatorId}.{secret}`: another prefix than an API key's (`stk_`), so neither ever parses as the
 * other. It is issued by `stk admin operators issue` only, shown once and kept as its SHA-256 (as an API
 * key's secret: 256 random bits cannot be guessed from their hash), compared in constant time. Signing
 * in exchanges it for a session: a random token in an HttpOnly cookie, kept as its SHA-256 too, with a
 * CSRF token of its own and an end.
 */
const ID_BYTES = 10;
const SECRET_BYTES = 32;
const CREDENTIAL = /^stko_([0-9a-f]{20})\.([A-Za-z0-9_-]{43})$/;
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

/** How long a session lasts from sign-in; no sliding renewal: a stolen cookie dies with it. */
export const SESSION_HOURS = 8;
export const SESSION_COOKIE = 'stk_console';

export interface Operator {
  id: string;
  name: string;
}

/** An operator signed in: who, and the CSRF token their state-changing requests must send back. */
export interface OperatorSession extends Operator {
  csrfToken: string;
  expiresAt: Date;
}

export interface OperatorListing extends Operator {
  issuedBy: string;
  createdAt: Date;
  lastSignIn: Date | null;
  revokedAt: Date | null;
}

/** Names people and tools use in audit trails: letters, digits, `.`, `_`, `-`, `@`, 1 to 64. */
export const OPERATOR_NAME = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/;

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** Equal strings, in time that does not depend on where they differ. */
export function sameToken(a: string, b: string): boolean {
  const [x, y] = [createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest()];
  return timingSafeEqual(x, y);
}

export const randomToken = () => randomBytes(SECRET_BYTES).toString('base64url');

type Db = Pool | PoolClient;

export const operators = {
  /**
   * A new credential for `name` (revoking the one it had, if any). The only place one is made: the
   * HTTP API has no route for it.
   */
  async issue(
    pool: Pool,
    name: string,
    issuedBy: string,
  ): Promise<{ operator: Operator; credential: string }> {
    if (!OPERATOR_NAME.test(name))
      throw new Error(
        'an operator name is 1 to 64 letters, digits, ".", "_", "-" or "@", first a letter or digit',
      );
    const id = randomBytes(ID_BYTES).toString('hex');
    const secret = randomToken();
    await inTransaction(pool, async (tx) => {
      await tx.query('UPDATE operators SET revoked_at = now() WHERE name = $1 AND revoked_at IS NULL', [
        name,
      ]);
      await tx.query('INSERT INTO operators (id, name, secret_hash, issued_by) VALUES ($1, $2, $3, $4)', [
        id,
        name,
        hashSecret(secret),
        issuedBy,
      ]);
    });
    return { operator: { id, name }, credential: `stko_${id}.${secret}` };
  },

  /** Revokes the live credential of `name` and ends its sessions; false when it had none. */
  async revoke(db: Db, name: string): Promise<boolean> {
    const { rows } = await db.query<{ id: string }>(
      'UPDATE operators SET revoked_at = now() WHERE name = $1 AND revoked_at IS NULL RETURNING id',
      [name],
    );
    if (rows.length === 0) return false;
    await db.query('DELETE FROM operator_sessions WHERE operator_id = $1', [rows[0]!.id]);
    return true;
  },

  async list(db: Db): Promise<OperatorListing[]> {
    const { rows } = await db.query<{
      id: string;
      name: string;
      issued_by: string;
      created_at: Date;
      last_sign_in: Date | null;
      revoked_at: Date | null;
    }>(
      'SELECT id, name, issued_by, created_at, last_sign_in, revoked_at FROM operators ORDER BY name, created_at',
    );
    return rows.map((r) => ({
      id: r.id,
      name: r.name,
      issuedBy: r.issued_by,
      createdAt: r.created_at,
      lastSignIn: r.last_sign_in,
      revokedAt: r.revoked_at,
    }));
  },

  /**
   * A credential for a session: the operator and a new session token (for the cookie), or undefined
   * for a malformed, unknown or revoked credential (one answer for all three).
   */
  async signIn(
    db: Db,
    credential: string,
    now: Date = new Date(),
  ): Promise<{ session: OperatorSession; token: string } | undefined> {
    const match = CREDENTIAL.exec(credential.trim());
    if (!match) return undefined;
    const [, id, secret] = match as unknown as [string, string, string];
    const { rows } = await db.query<{ name: string; secret_hash: string }>(
      'SELECT name, secret_hash FROM operators WHERE id = $1 AND revoked_at IS NULL',
      [id],
    );
    const row = rows[0];
    if (!row || !secretMatches(secret, row.secret_hash)) return undefined;
    const token = randomToken();
    const csrfToken = randomToken();
    const expiresAt = new Date(now.getTime() + SESSION_HOURS * 3_600_000);
    await db.query(
      'INSERT INTO operator_sessions (token_hash, operator_id, csrf_token, expires_at) VALUES ($1, $2, $3, $4)',
      [sha256(token), id, csrfToken, expiresAt],
    );
    await db.query('UPDATE operators SET last_sign_in = $2 WHERE id = $1', [id, now]);
    // Ended sessions go as new ones come: the table stays the size of the live ones.
    await db.query('DELETE FROM operator_sessions WHERE expires_at < $1', [now]);
    return { session: { id, name: row.name, csrfToken, expiresAt }, token };
  },

  /** The live session a cookie's token names, or undefined (malformed, unknown, ended, revoked). */
  async session(db: Db, token: string, now: Date = new Date()): Promise<OperatorSession | undefined> {
    if (!TOKEN.test(token)) return undefined;
    const { rows } = await db.query<{ id: string; name: string; csrf_token: string; expires_at: Date }>(
      `SELECT o.id, o.name, s.csrf_token, s.expires_at FROM operator_sessions s
       JOIN operators o ON o.id = s.operator_id
       WHERE s.token_hash = $1 AND s.expires_at > $2 AND o.revoked_at IS NULL`,
      [sha256(token), now],
    );
    const row = rows[0];
    return row && { id: row.id, name: row.name, csrfToken: row.csrf_token, expiresAt: row.expires_at };
  },

  async signOut(db: Db, token: string): Promise<void> {
    if (TOKEN.test(token))
      await db.query('DELETE FROM operator_sessions WHERE token_hash = $1', [sha256(token)]);
  },
};

/** The value of one cookie of a `Cookie` header, or undefined. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/**
 * A `Set-Cookie` value for the console: HttpOnly, SameSite=Strict, scoped to /admin, Secure when the
 * request came over HTTPS (as the trusted proxy says), ending with `maxAgeSeconds` (0: delete it).
 */
export function consoleCookie(name: string, value: string, maxAgeSeconds: number, secure: boolean): string {
  return [
    `${name}=${value}`,
    'Path=/admin',
    `Max-Age=${maxAgeSeconds}`,
    'HttpOnly',
    'SameSite=Strict',
    ...(secure ? ['Secure'] : []),
  ].join('; ');
}
