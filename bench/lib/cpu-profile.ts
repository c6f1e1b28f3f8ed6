import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';

/**
 * A CPU profile of this process over one phase of a benchmark, when BENCH_PROFILE names a directory:
 * `stop` writes `<name>.cpuprofile` there (open it in Chrome's DevTools, or sum its self times). The
 * profiler costs CPU itself: a profiled run's rates are not the benchmark's numbers.
 */
export async function profilePhase(name: string): Promise<{ stop(): Promise<void> }> {
  const dir = process.env.BENCH_PROFILE;
  if (!dir) return { stop: async () => {} };
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  return {
    async stop() {
      const { profile } = await session.post('Profiler.stop');
      session.disconnect();
      await writeFile(join(dir, `${name}.cpuprofile`), JSON.stringify(profile));
    },
  };
}
