import { z } from 'zod';
import { senderAccountsProjection } from '../../projections/sequences/sender-accounts.ts';
import { isMemberOf } from '../../services/accounts/members.ts';
import { loadSenderForWrite } from '../../services/sequences/load.ts';
import { addSenderAccount } from '../../services/sequences/senders.ts';
import { handleCommand } from '../../src/command.ts';
import { normaliseEmail } from '../../src/domain/leads/normalise.ts';
import {
  badReference,
  newSenderAccountId,
  senderAccountPath,
  senderView,
} from '../../src/domain/sequences/access.ts';
import type { SenderAccountEvent } from '../../src/domain/sequences/events.ts';
import {
  CreateSenderAccountBody,
  SenderAccountParams,
  SenderAccountSchema,
} from '../../src/domain/sequences/schemas.ts';
import { senderAccountStream } from '../../src/domain/sequences/streams.ts';
import { principalOf } from '../../src/http/access-hook.ts';
import { eventMetadata, readYourWrites } from '../../src/http/commands.ts';
import type { RouteModule } from '../../src/http/routes.ts';

const deleteSender = senderAccountStream.decider((_: object, state, now): SenderAccountEvent[] =>
  state.status === 'live'
    ? [{ type: 'SenderAccountDeleted', data: { senderAccountId: state.id, at: now.toISOString() } }]
    : [],
);

/** POST /api/sender-accounts: an account of a member of the organization; an email one needs an address. */
export const createSenderRoute: RouteModule = (app, deps) => {
  app.post(
    '/api/sender-accounts',
    {
      config: { access: 'sequences:write' },
      schema: {
        operationId: 'addSenderAccount',
        tags: ['sequences'],
        summary: 'Add a sender account (email or LinkedIn) of a member',
        body: CreateSenderAccountBody,
        response: { 201: SenderAccountSchema },
      },
    },
    async (request, reply) => {
      const { organizationId } = principalOf(request);
      const { type, userId, dailyLimit } = request.body;
      let { address } = request.body;
      if (!(await isMemberOf(deps.store, organizationId, userId)))
        throw badReference('userId', `no user ${userId} in this organization`);
      if (type === 'email') {
        const email = normaliseEmail(address);
        if (!email) throw badReference('address', 'not an email address');
        address = email;
      }
      const senderAccountId = newSenderAccountId();
      const result = await addSenderAccount(
        deps,
        { senderAccountId, organizationId, type, address, userId, dailyLimit },
        eventMetadata(request),
      );
      await readYourWrites(deps, result.appended?.position, [senderAccountsProjection]);
      return reply
        .code(201)
        .header('location', senderAccountPath(senderAccountId))
        .send(senderView(result.state));
    },
  );
};

export const deleteSenderRoute: RouteModule = (app, deps) => {
  app.delete(
    '/api/sender-accounts/:senderAccountId',
    {
      config: { access: 'sequences:write' },
      schema: {
        operationId: 'deleteSenderAccount',
        tags: ['sequences'],
        summary: 'Delete a sender account',
        params: SenderAccountParams,
        response: { 204: z.null() },
      },
    },
    async (request, reply) => {
      const { senderAccountId } = request.params;
      const loaded = await loadSenderForWrite(deps.store, senderAccountId, principalOf(request));
      const result = await handleCommand({
        store: deps.store,
        stream: senderAccountStream.name(senderAccountId),
        decider: deleteSender,
        command: {},
        metadata: eventMetadata(request),
        now: deps.clock(),
        loaded,
      });
      await readYourWrites(deps, result.appended?.position, [senderAccountsProjection]);
      return reply.code(204).send(null);
    },
  );
};
