import { z } from 'zod';
import type { ColumnRef } from '../references.ts';
import { type RunCondition, RunConditionSchema, runConditionRefs } from '../run-condition.ts';
import { type Config, type ConfigIssue, columnKeyRef, type ProviderSpec, runCondition } from './spec.ts';

export const DEFAULT_LIST_PATH = 'items';

const ColumnMapping = z
  .strictObject({
    sourceScope: z.enum(['row', 'item']).optional().describe('list mode: row or item (default row)'),
    sourceKey: columnKeyRef.optional().describe('source column key when sourceScope=row'),
    itemKey: z.string().min(1).max(200).optional().describe('item field name when sourceScope=item'),
    path: z.string().min(1).max(500).optional().describe('nested JSON path inside sourceKey'),
    destKey: z.string().min(1).max(63).describe('column key in the destination table'),
  })
  .superRefine((m, ctx) => {
    if ((m.sourceScope ?? 'row') === 'row' && m.sourceKey === undefined) {
      ctx.addIssue({ code: 'custom', path: ['sourceKey'], message: 'a row mapping needs sourceKey' });
    }
    if (m.sourceScope === 'item' && m.itemKey === undefined) {
      ctx.addIssue({ code: 'custom', path: ['itemKey'], message: 'an item mapping needs itemKey' });
    }
  });

const listFields = {
  syncMode: z.enum(['row', 'list']).optional(),
  syncBehavior: z.enum(['link', 'copy']).optional(),
  listSourceColumnId: z
    .string()
    .min(1)
    .max(64)
    .optional()
    .describe('id of the JSON column expanded in list mode'),
  listPath: z.string().min(1).max(500).optional().describe('path of the item array; default items'),
  columnMappings: z.array(ColumnMapping).max(500).optional(),
};

const Route = z.strictObject({
  condition: RunConditionSchema.optional().describe('the first route whose condition matches wins'),
  ...listFields,
});

const SyncToTableFields = z.strictObject({
  provider: z.literal('sync_to_table'),
  destinationTableId: z.string().min(1).max(64).describe('a table of the same organization'),
  routes: z.array(Route).max(50).optional(),
  runCondition,
  ...listFields,
});

/**
 * listPath defaults to items, written into the config so that it shows; a route without its own
 * listPath inherits the top-level one. A codec, not a transform: the completed config has the same
 * fields, so the OpenAPI document shows its schema and an answer can be serialized through it.
 */
export const SyncToTableConfigSchema = z
  .codec(SyncToTableFields, SyncToTableFields, {
    decode: (config) =>
      config.syncMode === 'list' && config.listPath === undefined
        ? { ...config, listPath: DEFAULT_LIST_PATH }
        : config,
    encode: (config) => config as z.output<typeof SyncToTableFields>,
  })
  .meta({ id: 'SyncToTableConfig', description: 'config of a column with provider sync_to_table' });

type SyncConfig = z.output<typeof SyncToTableConfigSchema>;
type RouteConfig = z.output<typeof Route>;

function mappingRefs(mappings: RouteConfig['columnMappings'], path: PropertyKey[]): ColumnRef[] {
  return (mappings ?? []).flatMap((m, i) =>
    m.sourceKey !== undefined && (m.sourceScope ?? 'row') === 'row'
      ? [{ path: [...path, i, 'sourceKey'], key: m.sourceKey, mustExist: true }]
      : [],
  );
}

function listSourceRef(id: string | undefined, path: PropertyKey[]): ColumnRef[] {
  return id === undefined ? [] : [{ path, id, mustExist: true, mustBeJson: true }];
}

/** List mode needs a list source, on the route or inherited from the top level. */
function listModeIssues(config: SyncConfig): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const needsSource = (mode: string | undefined, source: string | undefined, path: PropertyKey[]) => {
    if (mode === 'list' && source === undefined) {
      issues.push({ path, message: 'list mode needs listSourceColumnId (a JSON column of this table)' });
    }
  };
  needsSource(config.syncMode, config.listSourceColumnId, ['listSourceColumnId']);
  config.routes?.forEach((route, i) => {
    const source = route.listSourceColumnId ?? config.listSourceColumnId;
    needsSource(route.syncMode ?? config.syncMode, source, ['routes', i, 'listSourceColumnId']);
  });
  const itemOutsideList = (
    mode: string | undefined,
    mappings: RouteConfig['columnMappings'],
    path: PropertyKey[],
  ) =>
    mappings?.forEach((m, i) => {
      if (m.sourceScope === 'item' && mode !== 'list') {
        issues.push({ path: [...path, i, 'sourceScope'], message: 'sourceScope item needs syncMode list' });
      }
    });
  itemOutsideList(config.syncMode, config.columnMappings, ['columnMappings']);
  config.routes?.forEach((route, i) => {
    itemOutsideList(route.syncMode ?? config.syncMode, route.columnMappings, ['routes', i, 'columnMappings']);
  });
  return issues;
}

export const syncToTable: ProviderSpec = {
  schema: SyncToTableConfigSchema as unknown as z.ZodType<Config>,
  refs: (raw) => {
    const config = raw as SyncConfig;
    return [
      ...listSourceRef(config.listSourceColumnId, ['listSourceColumnId']),
      ...mappingRefs(config.columnMappings, ['columnMappings']),
      ...(config.routes ?? []).flatMap((route, i) => [
        ...(route.condition
          ? runConditionRefs(route.condition as RunCondition, ['routes', i, 'condition'])
          : []),
        ...listSourceRef(route.listSourceColumnId, ['routes', i, 'listSourceColumnId']),
        ...mappingRefs(route.columnMappings, ['routes', i, 'columnMappings']),
      ]),
    ];
  },
  check: (raw, ctx) => {
    const config = raw as SyncConfig;
    const issues = listModeIssues(config);
    const id = config.destinationTableId;
    if (ctx.tables.has(id) && ctx.tables.get(id) !== ctx.organizationId) {
      issues.push({ path: ['destinationTableId'], message: 'names no table of this organization' });
    }
    return issues;
  },
};
