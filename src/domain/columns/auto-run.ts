import { AppError } from '../../errors.ts';
import type { Config } from './config/spec.ts';
import type { AutoRun } from './fields.ts';

/** Whether a column's config names something to run: a column without a provider is an input column. */
export const hasProvider = (config: Config) => typeof config.provider === 'string';

/**
 * 400 when a column would have an `autoRun` other than `never` and no `config.provider`: an input
 * column is filled by writes, so its auto-run would start nothing, ever. `path` is the field the
 * request changed: `autoRun` when it set one, `config.provider` when it removed the provider of a
 * column that auto-runs.
 */
export function refuseAutoRunWithoutProvider(
  autoRun: AutoRun,
  config: Config,
  path: 'autoRun' | 'config.provider',
): void {
  if (autoRun === 'never' || hasProvider(config)) return;
  const message =
    path === 'autoRun'
      ? `autoRun ${autoRun} needs something to run, and this column has no config.provider: an input ` +
        'column is filled by writes, so nothing would ever run. Send autoRun "never", or a config.provider'
      : `removing config.provider leaves autoRun ${autoRun} with nothing to run (an input column); ` +
        'set autoRun to "never" in the same request';
  throw new AppError('validation_failed', `${path}: ${message}.`, { errors: [{ path, message }] });
}
