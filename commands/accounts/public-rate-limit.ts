import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { AppError } from '../../src/errors.ts';
import type { ZodApp } from '../../src/http/routes.ts';

/**
 * Registers public routes whose `config.rateLimit` limits them per client address, past which they
 * answer a 429 `rate_limited` problem with `Retry-After`. The rate-limit plugin is registered inside an
 * encapsulated context of its own, so other features can register it too; `register` gets that
 * context, whose `createRateLimit` makes further limits (per account, say) with the same store.
 */
export async function publicRateLimited(
  root: ZodApp,
  what: string,
  register: (app: ZodApp, scoped: FastifyInstance) => void | Promise<void>,
): Promise<void> {
  await root.register(async (scoped) => {
    await scoped.register(rateLimit, {
      global: false,
      errorResponseBuilder: (_request, context) =>
        new AppError('rate_limited', `Too many ${what} requests; retry in ${context.after}.`),
    });
    await register(scoped.withTypeProvider<ZodTypeProvider>(), scoped);
  });
}
