import type { ExpectedRevision } from './port.ts';

export type ActualRevision = bigint | 'no_stream';

/** The stream was not at the revision the caller expected: someone else wrote first. */
export class WrongExpectedRevisionError extends Error {
  override readonly name = 'WrongExpectedRevisionError';
  constructor(
    readonly stream: string,
    readonly expected: ExpectedRevision,
    readonly actual: ActualRevision,
  ) {
    super(`Stream "${stream}" expected at ${String(expected)} but is at ${String(actual)}`);
  }
}

/** An event's data does not satisfy its registered schema; nothing was written. */
export class InvalidEventError extends Error {
  override readonly name = 'InvalidEventError';
  constructor(
    readonly eventType: string,
    readonly issues: { path: string; message: string }[],
  ) {
    super(
      `Event ${eventType} is invalid: ${issues.map((i) => `${i.path || '(root)'}: ${i.message}`).join('; ')}`,
    );
  }
}

/** Some but not all of the given event ids were already written, or to another stream. */
export class IdempotencyConflictError extends Error {
  override readonly name = 'IdempotencyConflictError';
  constructor(
    readonly stream: string,
    readonly eventIds: string[],
  ) {
    super(`Events ${eventIds.join(', ')} were already appended, but not as this exact batch to "${stream}"`);
  }
}
