import type { FastifyReply, FastifyRequest } from 'fastify';

export const secretPath = (name: string) => `/api/secrets/${encodeURIComponent(name)}`;

/**
 * Every answer of the secrets routes, errors included, tells caches to keep nothing: even masked,
 * what a secret is called and when it changed is nobody else's to see.
 */
export async function noStore(_request: FastifyRequest, reply: FastifyReply): Promise<void> {
  reply.header('cache-control', 'no-store');
}
