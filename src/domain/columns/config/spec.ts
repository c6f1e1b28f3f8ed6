import { z } from 'zod';
import type { ColumnMember, ColumnRef } from '../references.ts';
import { RunConditionSchema } from '../run-condition.ts';

/** What config validation knows about the world; gathered by the command handler before deciding. */
export interface ConfigContext {
  organizationId: string;
  /** Columns of the table, the column being validated included (a condition may test its own value). */
  columns: readonly ColumnMember[];
  /**
   * Tables named by destinationTableId in this request: id -> owning organization, undefined when no
   * such table exists. A destination not listed here was checked when it was set; tables never move.
   */
  tables: ReadonlyMap<string, string | undefined>;
  /**
   * The prompt template an llm config names by promptTemplateId in this request, undefined when no
   * such template exists. One not listed here was checked when it was set.
   */
  prompts?: ReadonlyMap<string, PromptTemplateSummary | undefined>;
  /** The table the column is (or will be) in: an add_to_sequence target must be linked to it. */
  tableId?: string;
  /**
   * The sequence an add_to_sequence config names in this request, undefined when no such sequence
   * exists. One not listed here was checked when it was set.
   */
  sequences?: ReadonlyMap<string, SequenceSummary | undefined>;
}

/** What column config validation needs of a prompt template (ConfigContext.prompts). */
export interface PromptTemplateSummary {
  organizationId: string;
  latestVersion: number;
  /** The variable names of each version. */
  variables: ReadonlyMap<number, readonly string[]>;
}

/** What config validation needs of a sequence (ConfigContext.sequences). */
export interface SequenceSummary {
  organizationId: string;
  status: string;
  sourceTableId: string | null;
}

export interface ConfigIssue {
  path: PropertyKey[];
  message: string;
}

export type Config = Record<string, unknown>;

/** How one provider's config is shaped, which columns it names, and any rule the shape cannot say. */
export interface ProviderSpec {
  schema: z.ZodType<Config>;
  refs(config: Config): ColumnRef[];
  check?(config: Config, ctx: ConfigContext): ConfigIssue[];
}

export const columnKeyRef = z.string().min(1).max(63).describe('A column key of this table');
export const runCondition = RunConditionSchema.optional();

/** A provider key: lower snake case, like the ones the contract names. */
export const providerName = z
  .string()
  .regex(/^[a-z][a-z0-9_]{0,62}$/, 'a provider is a lower-case key such as add_to_crm');
