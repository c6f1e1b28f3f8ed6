import type { z } from 'zod';
import type { AddToCrmConfigSchema } from '../../../src/domain/columns/config/add-to-crm.ts';
import { parseJsonPath, resolvePath } from '../../../src/domain/columns/json-path.ts';
import { LEAD_FIELDS, type RawLead } from '../../../src/domain/leads/lead.ts';

type CrmConfig = z.output<typeof AddToCrmConfigSchema>;
type Cells = Readonly<Record<string, unknown>>;

const ARRAY_ITEM = '__array_item';

/** A cell holding JSON may come as its text: read it as the value it is. */
function structured(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const text = value.trim();
  if (!text.startsWith('{') && !text.startsWith('[')) return value;
  try {
    return JSON.parse(text);
  } catch {
    return value;
  }
}

/** The value at a dotted path inside a value (the whole value for an empty path). */
function at(value: unknown, path: string | undefined): unknown {
  if (path === undefined || path === '') return value;
  const steps = parseJsonPath(path);
  return steps ? resolvePath(structured(value), steps) : undefined;
}

/** `key` or `key.path`: a row column's value, or a value inside it. */
function columnValue(cells: Cells, ref: string): unknown {
  const dot = ref.indexOf('.');
  return dot < 0 ? cells[ref] : at(cells[ref.slice(0, dot)], ref.slice(dot + 1));
}

/** A template value: a row column reference, or in an array source `__array_item[.path]`. */
function templateValue(cells: Cells, item: unknown, ref: string): unknown {
  if (item !== undefined && ref === ARRAY_ITEM) return item;
  if (item !== undefined && ref.startsWith(`${ARRAY_ITEM}.`))
    return at(item, ref.slice(ARRAY_ITEM.length + 1));
  return columnValue(cells, ref);
}

const list = (value: unknown): unknown[] => {
  const v = structured(value);
  if (v === undefined || v === null || v === '') return [];
  return Array.isArray(v) ? v : [v];
};

const EMAIL_KEYS = new Set(['emailAddresses', 'email', 'emails']);
const PHONE_KEYS = new Set(['phoneNumbers', 'phone', 'phones']);

/** A template (canonical field -> reference) applied onto a record: fields set, emails and phones added. */
function applyTemplate(
  record: RawLead,
  template: Record<string, string> | undefined,
  cells: Cells,
  item?: unknown,
) {
  for (const [field, ref] of Object.entries(template ?? {})) {
    const value = templateValue(cells, item, ref);
    if (EMAIL_KEYS.has(field)) record.emailAddresses = [...(record.emailAddresses ?? []), ...list(value)];
    else if (PHONE_KEYS.has(field)) record.phoneNumbers = [...(record.phoneNumbers ?? []), ...list(value)];
    else if ((LEAD_FIELDS as readonly string[]).includes(field) && value !== undefined && value !== null)
      (record as Record<string, unknown>)[field] = value;
  }
}

/**
 * The lead records one row yields under an add_to_crm config (contract 4.4): with `leadSources`, one
 * per row source and one per item of each array source, each `common` then its template; else one, from
 * the direct mappings and the email and phone sources (a structured source read at its path). Without
 * any mapping, canonical fields are read from the columns of the same key.
 */
export function crmRecords(config: CrmConfig, cells: Cells): RawLead[] {
  const m = config.fieldMappings;
  if (!m) {
    const record: RawLead = {};
    applyTemplate(
      record,
      Object.fromEntries([...LEAD_FIELDS, 'emailAddresses', 'phoneNumbers'].map((f) => [f, f])),
      cells,
    );
    return [record];
  }
  if (m.leadSources?.length) {
    return m.leadSources.flatMap((source) => {
      if (source.kind === 'row') {
        const record: RawLead = {};
        applyTemplate(record, m.common, cells);
        applyTemplate(record, source.template, cells);
        return [record];
      }
      const items = list(at(cells[source.sourceColumn!], source.sourceArrayPath ?? 'items'));
      return items.map((item) => {
        const record: RawLead = {};
        applyTemplate(record, m.common, cells);
        applyTemplate(record, source.template, cells, item);
        return record;
      });
    });
  }
  const record: RawLead = {};
  const direct = Object.fromEntries(
    Object.entries(m).filter(([field, value]) => typeof value === 'string' && field !== 'common'),
  ) as Record<string, string>;
  applyTemplate(record, direct, cells);
  applyTemplate(record, m.common, cells);
  record.emailAddresses = (m.emailAddresses ?? []).flatMap((s) => list(at(cells[s.column], s.path)));
  record.phoneNumbers = (m.phoneNumbers ?? []).flatMap((s) => list(at(cells[s.column], s.path)));
  return [record];
}
