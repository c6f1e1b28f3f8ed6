import { setTimeout as sleep } from 'node:timers/promises';
import { timed } from './timing.ts';

/** Pages through a global log from the start; each call returns the ids of the next page. */
export type PageReader = () => Promise<string[]>;

export interface ReadCount {
  /** Events the reader returned, duplicates included. */
  returned: number;
  /** Different event ids among them. */
  distinct: number;
  seconds: number;
  eventsPerSec: number;
}

/** Writes `total` events with `writers` concurrent appenders, `batch` events per call. */
export async function fillLog(options: {
  total: number;
  writers: number;
  batch: number;
  /** Appends `count` events for `writer`; `seq` is that writer's call number. */
  append: (writer: number, seq: number, count: number) => Promise<void>;
}): Promise<{ written: number; seconds: number }> {
  let claimed = 0;
  let written = 0;
  const { seconds } = await timed(() =>
    Promise.all(
      Array.from({ length: options.writers }, async (_, writer) => {
        for (let seq = 0; claimed < options.total; seq++) {
          const count = Math.min(options.batch, options.total - claimed);
          claimed += count;
          await options.append(writer, seq, count);
          written += count;
        }
      }),
    ),
  );
  return { written, seconds };
}

function counter() {
  const ids = new Set<string>();
  let returned = 0;
  return {
    add(page: string[]) {
      returned += page.length;
      for (const id of page) ids.add(id);
    },
    result(seconds: number): ReadCount {
      return { returned, distinct: ids.size, seconds, eventsPerSec: returned / seconds };
    },
  };
}

/** Reads a log nobody is writing to, until a page comes back empty. */
export async function readWholeLog(next: PageReader): Promise<ReadCount> {
  const count = counter();
  const { seconds } = await timed(async () => {
    for (let page = await next(); page.length > 0; page = await next()) count.add(page);
  });
  return count.result(seconds);
}

/**
 * Follows a log while `writing` is still under way, the way a projection catches up: when a page is
 * empty it waits a little and asks again. It stops at the first empty page asked for after the
 * writers had all finished, so by then every event is committed and a correct reader has it all.
 */
export async function readWhileWriting(next: PageReader, writing: Promise<unknown>): Promise<ReadCount> {
  const count = counter();
  let finished = false;
  const finish = () => {
    finished = true;
  };
  writing.then(finish, finish);
  const { seconds } = await timed(async () => {
    for (;;) {
      const finishedBefore = finished;
      const page = await next();
      count.add(page);
      if (page.length > 0) continue;
      if (finishedBefore) return;
      await sleep(5);
    }
  });
  return count.result(seconds);
}
