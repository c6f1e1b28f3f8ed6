import {
  initialSenderState,
  type SenderAccountState,
  senderAccountStream,
} from '../../src/domain/sequences/streams.ts';
import { singleStreamProjection } from '../../src/projection/single-stream.ts';

export const SENDER_ACCOUNTS = 'sender_accounts';

export interface StoredSender {
  id: string;
  organization_id: string;
  type: 'email' | 'linkedin';
  address: string;
  user_id: string;
  daily_limit: number;
  created_at: string;
}

/** Live sender accounts by organization (listing) and by owner (an assignee's defaults). */
export const senderAccountsProjection = singleStreamProjection({
  name: 'sender-accounts',
  version: 1,
  stream: senderAccountStream,
  handles: ['SenderAccountAdded', 'SenderAccountDeleted'],
  idOf: (event) => event.data.senderAccountId,
  table: {
    name: SENDER_ACCOUNTS,
    key: 'id',
    columns: {
      id: 'text',
      organization_id: 'text',
      type: 'text',
      address: 'text',
      user_id: 'text',
      daily_limit: 'integer',
      created_at: 'text',
    },
    indexes: (t) => [
      `CREATE INDEX ${t}_by_organization ON ${t} (organization_id, created_at, id)`,
      `CREATE INDEX ${t}_by_user ON ${t} (organization_id, user_id, type, created_at)`,
    ],
  },
  toRow: (s: SenderAccountState): StoredSender | undefined =>
    s.status === 'live'
      ? {
          id: s.id,
          organization_id: s.organizationId,
          type: s.type,
          address: s.address,
          user_id: s.userId,
          daily_limit: s.dailyLimit,
          created_at: s.createdAt,
        }
      : undefined,
  fromRow: (row: StoredSender): SenderAccountState => ({
    ...initialSenderState(),
    status: 'live',
    id: row.id,
    organizationId: row.organization_id,
    type: row.type,
    address: row.address,
    userId: row.user_id,
    dailyLimit: row.daily_limit,
    createdAt: row.created_at,
  }),
});

export const senderFromRow = (row: StoredSender) => ({
  id: row.id,
  type: row.type,
  address: row.address,
  userId: row.user_id,
  dailyLimit: row.daily_limit,
  createdAt: row.created_at,
});
