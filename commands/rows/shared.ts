import type { CommandResult } from '../../src/command.ts';
import type { BatchCommandOutcome } from '../../src/command-batch.ts';
import { comparePositions, type Position } from '../../src/event-store/port.ts';

/** A batch of 1,000 rows with long texts outgrows the 1 MiB every other route takes. */
export const ROWS_BODY_LIMIT = 16 * 1024 * 1024;

/**
 * Rows are built by typed functions and can be a thousand to an answer: re-checking each against the
 * response schema on the way out buys nothing. The schema still types the handler and the document.
 */
export const serializeAsIs = () => (data: unknown) => JSON.stringify(data);

export const rowPath = (tableId: string, rowId: string) => `/api/tables/${tableId}/rows/${rowId}`;

/** The results of a batch whose every item must land: the first failure is the request's. */
export function firstFailure<S, E>(outcomes: readonly BatchCommandOutcome<S, E>[]): CommandResult<S, E>[] {
  return outcomes.map((outcome) => {
    if (!outcome.ok) throw outcome.error;
    return outcome.result;
  });
}

/** The newest of the positions a request appended at: read models that pass it show all it wrote. */
export function newest(positions: readonly (Position | undefined)[]): Position | undefined {
  let last: Position | undefined;
  for (const p of positions) if (p && (!last || comparePositions(p, last) > 0)) last = p;
  return last;
}
