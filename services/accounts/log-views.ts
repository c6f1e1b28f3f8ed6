import type { z } from 'zod';
import type { apiKeyEvents, organizationEvents, userEvents } from '../../src/domain/accounts/events.ts';
import { apiKeyStream, organizationStream, userStream } from '../../src/domain/accounts/streams.ts';
import type { EventStore } from '../../src/event-store/port.ts';
import { keyMetadata, organizationData, userData } from './views.ts';

/*
 * The accounts answers from the log, for the commands that have just written the streams: a key
 * issue and a bootstrap answer with the key's secret, which exists only in that answer, so they must
 * not depend on the read models having caught up (a slow or failed projection would turn a committed
 * write into a 500 and lose the secret). The rows are built from the recorded events with the fields
 * and times the projections write (projections/accounts/*), so a later GET shows the same.
 */

type Data<Events extends Record<string, z.ZodType>, T extends keyof Events> = z.infer<Events[T]>;
type OrganizationEvent = Parameters<typeof organizationStream.evolve>[1];

/** The stream's events, and the first of the given type (which the command has just written). */
async function withFirst(store: EventStore, stream: string, type: string) {
  const events = await store.readStream(stream);
  const first = events.find((e) => e.type === type);
  if (!first) throw new Error(`${stream} holds no ${type}`);
  return { events, first };
}

export async function keyMetadataFromLog(store: EventStore, keyId: string) {
  const { first: issued } = await withFirst(store, apiKeyStream.name(keyId), 'ApiKeyIssued');
  const data = issued.data as Data<typeof apiKeyEvents, 'ApiKeyIssued'>;
  return keyMetadata({
    key_id: data.keyId,
    name: data.name,
    prefix: data.prefix,
    scopes: data.scopes,
    created_at: issued.recordedAt,
  });
}

export async function userDataFromLog(store: EventStore, userId: string) {
  const { first: registered } = await withFirst(store, userStream.name(userId), 'UserRegistered');
  const data = registered.data as Data<typeof userEvents, 'UserRegistered'>;
  return userData({
    user_id: data.userId,
    email: data.email,
    first_name: data.firstName,
    last_name: data.lastName,
    created_at: registered.recordedAt,
  });
}

export async function organizationFromLog(store: EventStore, organizationId: string) {
  const stream = organizationStream.name(organizationId);
  const { events, first: created } = await withFirst(store, stream, 'OrganizationCreated');
  const data = created.data as Data<typeof organizationEvents, 'OrganizationCreated'>;
  // The balance as the stream's own fold computes it (the starter credits and any grant since).
  const state = events.reduce(
    (s, e) => organizationStream.evolve(s, e as unknown as OrganizationEvent),
    organizationStream.initialState(),
  );
  return organizationData({
    organization_id: data.organizationId,
    name: data.name,
    credit_balance: state.balance,
  });
}
