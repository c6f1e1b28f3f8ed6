import { createHash, randomBytes } from 'node:crypto';
import { ALPHABET } from '../../ids.ts';

const TIME_CHARS = 10; // 50 bits of milliseconds: good until the year 37,000
const RANDOM_CHARS = 16; // 80 random bits
const INDEX_CHARS = 2; // 1,024 rows a batch at most
const RANDOM_SPACE = 1n << 80n;
const BATCH_CHARS = TIME_CHARS + RANDOM_CHARS;
const ROW_ID = new RegExp(`^row_[${ALPHABET}]{${BATCH_CHARS + INDEX_CHARS}}$`);

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
 * The id of an insert batch, sorting in creation order (the time first, as a ULID does; within one
 * millisecond the random part counts up). The alphabet is in ASCII order, so byte order (COLLATE "C")
 * is creation order.
 */
export function newBatchId(now = Date.now()): string {
  if (now <= lastTime) {
    lastRandom = (lastRandom + 1n) % RANDOM_SPACE;
  } else {
    lastTime = now;
    lastRandom = BigInt(`0x${randomBytes(10).toString('hex')}`) >> 1n; // room to count up
  }
  return `${encode(BigInt(lastTime), TIME_CHARS)}${encode(lastRandom, RANDOM_CHARS)}`;
}

/**
 * The id of a batch written on behalf of something that may be asked again (a run's row after a
 * crash): its time part is `timeMs` (the run's start, so its rows sort with it) and its random part
 * comes from `seed`, so the same seed names the same batch, which is then not written twice.
 */
export function batchIdFor(timeMs: number, seed: string): string {
  const hash = BigInt(`0x${createHash('sha256').update(seed).digest('hex').slice(0, 20)}`);
  return `${encode(BigInt(timeMs), TIME_CHARS)}${encode(hash, RANDOM_CHARS)}`;
}

/**
 * A row's id is its batch's id and its place in the batch: rows sort in the order they were sent, and
 * a row's id says which batch stream holds its insert.
 */
export const rowIdOf = (batchId: string, index: number) =>
  `row_${batchId}${encode(BigInt(index), INDEX_CHARS)}`;

/** The batch and place of a row id of the right form. */
export function batchOf(rowId: string): { batchId: string; index: number } {
  const batchId = rowId.slice(4, 4 + BATCH_CHARS);
  const index = [...rowId.slice(4 + BATCH_CHARS)].reduce((n, c) => n * 32 + ALPHABET.indexOf(c), 0);
  return { batchId, index };
}

/** An id of the wrong form names nothing: callers answer 404 without reading anything. */
export const isRowId = (id: string) => ROW_ID.test(id);
