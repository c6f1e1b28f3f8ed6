import { readFileSync } from 'node:fs';
import { createConfig, lintFromString, parseYaml } from '@redocly/openapi-core';
import spectralCore from '@stoplight/spectral-core';
import spectralParsers from '@stoplight/spectral-parsers';
import spectralRulesets from '@stoplight/spectral-rulesets';

/**
 * Issue 33, item 5: the two linters API users point at /openapi.json, run in process on the served
 * document with the configurations committed at the repository's root. `redocly.yaml` is Redocly
 * CLI's own file (its `recommended` ruleset); `.spectral.yaml` is Spectral CLI's (`spectral:oas`).
 * Both engines run offline: the document has local references only.
 */

export interface LintProblem {
  linter: 'redocly' | 'spectral';
  rule: string;
  severity: 'error' | 'warning' | 'info' | 'hint';
  /** A JSON pointer into the document. */
  where: string;
  message: string;
}

const ROOT = new URL('../../', import.meta.url);
const REDOCLY_CONFIG = new URL('redocly.yaml', ROOT);
const SPECTRAL_CONFIG = new URL('.spectral.yaml', ROOT);

export async function redoclyProblems(doc: object): Promise<LintProblem[]> {
  const config = await createConfig(readFileSync(REDOCLY_CONFIG, 'utf8'), {
    configPath: REDOCLY_CONFIG.pathname,
  });
  const problems = await lintFromString({
    source: JSON.stringify(doc, null, 2),
    absoluteRef: new URL('openapi.json', ROOT).pathname,
    config,
  });
  return problems
    .filter((p) => !p.ignored)
    .map((p) => ({
      linter: 'redocly',
      rule: p.ruleId,
      severity: p.severity === 'error' ? 'error' : p.severity === 'warn' ? 'warning' : 'info',
      where: p.location[0]?.pointer ?? '',
      message: p.message,
    }));
}

const SPECTRAL_SEVERITIES = ['error', 'warning', 'info', 'hint'] as const;

/**
 * The Spectral ruleset of `.spectral.yaml`. Spectral CLI bundles a ruleset file with rollup; this
 * reads the one form the file uses (`extends: spectral:oas`, and rules turned off or given another
 * severity) and refuses anything else, so the file cannot say more than the test applies.
 */
function spectralRuleset() {
  const raw = parseYaml(readFileSync(SPECTRAL_CONFIG, 'utf8')) as { extends?: unknown; rules?: unknown };
  const extendsList = [raw.extends].flat();
  if (extendsList.length !== 1 || extendsList[0] !== 'spectral:oas')
    throw new Error('.spectral.yaml: extends must be spectral:oas (the one ruleset the test knows)');
  const rules: Record<string, string | boolean> = {};
  for (const [name, value] of Object.entries((raw.rules ?? {}) as Record<string, unknown>)) {
    if (value !== 'off' && value !== false && !SPECTRAL_SEVERITIES.includes(value as never))
      throw new Error(`.spectral.yaml: rule ${name} may only be turned off or given a severity`);
    rules[name] = value as string | boolean;
  }
  return { extends: [[spectralRulesets.oas, 'recommended']], rules };
}

export async function spectralProblems(doc: object): Promise<LintProblem[]> {
  const spectral = new spectralCore.Spectral();
  spectral.setRuleset(spectralRuleset() as never);
  const document = new spectralCore.Document(
    JSON.stringify(doc, null, 2),
    spectralParsers.Json,
    'openapi.json',
  );
  const results = await spectral.run(document);
  return results.map((r) => ({
    linter: 'spectral',
    rule: String(r.code),
    severity: SPECTRAL_SEVERITIES[r.severity] ?? 'hint',
    where: `/${r.path.map((p) => String(p).replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`,
    message: r.message,
  }));
}

/** Both linters' problems, Redocly's first. */
export async function lintOpenApi(doc: object): Promise<LintProblem[]> {
  return [...(await redoclyProblems(doc)), ...(await spectralProblems(doc))];
}

/** `rule (severity) x count`, most frequent first: a summary for a failure message or a report. */
export function tally(problems: readonly LintProblem[]): string[] {
  const counts = new Map<string, number>();
  for (const p of problems) {
    const key = `${p.linter} ${p.rule} (${p.severity})`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts].sort((a, b) => b[1] - a[1]).map(([key, n]) => `${key} x${n}`);
}
