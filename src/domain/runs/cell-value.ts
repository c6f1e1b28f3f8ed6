import { isIsoDate } from '../columns/operators.ts';
import { normalizeDate } from '../rows/cells.ts';

/**
 * A run's answer as its column's data type stores it, the way the rows API would take it: a number
 * column holds numbers, a boolean column true or false, a date column ISO 8601 dates (in UTC). Text
 * answers that spell one are read as one (`"42"`, `" true "`, `"2024-05-01"`), since providers answer
 * in text; anything else is refused with why, and the row fails. Sorting and filtering a typed column
 * count on its cells being of its type. The other types take any answer, as they always have (an http
 * answer's JSON in a text column).
 */
export function cellValue(dataType: string, value: unknown): { value: unknown } | { refused: string } {
  if (value === null || value === undefined) return { value };
  switch (dataType) {
    case 'number': {
      const number = typeof value === 'string' && NUMBER.test(value.trim()) ? Number(value) : value;
      return typeof number === 'number' && Number.isFinite(number)
        ? { value: number }
        : { refused: refusal('numbers', value) };
    }
    case 'boolean': {
      const text = typeof value === 'string' ? value.trim().toLowerCase() : undefined;
      const bool = text === 'true' ? true : text === 'false' ? false : value;
      return typeof bool === 'boolean' ? { value: bool } : { refused: refusal('true or false', value) };
    }
    case 'date': {
      const text = typeof value === 'string' ? value.trim() : value;
      return isIsoDate(text) ? { value: normalizeDate(text) } : { refused: refusal('ISO 8601 dates', value) };
    }
    default:
      return { value };
  }
}

const NUMBER = /^-?\d+(\.\d+)?(e[+-]?\d+)?$/i;

const kindOf = (value: unknown) =>
  Array.isArray(value) ? 'an array' : typeof value === 'object' ? 'an object' : `a ${typeof value}`;

const refusal = (holds: string, value: unknown) =>
  `the column holds ${holds} and the answer is ${typeof value === 'string' ? 'text that is not one' : kindOf(value)} (a json column takes any answer)`;
