import { COLUMNS } from '../../projections/columns/columns.ts';
import { loadState } from '../../src/command.ts';
import type { Pool } from '../../src/db/pool.ts';
import { columnStream } from '../../src/domain/columns/column-state.ts';
import type { PromptTemplateSummary } from '../../src/domain/columns/config/spec.ts';
import { isPromptId } from '../../src/domain/prompts/access.ts';
import { type PromptState, promptStream } from '../../src/domain/prompts/prompt-state.ts';
import type { EventStore } from '../../src/event-store/port.ts';

const summaryOf = (state: PromptState): PromptTemplateSummary => ({
  organizationId: state.organizationId,
  latestVersion: state.versions.at(-1)!.version,
  variables: new Map(state.versions.map((v) => [v.version, v.variables.map((variable) => variable.name)])),
});

/**
 * The template an `llm` column config names, read before deciding (the lookup is I/O): from the
 * config sent, or, for a PATCH that pins `promptVersion` alone, from the column's stored config.
 * Undefined for an id that names no template; an empty map when the config names none.
 */
export async function promptTemplatesNamed(
  store: EventStore,
  config: Record<string, unknown> | undefined,
  column?: { tableId: string; columnId: string },
): Promise<Map<string, PromptTemplateSummary | undefined>> {
  let id = config?.promptTemplateId;
  if (id === undefined && column && typeof config?.promptVersion === 'number') {
    const { state } = await loadState(
      store,
      columnStream.name(column.tableId, column.columnId),
      columnStream,
    );
    id = state.column?.config.promptTemplateId;
  }
  if (typeof id !== 'string') return new Map();
  if (!isPromptId(id)) return new Map([[id, undefined]]);
  const { state } = await loadState(store, promptStream.name(id), promptStream);
  return new Map([[id, state.exists ? summaryOf(state) : undefined]]);
}

/** A column whose config names a template. */
export interface PromptReferrer {
  tableId: string;
  columnId: string;
  key: string;
}

/** The columns (of any table) whose config names the template, from the columns read model. */
export async function columnsUsingPrompt(pool: Pool, promptId: string): Promise<PromptReferrer[]> {
  const { rows } = await pool.query<PromptReferrer>(
    `SELECT table_id AS "tableId", id AS "columnId", key FROM ${COLUMNS}
     WHERE config->>'promptTemplateId' = $1 ORDER BY table_id, position, id`,
    [promptId],
  );
  return rows;
}
