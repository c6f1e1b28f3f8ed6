import { PROMPT_VERSIONS, PROMPTS, type PromptRow } from '../../projections/prompts/prompts.ts';
import type { Principal } from '../../src/auth/scopes.ts';
import type { Pool } from '../../src/db/pool.ts';
import {
  isPromptId,
  promptNotFound,
  readablePrompt,
  versionNotFound,
} from '../../src/domain/prompts/access.ts';
import { LATEST_PROMPTS } from './list-prompts.ts';

/**
 * A version of a template as a row (the latest when `version` is undefined), after the access checks:
 * 404 for no such template or version, 403 for another organization's. One statement reads the
 * template's row (for the checks) with the version asked for.
 */
export async function readPromptVersion(
  pool: Pool,
  promptId: string,
  version: number | undefined,
  principal: Principal,
): Promise<PromptRow> {
  if (!isPromptId(promptId)) throw promptNotFound(promptId);
  if (version === undefined) {
    const { rows } = await pool.query<PromptRow>(`${LATEST_PROMPTS} WHERE id = $1`, [promptId]);
    return readablePrompt(rows[0], promptId, principal);
  }
  const { rows } = await pool.query<PromptRow & { found: boolean }>(
    `SELECT p.id, p.organization_id, v.name, v.description, v.template, v.variables, v.version,
            p.created_at, v.created_at AS updated_at, v.version IS NOT NULL AS found
     FROM ${PROMPTS} p LEFT JOIN ${PROMPT_VERSIONS} v ON v.prompt_id = p.id AND v.version = $2
     WHERE p.id = $1`,
    [promptId, version],
  );
  const row = readablePrompt(rows[0], promptId, principal);
  if (!row.found) throw versionNotFound(promptId, version);
  return row;
}
