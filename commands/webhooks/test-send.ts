import { z } from 'zod';
import { attemptMessage } from '../../processes/webhooks/attempt.ts';
import { loadSubscription } from '../../services/webhooks/load.ts';
import { catalogueEntry, payloadOf } from '../../src/domain/webhooks/catalogue.ts';
import { sampleOf } from '../../src/domain/webhooks/sample.ts';
import { AttemptSchema, TestBody, WebhookParams } from '../../src/domain/webhooks/schemas.ts';
import { uuidOf } from '../../src/domain/webhooks/signing.ts';
import { attemptLogStream } from '../../src/domain/webhooks/subscription-state.ts';
import { principalOf } from '../../src/http/access-hook.ts';
import type { RouteModule } from '../../src/http/routes.ts';
import { randomId } from '../../src/ids.ts';

const TestOutcome = AttemptSchema.extend({ messageId: z.string() });

/**
 * POST /api/webhooks/{id}/test {eventType}: a sample message built from the catalogue's schema,
 * marked `test: true`, sent once now (whatever the subscription's status); answers how it went, and
 * the attempt joins the delivery history.
 */
export const testSendRoute: RouteModule = (app, deps) => {
  app.post(
    '/api/webhooks/:id/test',
    {
      config: { access: 'webhooks:write' },
      schema: {
        operationId: 'sendWebhookTest',
        tags: ['webhooks'],
        summary: 'Send a sample message now and answer the outcome',
        params: WebhookParams,
        body: TestBody,
        response: { 200: TestOutcome },
      },
    },
    async (request) => {
      const { state: sub } = await loadSubscription(deps.store, principalOf(request), request.params.id);
      const entry = catalogueEntry(request.body.eventType)!;
      const now = deps.clock();
      const data = sampleOf(z.toJSONSchema(entry.schema, { unrepresentable: 'any' }) as never, 'data', now);
      const messageId = randomId('msg');
      const eventAt = now.toISOString();
      const { record } = await attemptMessage(
        deps,
        sub,
        {
          subscriptionId: sub.id,
          organizationId: sub.organizationId,
          messageId,
          eventType: entry.type,
          eventAt,
          body: payloadOf(entry, data, eventAt, true),
          test: true,
        },
        1,
        [],
        AbortSignal.timeout(30_000),
      );
      await deps.store.append(attemptLogStream.name(sub.organizationId, sub.id), [
        {
          id: uuidOf(`test:${messageId}`),
          type: 'WebhookAttemptsRecorded',
          data: { subscriptionId: sub.id, organizationId: sub.organizationId, attempts: [record] },
        },
      ]);
      const {
        subscriptionId: _s,
        organizationId: _o,
        eventType: _e,
        eventAt: _a,
        test: _t,
        ...attempt
      } = record;
      return attempt;
    },
  );
};
