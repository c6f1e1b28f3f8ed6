import type { Executor } from '../executor.ts';
import { failed } from './outcome.ts';

/**
 * add_to_crm, add_to_sequence, and providers this service does not know: each row fails with
 * provider_not_implemented until the provider lands, so a run over such a column ends instead of
 * hanging, and nothing is sent anywhere.
 */
export const notImplementedExecutor: Executor = async (context) => {
  const provider = context.column.config.provider;
  const name = typeof provider === 'string' ? provider : 'none';
  return failed('provider_not_implemented', `provider ${name} cannot run yet`);
};
