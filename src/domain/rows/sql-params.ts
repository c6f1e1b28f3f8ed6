/**
 * The parameters of one generated statement: every value goes in as `$n`, never into the text, so
 * nothing a client sends (a filter value, a cursor) can change what the statement does.
 */
export class SqlParams {
  readonly values: unknown[] = [];

  /** `$n` for the value, with a cast when the type must be stated (`$3::numeric`). */
  add(value: unknown, cast?: string): string {
    this.values.push(value);
    return cast ? `$${this.values.length}::${cast}` : `$${this.values.length}`;
  }
}
