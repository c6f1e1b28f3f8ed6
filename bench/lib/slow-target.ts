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
      if (worker.threadId === -1) return; // exited already
      worker.postMessage('close');
      // Closed once its connections are; a thread that does not end within a second is ended.
      const timer = setTimeout(() => void worker.terminate(), 1000);
      await once(worker, 'exit');
      clearTimeout(timer);
    },
  };
}
