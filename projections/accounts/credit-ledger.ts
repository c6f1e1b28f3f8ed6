import type { OrganizationEvent } from '../../src/domain/accounts/events.ts';
import type { Projection } from '../../src/projection/types.ts';
import { balanceChange } from './organizations.ts';

export const CREDIT_LEDGER = 'credit_ledger';

export const LEDGER_KINDS = ['grant', 'reservation', 'charge', 'refund', 'withdrawal'] as const;

type CreditEvent = Exclude<OrganizationEvent, { type: 'OrganizationCreated' }>;

const kindOf: Record<CreditEvent['type'], (typeof LEDGER_KINDS)[number]> = {
  CreditsGranted: 'grant',
  CreditsReserved: 'reservation',
  CreditsCharged: 'charge',
  CreditsRefunded: 'refund',
  OrganizationAbandoned: 'withdrawal',
};

/**
 * Every movement of an organization's credits, with the balance after it (`GET /api/credits/ledger`).
 * One row per event of the organization stream, keyed by its revision: the balance after is the
 * previous entry's plus this change, so entries are folded in stream order (the log's order keeps it).
 * A charge moves nothing (its credits were reserved already): it says what the run's rows cost.
 */
export const creditLedgerProjection: Projection<CreditEvent> = {
  name: 'credit-ledger',
  version: 1,
  handles: [
    'CreditsGranted',
    'CreditsReserved',
    'CreditsCharged',
    'CreditsRefunded',
    'OrganizationAbandoned',
  ],
  tables: {
    [CREDIT_LEDGER]: (t) => [
      `CREATE TABLE ${t} (
        organization_id text NOT NULL,
        revision        bigint NOT NULL,
        kind            text NOT NULL,
        amount          integer NOT NULL,
        balance_after   integer NOT NULL,
        run_id          text,
        reason          text,
        at              timestamptz NOT NULL,
        PRIMARY KEY (organization_id, revision)
      )`,
    ],
  },
  async apply(events, { tx, table }) {
    const t = table(CREDIT_LEDGER);
    const organizations = [...new Set(events.map((e) => e.data.organizationId))];
    const { rows } = await tx.query<{ organization_id: string; balance_after: number; revision: string }>(
      `SELECT DISTINCT ON (organization_id) organization_id, balance_after, revision FROM ${t}
       WHERE organization_id = ANY($1::text[]) ORDER BY organization_id, revision DESC`,
      [organizations],
    );
    const last = new Map(
      rows.map((r) => [r.organization_id, { balance: r.balance_after, revision: BigInt(r.revision) }]),
    );
    const entries: object[] = [];
    for (const event of events) {
      const { organizationId } = event.data;
      const before = last.get(organizationId) ?? { balance: 0, revision: -1n };
      if (event.revision <= before.revision) continue; // applied already
      const abandoned = event.type === 'OrganizationAbandoned';
      const balance = abandoned ? 0 : before.balance + balanceChange(event);
      last.set(organizationId, { balance, revision: event.revision });
      entries.push({
        organization_id: organizationId,
        revision: String(event.revision),
        kind: kindOf[event.type],
        amount: abandoned ? event.data.creditsWithdrawn : event.data.amount,
        balance_after: balance,
        run_id: 'runId' in event.data ? event.data.runId : null,
        reason: event.type === 'CreditsGranted' ? event.data.reason : null,
        at: event.recordedAt.toISOString(),
      });
    }
    if (entries.length === 0) return;
    await tx.query(
      `INSERT INTO ${t} (organization_id, revision, kind, amount, balance_after, run_id, reason, at)
       SELECT * FROM json_to_recordset($1::json) AS r(organization_id text, revision bigint, kind text,
         amount integer, balance_after integer, run_id text, reason text, at timestamptz)
       ON CONFLICT DO NOTHING`,
      [JSON.stringify(entries)],
    );
  },
};
