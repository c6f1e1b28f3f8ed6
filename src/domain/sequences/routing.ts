import type { RoutingState } from './streams.ts';
import { routingStream } from './streams.ts';

export interface Route {
  assigneeUserId: string;
  weight?: number;
}

/**
 * The assignee of the next lead, by Balinski and Young's quota method: among the assignees whose count
 * would not pass the upper quota of their share of n+1 leads (⌈(n+1)·wᵢ/W⌉), the one with the largest
 * wᵢ/(countᵢ+1) (ties: the first in the plan). Their theorem: every count then stays between the floor
 * and the ceiling of its share at every n, so within one of it (test/unit/sequences/routing.test.ts
 * checks it for random weights). round_robin is all weights 1.
 */
export function nextAssignee(plan: readonly Route[], counts: ReadonlyMap<string, number>): string {
  const weight = (r: Route) => r.weight ?? 1;
  const total = plan.reduce((sum, r) => sum + weight(r), 0);
  const n = plan.reduce((sum, r) => sum + (counts.get(r.assigneeUserId) ?? 0), 0);
  const count = (r: Route) => counts.get(r.assigneeUserId) ?? 0;
  // A small tolerance: a share that is a whole number in exact arithmetic must not round up.
  const eligible = plan.filter((r) => count(r) + 1 <= Math.ceil(((n + 1) * weight(r)) / total - 1e-9));
  let best = eligible[0] ?? plan[0]!;
  for (const route of eligible) {
    if (weight(route) / (count(route) + 1) > weight(best) / (count(best) + 1) + 1e-12) best = route;
  }
  return best.assigneeUserId;
}

/**
 * Routes one lead on the column's routing stream. Appended with the revision read, so concurrent
 * routes are decided one after another on each other's counts; a lead routed before keeps its assignee.
 */
export const routeLead = routingStream.decider(
  (command: { leadId: string; plan: readonly Route[] }, state: RoutingState) =>
    state.routed.has(command.leadId)
      ? []
      : [
          {
            type: 'LeadRouted' as const,
            data: { leadId: command.leadId, assigneeUserId: nextAssignee(command.plan, state.counts) },
          },
        ],
);
