import { PROVIDER_CREDITS } from '../../../src/credits/prices.ts';
import { addToCrm } from '../../../src/domain/columns/config/add-to-crm.ts';
import { addToCrmExecutor } from '../executors/add-to-crm.ts';
import { notImplementedExecutor } from '../executors/not-implemented.ts';
import { columnProvider, configOf } from './provider.ts';

/** add_to_crm: records leads in the organization's CRM (no outside cost; not run without a store). */
export const addToCrmProvider = columnProvider({
  name: 'add_to_crm',
  ...configOf(addToCrm),
  price: () => PROVIDER_CREDITS.add_to_crm,
  executor: (deps) => (deps.leads ? addToCrmExecutor(deps.leads) : notImplementedExecutor),
});
