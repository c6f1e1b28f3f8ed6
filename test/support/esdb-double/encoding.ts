/**
 * TEST DOUBLE message encoding: StoredEvent <-> EventStoreDB protobuf messages. 64-bit fields travel
 * as decimal strings (the client's generated code is built with jstype = JS_STRING), and a reply with
 * a missing or malformed field tends to hang the client rather than fail, so every field the client
 * reads is always set here.
 */
import {
  type AppendReq,
  type AppendReqMessage,
  AppendResp,
  type AppendRespMessage,
  Empty,
  ReadResp,
  type ReadRespMessage,
  StreamIdentifier,
  UUID,
} from './grpc.ts';
import type { Expected, LogPosition, ProposedEvent, StoredEvent } from './log.ts';

const UUID_FORMAT = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** What the server sends as the position of an event read from a stream: the index has none. */
const NO_POSITION = '18446744073709551615';

export function streamName(identifier: { getStreamName_asU8(): Uint8Array } | undefined): string {
  return identifier ? Buffer.from(identifier.getStreamName_asU8()).toString('utf8') : '';
}

function streamIdentifier(name: string) {
  const identifier = new StreamIdentifier();
  identifier.setStreamName(Uint8Array.from(Buffer.from(name, 'utf8')));
  return identifier;
}

export function expectedFromOptions(options: InstanceType<typeof AppendReq.Options>): Expected {
  if (options.hasNoStream()) return { kind: 'no_stream' };
  if (options.hasStreamExists()) return { kind: 'stream_exists' };
  if (options.hasRevision()) return { kind: 'revision', revision: BigInt(options.getRevision()) };
  return { kind: 'any' };
}

export function proposedFromMessage(message: AppendReqMessage): ProposedEvent {
  const proposed = message.getProposedMessage();
  if (!proposed) throw new Error('expected a proposed_message');
  const metadata = proposed.getMetadataMap();
  const type = metadata.get('type');
  const contentType = metadata.get('content-type');
  // The real server refuses an event without these two, naming the missing key.
  if (!type) throw new Error('Required metadata property "type" is missing');
  if (!contentType) throw new Error('Required metadata property "content-type" is missing');
  const id = proposed.getId();
  const idString = id?.hasString() ? id.getString() : undefined;
  // The server parses the id as a Guid and refuses the append when it is not one.
  if (!idString || !UUID_FORMAT.test(idString)) throw new Error(`event id "${idString}" is not a uuid`);
  return {
    id: idString,
    type,
    contentType,
    data: proposed.getData_asU8(),
    customMetadata: proposed.getCustomMetadata_asU8(),
  };
}

export function appendSuccess(revision: bigint, position: LogPosition | undefined): AppendRespMessage {
  const success = new AppendResp.Success();
  if (revision < 0n) success.setNoStream(new Empty());
  else success.setCurrentRevision(revision.toString());
  if (position) {
    const p = new AppendResp.Position();
    p.setCommitPosition(position.commit.toString());
    p.setPreparePosition(position.prepare.toString());
    success.setPosition(p);
  } else {
    success.setNoPosition(new Empty());
  }
  const resp = new AppendResp();
  resp.setSuccess(success);
  return resp;
}

export function appendWrongExpectedVersion(
  expected: Expected,
  current: bigint | undefined,
): AppendRespMessage {
  const wrong = new AppendResp.WrongExpectedVersion();
  if (current === undefined) wrong.setCurrentNoStream(new Empty());
  else wrong.setCurrentRevision(current.toString());
  switch (expected.kind) {
    case 'any':
      wrong.setExpectedAny(new Empty());
      break;
    case 'no_stream':
      wrong.setExpectedNoStream(new Empty());
      break;
    case 'stream_exists':
      wrong.setExpectedStreamExists(new Empty());
      break;
    case 'revision':
      wrong.setExpectedRevision(expected.revision.toString());
      break;
  }
  const resp = new AppendResp();
  resp.setWrongExpectedVersion(wrong);
  return resp;
}

/**
 * An event as a Read reply. From $all it carries its position; from a stream it carries the "no
 * position" sentinel, as the real server does (a stream read goes through the index, which keeps none).
 */
export function readEvent(event: StoredEvent, fromAll: boolean): ReadRespMessage {
  const recorded = new ReadResp.ReadEvent.RecordedEvent();
  const id = new UUID();
  id.setString(event.id);
  recorded.setId(id);
  recorded.setStreamIdentifier(streamIdentifier(event.stream));
  recorded.setStreamRevision(event.revision.toString());
  recorded.setCommitPosition(fromAll ? event.position.commit.toString() : NO_POSITION);
  recorded.setPreparePosition(fromAll ? event.position.prepare.toString() : NO_POSITION);
  const metadata = recorded.getMetadataMap();
  metadata.set('type', event.type);
  metadata.set('content-type', event.contentType);
  metadata.set('created', event.createdTicks.toString());
  recorded.setData(event.data);
  recorded.setCustomMetadata(event.customMetadata);

  const read = new ReadResp.ReadEvent();
  read.setEvent(recorded);
  if (fromAll) read.setCommitPosition(event.position.commit.toString());
  else read.setNoPosition(new Empty());
  const resp = new ReadResp();
  resp.setEvent(read);
  return resp;
}

export function streamNotFound(name: string): ReadRespMessage {
  const notFound = new ReadResp.StreamNotFound();
  notFound.setStreamIdentifier(streamIdentifier(name));
  const resp = new ReadResp();
  resp.setStreamNotFound(notFound);
  return resp;
}

export function confirmation(subscriptionId: string): ReadRespMessage {
  const confirmed = new ReadResp.SubscriptionConfirmation();
  confirmed.setSubscriptionId(subscriptionId);
  const resp = new ReadResp();
  resp.setConfirmation(confirmed);
  return resp;
}

export function caughtUp(): ReadRespMessage {
  const resp = new ReadResp();
  resp.setCaughtUp(new ReadResp.CaughtUp());
  return resp;
}

export function checkpoint(position: LogPosition): ReadRespMessage {
  const cp = new ReadResp.Checkpoint();
  cp.setCommitPosition(position.commit.toString());
  cp.setPreparePosition(position.prepare.toString());
  const resp = new ReadResp();
  resp.setCheckpoint(cp);
  return resp;
}
