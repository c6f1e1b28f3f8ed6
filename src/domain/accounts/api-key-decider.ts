import type { Scope } from '../../auth/scopes.ts';
import type { Decider } from '../../command.ts';
import { AppError } from '../../errors.ts';
import type { ApiKeyEvent } from './events.ts';

export type ApiKeyState =
  | { status: 'none' }
  | { status: 'active' | 'revoked'; organizationId: string; scopes: readonly Scope[] };

export type ApiKeyCommand =
  | {
      type: 'IssueApiKey';
      keyId: string;
      organizationId: string;
      userId: string;
      name: string;
      prefix: string;
      scopes: Scope[];
      secretHash: string;
      /** Scopes of the key asking; undefined for a bootstrap, which grants all of them. */
      grantorScopes?: ReadonlySet<Scope>;
    }
  | { type: 'RevokeApiKey'; keyId: string; organizationId: string };

/** One API key's life: issued once, revoked at most once (revoking again changes nothing). */
export const apiKeyDecider: Decider<ApiKeyState, ApiKeyCommand, ApiKeyEvent> = {
  initialState: () => ({ status: 'none' }),
  evolve: (state, event) => {
    switch (event.type) {
      case 'ApiKeyIssued':
        return { status: 'active', organizationId: event.data.organizationId, scopes: event.data.scopes };
      case 'ApiKeyRevoked':
        return state.status === 'none' ? state : { ...state, status: 'revoked' };
      default: {
        const never: never = event;
        return never;
      }
    }
  },
  decide: (command, state) => {
    switch (command.type) {
      case 'IssueApiKey': {
        if (state.status !== 'none')
          throw new AppError('conflict', `API key ${command.keyId} exists already.`);
        const { grantorScopes, type: _type, ...data } = command;
        const notHeld = grantorScopes ? data.scopes.filter((s) => !grantorScopes.has(s)) : [];
        if (notHeld.length > 0) {
          throw new AppError(
            'scope_not_held',
            `A key can only grant scopes it holds itself; this key lacks ${notHeld.join(', ')}.`,
            { scopes: notHeld },
          );
        }
        return [{ type: 'ApiKeyIssued', data }];
      }
      case 'RevokeApiKey': {
        // Another organization's key is answered exactly like a missing one: ids are not probed.
        if (state.status === 'none' || state.organizationId !== command.organizationId) {
          throw new AppError('not_found', `No API key ${command.keyId} in this organization.`);
        }
        if (state.status === 'revoked') return [];
        return [
          { type: 'ApiKeyRevoked', data: { keyId: command.keyId, organizationId: command.organizationId } },
        ];
      }
      default: {
        const never: never = command;
        return never;
      }
    }
  },
};
