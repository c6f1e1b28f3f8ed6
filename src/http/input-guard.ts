import type { FastifyInstance, FastifyRequest } from 'fastify';
import { textProblem } from '../db/storable-text.ts';
import { AppError, type FieldError, formatPath, invalidDetail } from '../errors.ts';

/**
 * How deeply objects and arrays may nest in a request body. zod's parsers and our own walkers
 * recurse, so a body nested thousands of levels deep overflowed the stack (a 500) or was stored and
 * then broke every later edit. No input of this API needs more than a few levels.
 */
export const MAX_DEPTH = 64;

/**
 * JSON.parse reads `1e309` as Infinity, which JSON cannot write back: stored, it became null (a JSON
 * cell answered 201 with one value and showed another later). Refused wherever it is, as a number
 * column always refused it.
 */
const OUT_OF_RANGE = 'a number out of range (JSON numbers must be finite, at most about 1.8e308 in size)';

/** A problem body names this many offending strings at most; the first ones are enough to fix. */
const MAX_TEXT_ISSUES = 20;

/**
 * Arrays and plain objects: what JSON parsing yields, and the params and query objects (whose
 * prototype has no prototype of its own). A Buffer or stream body is not walked.
 */
function isData(value: unknown): value is object {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return Array.isArray(value) || proto === null || Object.getPrototypeOf(proto) === null;
}

interface Node {
  value: unknown;
  key?: string | number;
  parent?: Node;
  /** How many objects and arrays hold this value, itself included when it is one. */
  depth: number;
}

// A key is shown JSON-escaped: the raw NUL or surrogate would make the path itself unreadable.
const shownKey = (key: string | number) => (typeof key === 'number' ? key : JSON.stringify(key).slice(1, -1));

function pathOf(node: Node, prefix: readonly string[]): string {
  const keys: (string | number)[] = [];
  for (let at: Node | undefined = node; at?.key !== undefined; at = at.parent) keys.push(shownKey(at.key));
  return formatPath([...prefix, ...keys.reverse()]) || prefix[0] || 'body';
}

/**
 * The first problems of one parsed input (a body, the query, the path parameters): nesting past
 * MAX_DEPTH, a string or object key PostgreSQL cannot store, or a number JSON cannot write. Iterative,
 * with parent links rather than copied paths, so that neither depth nor size can exhaust the stack or
 * the memory.
 */
export function inputIssues(input: unknown, prefix: readonly string[] = []): FieldError[] {
  const issues: FieldError[] = [];
  const pending: Node[] = [{ value: input, depth: 0 }];
  while (pending.length > 0 && issues.length < MAX_TEXT_ISSUES) {
    const node = pending.pop() as Node;
    const { value } = node;
    if (typeof value === 'string') {
      const problem = textProblem(value);
      if (problem) issues.push({ path: pathOf(node, prefix), message: problem });
      continue;
    }
    if (typeof value === 'number') {
      if (!Number.isFinite(value)) issues.push({ path: pathOf(node, prefix), message: OUT_OF_RANGE });
      continue;
    }
    if (!isData(value)) continue;
    const depth = node.depth + 1;
    if (depth > MAX_DEPTH) {
      return [{ path: pathOf(node, prefix), message: `nested deeper than ${MAX_DEPTH} levels` }];
    }
    const children: Node[] = [];
    if (Array.isArray(value)) {
      for (let index = 0; index < value.length; index++)
        children.push({ value: value[index], key: index, parent: node, depth });
    } else {
      for (const [key, item] of Object.entries(value)) {
        const child: Node = { value: item, key, parent: node, depth };
        const problem = textProblem(key);
        if (problem) issues.push({ path: pathOf(child, prefix), message: `its key ${problem}` });
        children.push(child);
      }
    }
    // Reversed onto the stack, so that issues come out in the order of the document.
    for (let i = children.length - 1; i >= 0; i--) pending.push(children[i] as Node);
  }
  return issues;
}

/** Each part of a request as its problems name it (the prefixes fastify's validation uses). */
const parts = [
  ['params', (request: FastifyRequest) => request.params],
  ['querystring', (request: FastifyRequest) => request.query],
  ['body', (request: FastifyRequest) => request.body],
] as const;

/**
 * One rule at the edge for every route, present and future: after the body is parsed (by whatever
 * parser the route uses) and before validation or any handler, refuse what PostgreSQL cannot store,
 * numbers out of JSON's range and what would nest deeper than MAX_DEPTH. Registered on the root
 * instance, so it runs first.
 */
export function installInputGuard(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    for (const [part, read] of parts) {
      const issues = inputIssues(read(request), part === 'body' ? [] : [part]);
      if (issues.length === 0) continue;
      throw new AppError('validation_failed', invalidDetail(part, issues), { errors: issues });
    }
  });
}
