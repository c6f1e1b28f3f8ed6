import type { PromptEvent } from '../../src/domain/prompts/events.ts';
import type { PromptView } from '../../src/domain/prompts/schemas.ts';
import type { PromptVariable } from '../../src/domain/prompts/template.ts';
import type { Projection } from '../../src/projection/types.ts';

/** Logical names of the read model's tables; queries import them from here. */
export const PROMPTS = 'prompt_templates';
export const PROMPT_VERSIONS = 'prompt_template_versions';

/** The fields both tables have, in the order `promptFromRow` reads them. */
export const PROMPT_FIELDS = 'organization_id, name, description, template, variables, version';

/** Their definitions (and the template's or the version's creation), shared by both tables. */
const CONTENT_COLUMNS = `organization_id text NOT NULL,
        name text NOT NULL,
        description text,
        template text NOT NULL,
        variables jsonb NOT NULL,
        version integer NOT NULL,
        created_at timestamptz NOT NULL`;

export interface PromptRow {
  id: string;
  organization_id: string;
  name: string;
  description: string | null;
  template: string;
  variables: PromptVariable[];
  version: number;
  /** The template's creation. */
  created_at: Date;
  /** When this version was made. */
  updated_at: Date;
}

export const promptFromRow = (row: PromptRow): PromptView => ({
  id: row.id,
  name: row.name,
  description: row.description,
  template: row.template,
  variables: row.variables,
  version: row.version,
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
});

/**
 * Prompt templates by organization (their latest version, for listing and the default GET) and
 * every version (immutable, for `?version=`, the versions list and render). Written by hand for
 * now; a one-row-per-stream helper is on its way.
 */
export const promptsProjection: Projection<PromptEvent> = {
  name: 'prompts',
  version: 1,
  handles: ['PromptTemplateCreated', 'PromptTemplateVersioned', 'PromptTemplateDeleted'],
  tables: {
    [PROMPTS]: (t) => [
      `CREATE TABLE ${t} (
        id text PRIMARY KEY,
        ${CONTENT_COLUMNS},
        updated_at timestamptz NOT NULL
      )`,
      `CREATE INDEX ${t}_by_organization ON ${t} (organization_id, created_at, id)`,
    ],
    [PROMPT_VERSIONS]: (t) => [
      `CREATE TABLE ${t} (
        prompt_id text NOT NULL,
        ${CONTENT_COLUMNS},
        PRIMARY KEY (prompt_id, version)
      )`,
    ],
  },
  async apply(events, { tx, table }) {
    const prompts = table(PROMPTS);
    const versions = table(PROMPT_VERSIONS);
    for (const event of events) {
      if (event.type === 'PromptTemplateDeleted') {
        const id = event.data.promptId;
        await tx.query(`DELETE FROM ${prompts} WHERE id = $1`, [id]);
        await tx.query(`DELETE FROM ${versions} WHERE prompt_id = $1`, [id]);
        continue;
      }
      const { promptId, organizationId, name, description, template, variables, at } = event.data;
      const version = event.type === 'PromptTemplateCreated' ? 1 : event.data.version;
      const values = [
        promptId,
        organizationId,
        name,
        description,
        template,
        JSON.stringify(variables),
        version,
        at,
      ];
      // Versions are immutable and numbered: a re-applied one is already there.
      await tx.query(
        `INSERT INTO ${versions} (prompt_id, ${PROMPT_FIELDS}, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (prompt_id, version) DO NOTHING`,
        values,
      );
      await tx.query(
        `INSERT INTO ${prompts} (id, ${PROMPT_FIELDS}, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8)
         ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, description = EXCLUDED.description,
           template = EXCLUDED.template, variables = EXCLUDED.variables, version = EXCLUDED.version,
           updated_at = EXCLUDED.updated_at
         WHERE ${prompts}.version < EXCLUDED.version`,
        values,
      );
    }
  },
};
