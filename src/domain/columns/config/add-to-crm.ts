import { z } from 'zod';
import type { ColumnRef } from '../references.ts';
import { type Config, columnKeyRef, type ProviderSpec, runCondition } from './spec.ts';

const ARRAY_ITEM = '__array_item';

const FieldSource = z.strictObject({
  column: columnKeyRef,
  path: z.string().min(1).max(500).optional().describe('required when the column holds JSON'),
});

// Canonical lead field -> a row column key, or in an array source an `__array_item` path.
const Template = z.record(z.string().min(1).max(100), z.string().min(1).max(500));

const LeadSource = z
  .strictObject({
    kind: z.enum(['row', 'array']),
    sourceColumn: columnKeyRef.optional().describe('JSON column key of an array source'),
    sourceArrayPath: z
      .string()
      .min(1)
      .max(500)
      .optional()
      .describe('array path inside sourceColumn, commonly items'),
    template: Template.optional(),
  })
  .superRefine((source, ctx) => {
    if (source.kind === 'array' && source.sourceColumn === undefined) {
      ctx.addIssue({ code: 'custom', path: ['sourceColumn'], message: 'an array source needs sourceColumn' });
    }
  });

const FieldMappings = z
  .object({
    companyDomain: columnKeyRef.optional(),
    linkedinUrl: columnKeyRef.optional(),
    emailAddresses: z.array(FieldSource).max(50).optional(),
    phoneNumbers: z.array(FieldSource).max(50).optional(),
    common: Template.optional().describe('parent-row mappings applied to every lead source'),
    leadSources: z.array(LeadSource).max(50).optional(),
  })
  // Other canonical lead fields map to a column key too.
  .catchall(columnKeyRef);

export const AddToCrmConfigSchema = z
  .strictObject({
    provider: z.literal('add_to_crm'),
    fieldMappings: FieldMappings.optional(),
    sourceColumns: z.array(columnKeyRef).max(500).optional(),
    runCondition,
  })
  .meta({ id: 'AddToCrmConfig', description: 'config of a column with provider add_to_crm' });

type CrmConfig = z.output<typeof AddToCrmConfigSchema>;
type Mappings = z.output<typeof FieldMappings>;

const SPECIAL = new Set(['emailAddresses', 'phoneNumbers', 'common', 'leadSources']);

/** A template value names a row column (`key` or `key.path`), or an array item in an array source. */
function templateValueRefs(
  template: Record<string, string> | undefined,
  path: PropertyKey[],
  inArray: boolean,
) {
  return Object.entries(template ?? {}).flatMap(([field, value]): ColumnRef[] => {
    if (inArray && (value === ARRAY_ITEM || value.startsWith(`${ARRAY_ITEM}.`))) return [];
    return [{ path: [...path, field], key: value.split('.')[0], mustExist: true }];
  });
}

function mappingRefs(m: Mappings): ColumnRef[] {
  const at = (...p: PropertyKey[]) => ['fieldMappings', ...p];
  const direct = Object.entries(m)
    .filter(([field, value]) => !SPECIAL.has(field) && typeof value === 'string')
    .map(([field, value]): ColumnRef => ({ path: at(field), key: value as string, mustExist: true }));
  // A structured (JSON) source has no single value to take: it needs an explicit path.
  const sources = (name: 'emailAddresses' | 'phoneNumbers') =>
    (m[name] ?? []).map(
      (s, i): ColumnRef => ({
        path: at(name, i, 'column'),
        key: s.column,
        mustExist: true,
        jsonNeedsPath: !s.path,
      }),
    );
  return [
    ...direct,
    ...sources('emailAddresses'),
    ...sources('phoneNumbers'),
    ...templateValueRefs(m.common, at('common'), false),
    ...(m.leadSources ?? []).flatMap((s, i) => [
      ...(s.sourceColumn !== undefined
        ? [
            {
              path: at('leadSources', i, 'sourceColumn'),
              key: s.sourceColumn,
              mustExist: true,
              mustBeJson: true,
            },
          ]
        : []),
      ...templateValueRefs(s.template, at('leadSources', i, 'template'), s.kind === 'array'),
    ]),
  ];
}

export const addToCrm: ProviderSpec = {
  schema: AddToCrmConfigSchema as z.ZodType<Config>,
  refs: (raw) => {
    const config = raw as CrmConfig;
    return [
      ...(config.fieldMappings ? mappingRefs(config.fieldMappings) : []),
      ...(config.sourceColumns ?? []).map(
        (key, i): ColumnRef => ({ path: ['sourceColumns', i], key, mustExist: true }),
      ),
    ];
  },
};
