/** A failure to report and exit 1 with (an API problem, a network error). */
export class CliError extends Error {}

/** The command line itself is wrong: exit 2. */
export class UsageError extends Error {}
