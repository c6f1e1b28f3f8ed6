import { once } from 'node:events';
import { Worker } from 'node:worker_threads';

export interface SlowTarget {
  url: string;
  close(): Promise<void>;
}

/**
 * A loopback HTTP server that answers every request after `answerMs` with a small JSON body, on a
 * thread of its own: a real target is another process, so its work must not wait on (or delay) the
 * event loop of the service or the client measured against it.
 */
export async function startSlowTarget(answerMs: number): Promise<SlowTarget> {
  const worker = new Worker(new URL('./slow-target-thread.mjs', import.meta.url), {
    workerData: { answerMs },
  });
  const [port] = (await once(worker, 'message')) as [number];
  return {
    url: `http://127.0.0.1:${port}`,
    async close() {
      worker.postMessage('close');
      await once(worker, 'exit');
    },
  };
}
