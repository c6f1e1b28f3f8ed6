/**
 * Every stream name of the service comes from here, so that a stream's name is one edit away and
 * never built inline. The category (before the first '-') groups a kind of stream.
 */
export const streams = {
  organization: (id: string) => `organization-${id}`,
  user: (id: string) => `user-${id}`,
  apiKey: (id: string) => `apikey-${id}`,
  /** Reserved with expected revision no_stream: the one writer of an email wins. */
  emailReservation: (email: string) => `email-${email.toLowerCase()}`,
  table: (id: string) => `table-${id}`,
  column: (tableId: string, columnId: string) => `column-${tableId}.${columnId}`,
  article: (kind: string, slug: string) => `article-${kind}.${slug}`,
} as const;

/** The category of a stream name (`column-t1.c1` -> `column`). */
export function categoryOf(stream: string): string {
  const dash = stream.indexOf('-');
  return dash < 0 ? stream : stream.slice(0, dash);
}
