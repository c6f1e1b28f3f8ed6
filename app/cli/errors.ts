/** A failure to report and exit 1 with (an API problem, a network error). */
export class CliError extends Error {}

/** The command line itself is wrong: exit 2. */
export class UsageError extends Error {}

/**
 * A watched run ended other than `succeeded`: its message is reported and the process exits with
 * the run's own code (run-watch.ts, RUN_EXIT_CODES), so a script can tell a failed run from a
 * failed command.
 */
export class RunEndedError extends CliError {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}
