import { randomBytes } from 'node:crypto';
import { ALPHABET } from '../tables/ids.ts';

const TIME_CHARS = 10; // 50 bits of milliseconds: good until the year 37,000
const RANDOM_CHARS = 16; // 80 random bits
const RANDOM_SPACE = 1n << 80n;
const ROW_ID = new RegExp(`^row_[${ALPHABET}]{${TIME_CHARS + RANDOM_CHARS}}$`);

function encode(value: bigint, chars: number): string {
  let out = '';
  for (let i = 0; i < chars; i++) {
    out = ALPHABET[Number(value & 31n)] + out;
    value >>= 5n;
  }
  return out;
}

let lastTime = -1;
let lastRandom = 0n;

/**
 * A row id that sorts in creation order (the time first, as a ULID does): a table's rows list oldest
 * first by id alone, and the rows of one batch keep the order they were sent in, because within one
 * millisecond the random part counts up instead of being drawn again. The alphabet is in ASCII order,
 * so byte order (COLLATE "C") is creation order.
 */
export function newRowId(now = Date.now()): string {
  if (now <= lastTime) {
    lastRandom = (lastRandom + 1n) % RANDOM_SPACE;
  } else {
    lastTime = now;
    lastRandom = BigInt(`0x${randomBytes(10).toString('hex')}`) >> 1n; // room to count up
  }
  return `row_${encode(BigInt(lastTime), TIME_CHARS)}${encode(lastRandom, RANDOM_CHARS)}`;
}

/** An id of the wrong form names nothing: callers answer 404 without reading anything. */
export const isRowId = (id: string) => ROW_ID.test(id);
