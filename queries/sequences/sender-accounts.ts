import {
  SENDER_ACCOUNTS,
  type StoredSender,
  senderFromRow,
} from '../../projections/sequences/sender-accounts.ts';
import { isSenderAccountId, readable, senderNotFound } from '../../src/domain/sequences/access.ts';
import { SenderAccountParams, SenderAccountSchema } from '../../src/domain/sequences/schemas.ts';
import { principalOf } from '../../src/http/access-hook.ts';
import { decodeCursor, isTimestamp, PageQuery, pageFrom, pageOf } from '../../src/http/pagination.ts';
import type { RouteModule } from '../../src/http/routes.ts';

export const listSendersRoute: RouteModule = (app, deps) => {
  app.get(
    '/api/sender-accounts',
    {
      config: { access: 'sequences:read' },
      schema: {
        operationId: 'listSenderAccounts',
        tags: ['sequences'],
        summary: 'List the sender accounts of the organization',
        querystring: PageQuery,
        response: { 200: pageOf(SenderAccountSchema) },
      },
    },
    async (request) => {
      const { limit, cursor } = request.query;
      const [at, id] = cursor ? decodeCursor(cursor, 2, ([t]) => isTimestamp(t!)) : [null, ''];
      const { rows } = await deps.pool.query<StoredSender>(
        `SELECT * FROM ${SENDER_ACCOUNTS}
         WHERE organization_id = $1 AND ($2::text IS NULL OR (created_at, id) > ($2::text, $3))
         ORDER BY created_at, id LIMIT $4`,
        [principalOf(request).organizationId, at, id, limit + 1],
      );
      return pageFrom(rows, limit, senderFromRow, (row) => [row.created_at, row.id]);
    },
  );
};

export const getSenderRoute: RouteModule = (app, deps) => {
  app.get(
    '/api/sender-accounts/:senderAccountId',
    {
      config: { access: 'sequences:read' },
      schema: {
        operationId: 'getSenderAccount',
        tags: ['sequences'],
        summary: 'Get a sender account',
        params: SenderAccountParams,
        response: { 200: SenderAccountSchema },
      },
    },
    async (request) => {
      const { senderAccountId: id } = request.params;
      const { rows } = isSenderAccountId(id)
        ? await deps.pool.query<StoredSender>(`SELECT * FROM ${SENDER_ACCOUNTS} WHERE id = $1`, [id])
        : { rows: [] };
      return senderFromRow(readable(rows[0], senderNotFound(id), principalOf(request), 'sender account'));
    },
  );
};
