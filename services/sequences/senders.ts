import { handleCommand, loadState, loadStates } from '../../src/command.ts';
import type { SenderAccountEvent } from '../../src/domain/sequences/events.ts';
import {
  type SenderAccountState,
  senderAccountStream,
  userSendersStream,
} from '../../src/domain/sequences/streams.ts';
import { AppError } from '../../src/errors.ts';
import type { EventMetadata, EventStore } from '../../src/event-store/port.ts';

type Added = Extract<SenderAccountEvent, { type: 'SenderAccountAdded' }>['data'];

const addSender = senderAccountStream.decider(
  (command: Omit<Added, 'at'>, state, now): SenderAccountEvent[] => {
    if (state.status !== 'none')
      throw new AppError('conflict', `Sender account ${command.senderAccountId} exists.`);
    return [{ type: 'SenderAccountAdded', data: { ...command, at: now.toISOString() } }];
  },
);

/**
 * Makes a sender account: listed on its member's sender list first, then written on its own stream,
 * so that whoever reads the member's defaults after this answers finds it (defaultSenders).
 */
export async function addSenderAccount(
  deps: { store: EventStore; clock: () => Date },
  command: Omit<Added, 'at'>,
  metadata: EventMetadata,
) {
  const { organizationId, userId, senderAccountId } = command;
  // Appended whatever the list holds: members' accounts made at once need not retry on one another.
  await deps.store.append(
    userSendersStream.name(organizationId, userId),
    [{ type: 'SenderAccountListed', data: { organizationId, userId, senderAccountId }, metadata }],
    { expectedRevision: 'any' },
  );
  return handleCommand({
    store: deps.store,
    stream: senderAccountStream.name(senderAccountId),
    decider: addSender,
    command,
    metadata,
    now: deps.clock(),
  });
}

/**
 * A member's oldest live sender account of each type, read from the streams of the accounts on the
 * member's list and of `alsoIds` (accounts made before the list existed, found elsewhere).
 */
export async function defaultSenders(
  store: EventStore,
  organizationId: string,
  userId: string,
  alsoIds: readonly string[] = [],
): Promise<{ email?: string; linkedin?: string }> {
  const { state: listed } = await loadState(
    store,
    userSendersStream.name(organizationId, userId),
    userSendersStream,
  );
  const ids = [...new Set([...listed, ...alsoIds])];
  if (ids.length === 0) return {};
  const loaded = await loadStates(
    store,
    ids.map((id) => ({ stream: senderAccountStream.name(id), definition: senderAccountStream })),
  );
  const oldest: Partial<Record<SenderAccountState['type'], SenderAccountState>> = {};
  for (const { state } of loaded as { state: SenderAccountState }[]) {
    if (state.status !== 'live' || state.organizationId !== organizationId || state.userId !== userId)
      continue;
    const known = oldest[state.type];
    const older =
      !known ||
      state.createdAt < known.createdAt ||
      (state.createdAt === known.createdAt && state.id < known.id);
    if (older) oldest[state.type] = state;
  }
  return Object.fromEntries(Object.entries(oldest).map(([type, s]) => [type, s.id]));
}
