import { constants, createReadStream } from 'node:fs';
import { access, readFile } from 'node:fs/promises';
import { UsageError } from './errors.ts';

/** The columns as `stk rows insert` needs them: how to read a CSV field of each. */
export interface InputColumn {
  key: string;
  dataType: string;
}

export type Cells = Record<string, unknown>;

/**
 * Records of a CSV file or stdin as objects keyed by the header line, parsed by csv-parse (quotes,
 * embedded newlines and commas, a byte-order mark): the format's corner cases are not ours to redo.
 */
async function* csvRecords(input: NodeJS.ReadableStream): AsyncGenerator<Record<string, string>> {
  // Loaded on use: only a CSV import needs it.
  const { parse } = await import('csv-parse');
  yield* input.pipe(parse({ columns: true, bom: true, skip_empty_lines: true })) as AsyncIterable<
    Record<string, string>
  >;
}

const TRUE = new Set(['true', 'yes', '1']);
const FALSE = new Set(['false', 'no', '0']);

/**
 * A CSV field as its column's type: a number, a boolean, JSON when it parses as JSON; an empty field is
 * no value. What does not convert is sent as it is, and the API names the cell that is wrong.
 */
export function csvValue(dataType: string | undefined, text: string): unknown {
  if (text === '') return undefined;
  switch (dataType) {
    case 'number': {
      const n = Number(text);
      return text.trim() !== '' && Number.isFinite(n) ? n : text;
    }
    case 'boolean': {
      const t = text.trim().toLowerCase();
      return TRUE.has(t) ? true : FALSE.has(t) ? false : text;
    }
    case 'json':
      try {
        return JSON.parse(text);
      } catch {
        return text;
      }
    default:
      return text;
  }
}

function csvCells(record: Record<string, string>, types: ReadonlyMap<string, string>): Cells {
  const cells: Cells = {};
  for (const [key, text] of Object.entries(record)) {
    const value = csvValue(types.get(key), text);
    if (value !== undefined) cells[key] = value;
  }
  return cells;
}

/** A JSON document of rows: an array (or `{ rows: [...] }`) of `{ cells }` or of plain cell objects. */
function jsonRows(text: string): Cells[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new UsageError('the input is not JSON (use --format csv for CSV)');
  }
  const list = Array.isArray(parsed) ? parsed : (parsed as { rows?: unknown })?.rows;
  if (!Array.isArray(list)) throw new UsageError('JSON input is an array of rows, or { "rows": [...] }');
  return list.map((row, i) => {
    if (typeof row !== 'object' || row === null || Array.isArray(row)) {
      throw new UsageError(`row ${i + 1} is not an object of cells`);
    }
    const { cells } = row as { cells?: unknown };
    return (cells && typeof cells === 'object' && !Array.isArray(cells) ? cells : row) as Cells;
  });
}

export type InputFormat = 'json' | 'csv';

export function formatOf(file: string | undefined, given: InputFormat | undefined): InputFormat {
  if (given) return given;
  return file?.toLowerCase().endsWith('.csv') ? 'csv' : 'json';
}

/** The rows of a file (or stdin for none or `-`), one at a time, with the total when it is known. */
export async function readRows(
  file: string | undefined,
  format: InputFormat,
  columns: readonly InputColumn[],
): Promise<{ total?: number; rows: AsyncIterable<Cells> }> {
  const stdin = file === undefined || file === '-';
  if (format === 'json') {
    const text = stdin
      ? await streamText(process.stdin)
      : await readFile(file, 'utf8').catch(cannotRead(file));
    const rows = jsonRows(text);
    return {
      total: rows.length,
      rows: (async function* () {
        yield* rows;
      })(),
    };
  }
  if (!stdin) await access(file, constants.R_OK).catch(cannotRead(file));
  const input = stdin ? process.stdin : createReadStream(file);
  const types = new Map(columns.map((c) => [c.key, c.dataType]));
  return {
    rows: (async function* () {
      for await (const record of csvRecords(input)) yield csvCells(record, types);
    })(),
  };
}

const cannotRead = (file: string) => (error: NodeJS.ErrnoException) => {
  throw new UsageError(`cannot read ${file}: ${error.code ?? error.message}`);
};

async function streamText(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
  return Buffer.concat(chunks).toString('utf8');
}
