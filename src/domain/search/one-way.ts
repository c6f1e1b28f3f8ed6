/**
 * A search asks one way: by free text, or by a domain, or by a name with a company, and so on. The
 * issues of a request that gives none, more than one, or a way without all its fields, each at the
 * field to fix. The API's request schemas and the column configs hold to the same rule.
 */
export function oneWayIssues(
  ways: readonly (readonly string[])[],
  given: (field: string) => boolean,
): { path: string[]; message: string }[] {
  const used = ways.filter((way) => way.some(given));
  const needs = ways.map((w) => w.join(' and ')).join(', or ');
  if (used.length === 0) return [{ path: [ways[0]![0]!], message: `give ${needs}` }];
  const issues = used
    .slice(1)
    .map((way) => ({ path: [way.find(given)!], message: `give only one of: ${needs}` }));
  const first = used[0]!;
  for (const field of first.filter((f) => !given(f)))
    issues.push({ path: [field], message: `needed with ${first.find(given)}` });
  return issues;
}

/** A language as SearXNG takes it: `en`, `de-CH`, or `all`. */
export const LANGUAGE_CODE = /^(all|[a-z]{2,3}(-[A-Za-z]{2,4})?)$/;
