import { z } from 'zod';

/**
 * The allowed values of a column's fields. The contract names some (kind enrichment, dataType text,
 * origin api, status idle, the three autoRun settings); the rest are ours. They are published in the
 * OpenAPI document through the schemas below.
 */
export const COLUMN_KINDS = ['input', 'enrichment', 'formula', 'action'] as const;
export const DATA_TYPES = ['text', 'number', 'boolean', 'date', 'url', 'email', 'json'] as const;
export const ORIGINS = ['api', 'ui', 'import', 'system'] as const;
/** `running` while a run of the column has not ended (the runs read model); `idle` otherwise. */
export const STATUSES = ['idle', 'running'] as const;
export const AUTO_RUN = ['never', 'onInsert', 'onSourceUpdate'] as const;

export type ColumnKind = (typeof COLUMN_KINDS)[number];
export type DataType = (typeof DATA_TYPES)[number];
export type AutoRun = (typeof AUTO_RUN)[number];

export const COLUMN_KEY = /^[a-z][a-z0-9_]{0,62}$/;

export const ColumnKindSchema = z.enum(COLUMN_KINDS).describe('What fills the column');
export const DataTypeSchema = z.enum(DATA_TYPES).describe('Type of the values the column holds');
export const OriginSchema = z.enum(ORIGINS).describe('Where the column was created from');
export const AutoRunSchema = z
  .enum(AUTO_RUN)
  .describe('never, onInsert (run for new rows) or onSourceUpdate (run when a source column changes)');
export const ColumnKeySchema = z
  .string()
  .regex(COLUMN_KEY, 'a key is lower case: a letter, then letters, digits or _ (at most 63)')
  .describe('Unique in the table; used in templates, mappings and conditions');
export const LabelSchema = z.string().trim().min(1).max(200);
export const PositionSchema = z.number().min(-1e12).max(1e12).describe('Float sort order');

/**
 * A key derived from a label: lower case, runs of other characters become one underscore, and a
 * leading digit gets a `c_` prefix so that the result always matches COLUMN_KEY.
 */
export function deriveKey(label: string): string {
  const base = label
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
  if (base === '') return 'column';
  const key = /^[a-z]/.test(base) ? base : `c_${base}`;
  return key.slice(0, 63).replace(/_+$/, '');
}

/**
 * Contract 2.3: a column as the domain decides on it, its config any object (the providers, which
 * type it, are the application's: processes/runs/providers/). The API shows it as columnSchemaWith
 * the providers' config union.
 */
export const ColumnSchema = z.object({
  id: z.string(),
  key: z.string(),
  label: z.string(),
  kind: ColumnKindSchema,
  dataType: DataTypeSchema,
  origin: OriginSchema,
  status: z.enum(STATUSES),
  autoRun: AutoRunSchema,
  config: z.record(z.string(), z.unknown()).describe('Provider-specific; see the *Config schemas'),
  position: z.number(),
  isImportant: z.boolean(),
});

/** The Column of the API (its OpenAPI component): ColumnSchema with `config` typed by `config`. */
export const columnSchemaWith = (config: z.ZodType) => ColumnSchema.extend({ config }).meta({ id: 'Column' });

export type Column = z.infer<typeof ColumnSchema>;
