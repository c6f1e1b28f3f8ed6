import type { FastifyRequest } from 'fastify';

/**
 * Who did it, as the audit trails name an operator: `<name>@console` in projection_audit (where
 * `stk admin` writes `--actor`, or `user@host`), `admin:<name>@console` as the actor of the events an
 * action appends (where `stk admin` writes `admin:<actor>`).
 */
export function consoleActor(request: FastifyRequest): string {
  if (!request.operator) throw new Error('consoleActor called on a route without an operator session');
  return `${request.operator.name}@console`;
}
