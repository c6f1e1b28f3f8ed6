import { type FieldError, formatPath } from '../../../errors.ts';
import type { ColumnMember, ColumnRef } from '../references.ts';
import { type RunCondition, runConditionBounds, runConditionRefs } from '../run-condition.ts';
import { openProvider } from './open-providers.ts';
import type { Config, ConfigContext, ConfigIssue, ProviderSpec } from './spec.ts';

export type { Config, ConfigContext, ProviderSpec } from './spec.ts';

/**
 * The config specs of the known providers, by name. The domain holds no list of providers: the
 * application's provider registry (processes/runs/providers/index.ts) passes this in.
 */
export type ProviderSpecs = ReadonlyMap<string, ProviderSpec>;

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The spec of a config's provider; the open schema for none (an input column) or one not known. */
function specFor(config: Config, providers: ProviderSpecs): ProviderSpec {
  const provider = config.provider;
  return (typeof provider === 'string' && providers.get(provider)) || openProvider;
}

/** A provider named but not known: refused when saved, naming the ones that are. */
function unknownProvider(config: Config, providers: ProviderSpecs): ConfigIssue | undefined {
  const provider = config.provider;
  if (typeof provider !== 'string' || providers.has(provider)) return undefined;
  return {
    path: ['provider'],
    message: `unknown provider ${JSON.stringify(provider)}; the known ones: ${[...providers.keys()].join(', ')}`,
  };
}

export type ConfigResult = { ok: true; config: Config } | { ok: false; errors: FieldError[] };

const toField = (issue: ConfigIssue): FieldError => ({
  path: formatPath(['config', ...issue.path]),
  message: issue.message,
});

/** Every run condition of a config, where one may be (before any shape is known). */
function conditionSlots(config: Config): { path: PropertyKey[]; node: unknown }[] {
  const slots = [{ path: ['runCondition'] as PropertyKey[], node: config.runCondition }];
  if (Array.isArray(config.routes)) {
    config.routes.forEach((route, i) => {
      if (isObject(route)) slots.push({ path: ['routes', i, 'condition'], node: route.condition });
    });
  }
  return slots.filter((s) => s.node !== undefined);
}

/** Every column a stored (valid) config names: its run condition's and its provider's references. */
export function configRefs(config: Config, providers: ProviderSpecs): ColumnRef[] {
  const condition = isObject(config.runCondition)
    ? runConditionRefs(config.runCondition as unknown as RunCondition, ['runCondition'])
    : [];
  return [...condition, ...specFor(config, providers).refs(config)];
}

/** Whether `ref` names a column of `columns` as it must (exists, key and id agree, JSON when it must be). */
export function checkRef(ref: ColumnRef, columns: readonly ColumnMember[]): ConfigIssue | undefined {
  const column =
    ref.id !== undefined ? columns.find((c) => c.id === ref.id) : columns.find((c) => c.key === ref.key);
  const named = ref.id !== undefined ? `id ${ref.id}` : `key ${ref.key}`;
  if (!column)
    return ref.mustExist
      ? { path: ref.path, message: `names no column of this table (${named})` }
      : undefined;
  if (ref.id !== undefined && ref.key !== undefined && column.key !== ref.key) {
    return { path: ref.path, message: `columnKey ${ref.key} and columnId ${ref.id} name different columns` };
  }
  if (ref.mustBeJson && column.dataType !== 'json') {
    return {
      path: ref.path,
      message: `column ${column.key} does not hold JSON (dataType ${column.dataType})`,
    };
  }
  if (ref.jsonNeedsPath && column.dataType === 'json') {
    return { path: ref.path, message: `column ${column.key} holds JSON: give a path inside it` };
  }
  return undefined;
}

/**
 * Validates a whole column config (after a PATCH's merge) against the table's current columns:
 * the provider's schema, then every column it names. Returns the normalized config (defaults such
 * as timeoutSeconds written in) or every offending path. A provider not in `providers` is refused
 * (a config without one, an input column's, gets the open schema).
 */
export function validateColumnConfig(
  input: unknown,
  ctx: ConfigContext,
  providers: ProviderSpecs,
): ConfigResult {
  if (!isObject(input))
    return { ok: false, errors: [{ path: 'config', message: 'config must be an object' }] };
  // Bounds first: the schema below recurses, so a hostile nesting must not reach it.
  const tooBig = conditionSlots(input).flatMap(({ path, node }) => {
    const message = runConditionBounds(node);
    return message ? [{ path, message }] : [];
  });
  if (tooBig.length > 0) return { ok: false, errors: tooBig.map(toField) };

  const unknown = unknownProvider(input, providers);
  if (unknown) return { ok: false, errors: [toField(unknown)] };
  const spec = specFor(input, providers);
  const parsed = spec.schema.safeParse(input);
  if (!parsed.success) {
    // An unknown key is named by its own path (config.retries), not by the object holding it.
    const issues = parsed.error.issues.flatMap((i): ConfigIssue[] =>
      i.code === 'unrecognized_keys'
        ? i.keys.map((key) => ({ path: [...i.path, key], message: 'unknown key for this provider' }))
        : [{ path: i.path, message: i.message }],
    );
    return { ok: false, errors: issues.map(toField) };
  }
  // Through JSON: absent optional keys vanish instead of lingering as undefined.
  const config = JSON.parse(JSON.stringify(parsed.data)) as Config;
  const issues = [
    ...configRefs(config, providers).flatMap((ref) => checkRef(ref, ctx.columns) ?? []),
    ...(spec.check?.(config, ctx) ?? []),
  ];
  return issues.length > 0 ? { ok: false, errors: issues.map(toField) } : { ok: true, config };
}
