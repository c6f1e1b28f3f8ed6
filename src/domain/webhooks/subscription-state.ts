import { AppError } from '../../errors.ts';
import { idForm, randomId } from '../../ids.ts';
import { defineStream } from '../../stream.ts';
import {
  attemptLogEvents,
  deliveryEvents,
  type SealedSecret,
  type WebhookEvent,
  webhookEvents,
} from './events.ts';

export const SUBSCRIPTION_STATUSES = ['active', 'paused', 'disabled'] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

export interface SubscriptionState {
  exists: boolean;
  id: string;
  organizationId: string;
  url: string;
  eventTypes: string[];
  description: string;
  /** Paused by the user when false. */
  enabled: boolean;
  /** Set by us (a 410, too many failures); cleared when the user enables the subscription again. */
  disabledReason: string | null;
  secret?: SealedSecret;
  previous?: { secret: SealedSecret; until: string };
  createdAt: string;
  updatedAt: string;
}

export const initialSubscriptionState = (): SubscriptionState => ({
  exists: false,
  id: '',
  organizationId: '',
  url: '',
  eventTypes: [],
  description: '',
  enabled: true,
  disabledReason: null,
  createdAt: '',
  updatedAt: '',
});

export const statusOf = (state: Pick<SubscriptionState, 'enabled' | 'disabledReason'>): SubscriptionStatus =>
  state.disabledReason !== null ? 'disabled' : state.enabled ? 'active' : 'paused';

export function evolveSubscription(state: SubscriptionState, event: WebhookEvent): SubscriptionState {
  switch (event.type) {
    case 'WebhookCreated': {
      const { subscriptionId, organizationId, url, eventTypes, description, enabled, secret, at } =
        event.data;
      return {
        ...initialSubscriptionState(),
        exists: true,
        id: subscriptionId,
        organizationId,
        url,
        eventTypes,
        description,
        enabled,
        secret,
        createdAt: at,
        updatedAt: at,
      };
    }
    case 'WebhookUpdated': {
      const { changes, at } = event.data;
      // Enabling again is how a user takes back a subscription we disabled.
      const disabledReason = changes.enabled === true ? null : state.disabledReason;
      return { ...state, ...changes, disabledReason, updatedAt: at };
    }
    case 'WebhookSecretRotated': {
      const { secret, previous, previousUntil, at } = event.data;
      return { ...state, secret, previous: { secret: previous, until: previousUntil }, updatedAt: at };
    }
    case 'WebhookDisabled':
      return { ...state, disabledReason: event.data.reason, updatedAt: event.data.at };
    case 'WebhookDeleted':
      return initialSubscriptionState();
    default: {
      const never: never = event;
      return never;
    }
  }
}

export const newSubscriptionId = () => randomId('wh');
export const isSubscriptionId = idForm('wh');

export const subscriptionNotFound = (id: string) =>
  new AppError('not_found', `No webhook subscription ${id}.`);

/**
 * `webhook-<organizationId>.<subscriptionId>`: the organization is in the name, so a key of another
 * organization finds no stream (404) without any other check.
 */
export const subscriptionStream = defineStream({
  category: 'webhook',
  id: (organizationId: string, subscriptionId: string) => `${organizationId}.${subscriptionId}`,
  events: webhookEvents,
  initialState: initialSubscriptionState,
  evolve: evolveSubscription,
  history: {
    description: 'a webhook subscription (its secret only sealed)',
    view: ({ secret: _secret, previous: _previous, ...view }) => view,
  },
});

/**
 * `webhookmsg-<subscriptionId>.<messageId>`: the attempts of one message as they were recorded before
 * the attempt log; registered so that the log's old events still read. Nothing is decided on it.
 */
export const deliveryStream = defineStream({
  category: 'webhookmsg',
  id: (subscriptionId: string, messageId: string) => `${subscriptionId}.${messageId}`,
  events: deliveryEvents,
  initialState: () => ({ attempts: 0 }),
  evolve: (state) => ({ attempts: state.attempts + 1 }),
});

/**
 * `webhookatt-<organizationId>.<subscriptionId>`: a subscription's attempts, a batch per event
 * (processes/webhooks/attempt-log.ts). Nothing is decided on it: the history read model is its reader.
 */
export const attemptLogStream = defineStream({
  category: 'webhookatt',
  id: (organizationId: string, subscriptionId: string) => `${organizationId}.${subscriptionId}`,
  events: attemptLogEvents,
  initialState: () => ({ batches: 0 }),
  evolve: (state) => ({ batches: state.batches + 1 }),
});
