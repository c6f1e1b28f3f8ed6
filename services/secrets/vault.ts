import { loadState } from '../../src/command.ts';
import type { Config } from '../../src/config.ts';
import type { Pool } from '../../src/db/pool.ts';
import { newDataKey, open, seal, valueContext } from '../../src/domain/secrets/envelope.ts';
import type { SecretValueSet } from '../../src/domain/secrets/events.ts';
import { maskValue } from '../../src/domain/secrets/schemas.ts';
import {
  replacedKeys,
  type SecretState,
  secretNotFound,
  secretStream,
} from '../../src/domain/secrets/secret-state.ts';
import { AppError } from '../../src/errors.ts';
import type { EventStore } from '../../src/event-store/port.ts';
import { randomId } from '../../src/ids.ts';
import {
  DATA_KEYS,
  destroyKeys,
  insertDataKey,
  readDataKey,
  SecretUseRecorder,
  unwrapDataKey,
} from './data-keys.ts';
import { MasterKeySource } from './master-key.ts';

export interface VaultDeps {
  config: Pick<Config, 'SECRETS_MASTER_KEY' | 'SECRETS_PREVIOUS_MASTER_KEYS' | 'DATA_DIR'>;
  pool: Pool;
  store: EventStore;
}

/** A value sealed for an event: what the event may hold, and the mask, which it may not. */
export interface Sealed {
  keyId: string;
  ciphertext: string;
  maskedValue: string;
}

/**
 * The secrets of one database (one per pool, like the API keys' cache): sealing a value under a new
 * data key, destroying the keys of replaced versions, and resolving a name to its current value.
 */
export class SecretsVault {
  readonly keys: MasterKeySource;
  readonly lastUsed: SecretUseRecorder;

  constructor(private readonly deps: VaultDeps) {
    this.keys = new MasterKeySource(deps.config);
    this.lastUsed = new SecretUseRecorder(deps.pool);
  }

  /** Encrypts `value` under a fresh data key and stores that key (wrapped) with the value's mask. */
  async seal(organizationId: string, name: string, value: string): Promise<Sealed> {
    const keyId = randomId('sdk');
    const dataKey = newDataKey();
    const maskedValue = maskValue(value);
    await insertDataKey(this.deps.pool, this.keys, { keyId, organizationId, name, dataKey, maskedValue });
    const ciphertext = seal(dataKey, Buffer.from(value, 'utf8'), valueContext(organizationId, name, keyId));
    dataKey.fill(0);
    return { keyId, ciphertext, maskedValue };
  }

  /** After a write: the keys of the versions the stream has replaced (all, once deleted) are destroyed. */
  async destroyReplaced(organizationId: string, name: string, state: SecretState): Promise<void> {
    await destroyKeys(this.deps.pool, { organizationId, name }, replacedKeys(state), state.current?.keyId);
  }

  /**
   * A write that failed: its key goes unless the log names it after all (the append may have landed
   * before the failure was seen), then the replaced ones do.
   */
  async afterFailedWrite(organizationId: string, name: string, keyId?: string): Promise<void> {
    const { state } = await loadState(this.deps.store, secretStream.name(organizationId, name), secretStream);
    if (keyId && !state.keyIds.includes(keyId)) {
      await this.deps.pool.query(`DELETE FROM ${DATA_KEYS} WHERE key_id = $1`, [keyId]);
    }
    await this.destroyReplaced(organizationId, name, state);
  }

  /**
   * The current value of a secret, for the runs that use it (`{{secrets.name}}`); records the use off
   * the caller's path. 404 when there is no such secret; 503 when its key was wrapped under a master
   * key this process does not hold.
   */
  async resolveSecret(organizationId: string, name: string): Promise<string> {
    const stream = secretStream.name(organizationId, name);
    // Twice: a version replaced between reading the event and reading its key has lost its key.
    for (let attempt = 0; attempt < 2; attempt++) {
      const last = (await this.deps.store.readLastEvents([stream])).get(stream);
      if (last?.type !== 'SecretValueSet') break;
      const data = last.data as SecretValueSet;
      const value = await this.openSealed(organizationId, name, data);
      if (value === undefined) continue;
      this.lastUsed.record(data.keyId);
      return value;
    }
    throw secretNotFound(name);
  }

  /**
   * A value `seal` made for `name` (a workspace secret, or another feature's sealed value such as a
   * webhook's signing secret): undefined when its data key is gone; 503 when the key was wrapped under
   * a master key this process does not hold.
   */
  async openSealed(
    organizationId: string,
    name: string,
    sealed: Omit<Sealed, 'maskedValue'>,
  ): Promise<string | undefined> {
    const row = await readDataKey(this.deps.pool, sealed.keyId);
    if (!row) return undefined;
    const master = await this.keys.find(row.master_key_id);
    if (!master) {
      throw new AppError(
        'unavailable',
        `The secret ${name} is encrypted under a master key this process does not hold.`,
      );
    }
    const dataKey = unwrapDataKey(master, row);
    const value = open(dataKey, sealed.ciphertext, valueContext(organizationId, name, sealed.keyId));
    dataKey.fill(0);
    return value.toString('utf8');
  }
}

declare module '../../src/deps.ts' {
  interface ServiceParts {
    /** The secrets vault of this service, with the master keys of its configuration. */
    vault: SecretsVault;
  }
}
