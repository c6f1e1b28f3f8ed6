import { AppError } from '../../errors.ts';
import { defineStream } from '../../stream.ts';
import { type SecretEvent, type SecretValueSet, secretEvents } from './events.ts';

export interface SecretState {
  exists: boolean;
  /** The current version (counting from 1 again after a delete). */
  version: number;
  current?: SecretValueSet;
  createdAt: string;
  updatedAt: string;
  /** Every data key the stream has named, oldest first: all but the current one must be destroyed. */
  keyIds: readonly string[];
}

export const initialSecretState = (): SecretState => ({
  exists: false,
  version: 0,
  createdAt: '',
  updatedAt: '',
  keyIds: [],
});

export function evolveSecret(state: SecretState, event: SecretEvent): SecretState {
  switch (event.type) {
    case 'SecretValueSet': {
      const { version, keyId, at } = event.data;
      return {
        exists: true,
        version,
        current: event.data,
        createdAt: state.exists ? state.createdAt : at,
        updatedAt: at,
        keyIds: [...state.keyIds, keyId],
      };
    }
    case 'SecretDeleted':
      return { ...initialSecretState(), keyIds: state.keyIds };
    default: {
      const never: never = event;
      return never;
    }
  }
}

/** The data keys of a secret's past versions (and of all of them once it is deleted). */
export const replacedKeys = (state: SecretState) => state.keyIds.filter((id) => id !== state.current?.keyId);

export const secretNotFound = (name: string) => new AppError('not_found', `No secret ${name}.`);

/** `secret-<organizationId>.<name>`: one workspace secret's versions, as ciphertext only. */
export const secretStream = defineStream({
  category: 'secret',
  id: (organizationId: string, name: string) => `${organizationId}.${name}`,
  events: secretEvents,
  initialState: initialSecretState,
  evolve: evolveSecret,
  history: {
    description: 'a workspace secret: its version and data key (never its value)',
    view: (state) => ({
      exists: state.exists,
      name: state.current?.name ?? null,
      version: state.version,
      keyId: state.current?.keyId ?? null,
      createdAt: state.createdAt || null,
      updatedAt: state.updatedAt || null,
    }),
  },
});
