/**
 * A column's ETag is its stream revision: every change appends, so equal tags mean the same
 * column. Strong tags, since the representation is byte-for-byte determined by the revision.
 */
export const etagOf = (revision: bigint | undefined) => `"${revision ?? -1n}"`;

/**
 * If-Match as the revision it demands: undefined when absent or `*` (any current column), 'stale'
 * when no listed tag can match. If-Match compares strongly (RFC 9110), so a weak tag, like a tag of
 * another form, never matches.
 */
export function ifMatchRevision(header: string | undefined): bigint | undefined | 'stale' {
  if (header === undefined) return undefined;
  const tags = header.split(',').map((t) => t.trim());
  if (tags.includes('*')) return undefined;
  const revisions = tags
    .map((t) => /^"(\d{1,19})"$/.exec(t)?.[1])
    .filter((r): r is string => r !== undefined);
  // A client holds one column version; should several be listed, the first one is the one checked.
  return revisions[0] === undefined ? 'stale' : BigInt(revisions[0]);
}
