import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import pg from 'pg';
import { Observable } from 'rxjs';
import { backoffMs } from '../db/backoff.ts';
import type { Position, RecordedEvent } from './port.ts';

type ReadPage = (from: Position, limit: number) => Promise<RecordedEvent[]>;

/** Polling bounds: back off from the first to the second while nothing new comes. */
export interface PollBounds {
  minMs: number;
  maxMs: number;
}

const DEFAULT_POLL: PollBounds = { minMs: 10, maxMs: 1000 };

/** Appends in any process of the service NOTIFY this channel after their commit. */
const CHANNEL = 'events_appended';

/**
 * Follows `$all` for any number of subscribers: pages through what is there, then waits for a
 * wake-up (an append in this process, or a NOTIFY from another) or, failing that, polls with
 * backoff. Polling also covers events that were committed but not yet safe to read (an older
 * transaction still running) and appends whose NOTIFY never came (a writer died after its commit).
 */
export class LiveTail {
  private listener?: pg.Client;
  private connecting?: Promise<void>;
  /** Failed LISTEN connects in a row, and the pending reconnect: see `dropListener`. */
  private listenAttempt = 0;
  private reconnect?: NodeJS.Timeout;
  private readonly wakeups = new EventEmitter();
  private closed = false;
  private notifying?: Promise<unknown>;
  private notifyAgain = false;
  /** Page reads under way, by wake-up generation and cursor: followers at the same place share one. */
  private readonly reading = new Map<string, Promise<RecordedEvent[]>>();
  /** The payload of this process's NOTIFYs, so that its LISTEN can tell them from other processes'. */
  private readonly token = randomUUID();
  /** Counts wake-ups: a follower that was reading when one came reads again instead of sleeping. */
  private generation = 0;

  constructor(
    private readonly pool: pg.Pool,
    private readonly readPage: ReadPage,
    private readonly pageSize: number,
    private readonly poll: PollBounds = DEFAULT_POLL,
  ) {
    this.wakeups.setMaxListeners(0);
  }

  follow(from: Position): Observable<RecordedEvent> {
    return new Observable<RecordedEvent>((subscriber) => {
      let active = true;
      let cursor = from;
      let wake: (() => void) | undefined;
      const onWake = () => wake?.();
      this.wakeups.on('wake', onWake);

      const loop = async () => {
        await this.ensureListener();
        let pollMs = this.poll.minMs;
        while (active) {
          const generation = this.generation;
          const page = await this.sharedRead(cursor, generation);

          for (const event of page) {
            if (!active) return;
            subscriber.next(event);
            cursor = event.position;
          }
          if (page.length === this.pageSize) continue;
          if (page.length > 0) pollMs = this.poll.minMs;
          // Woken while the read was under way: what woke us may have committed after the read began.
          if (this.generation !== generation) continue;
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, pollMs);
            wake = () => {
              clearTimeout(timer);
              pollMs = this.poll.minMs;
              resolve();
            };
          });
          wake = undefined;
          pollMs = Math.min(pollMs * 2, this.poll.maxMs);
        }
      };
      loop().catch((error) => {
        if (active) subscriber.error(error);
      });
      return () => {
        active = false;
        wake?.();
        this.wakeups.off('wake', onWake);
      };
    });
  }

  /**
   * Every projection runner of a process follows the tail, and those at the head all wake on the same
   * append at the same cursor: one query (and one parse and validation of each event) serves them all,
   * instead of one per runner. A read is shared only among followers that saw the same wake-ups, so
   * nobody gets a page older than its own wake-up. The events are shared too: followers must not
   * change them.
   */
  private sharedRead(from: Position, generation: number): Promise<RecordedEvent[]> {
    const key = `${generation}:${from.commit}:${from.prepare}`;
    const underWay = this.reading.get(key);
    if (underWay) return underWay;
    const page = this.readPage(from, this.pageSize).finally(() => this.reading.delete(key));
    this.reading.set(key, page);
    return page;
  }

  /** After a committed append: wake this process's followers now, other processes with a NOTIFY. */
  appended(): void {
    this.wakeAll();
    this.notifyOthers();
  }

  private wakeAll(): void {
    this.generation++;
    this.wakeups.emit('wake');
  }

  // At most one NOTIFY in flight per process: appends finishing meanwhile ask for one more after it,
  // so every append is followed by a NOTIFY sent after its commit, without serialising the appends.
  private notifyOthers(): void {
    if (this.closed) return;
    if (this.notifying) {
      this.notifyAgain = true;
      return;
    }
    this.notifying = this.pool
      .query('SELECT pg_notify($1, $2)', [CHANNEL, this.token])
      .catch(() => {})
      .finally(() => {
        this.notifying = undefined;
        if (this.notifyAgain) {
          this.notifyAgain = false;
          this.notifyOthers();
        }
      });
  }

  private ensureListener(): Promise<void> {
    if (this.listener || this.closed) return Promise.resolve();
    this.connecting ??= (async () => {
      const options = this.pool.options;
      const client = new pg.Client({ ...options });
      // Our own NOTIFY comes back here too: this process's followers were woken at the append already.
      client.on('notification', (message) => {
        if (message.payload !== this.token) this.wakeAll();
      });
      // A lost LISTEN connection is not fatal: followers keep polling meanwhile, and it is reconnected.
      client.on('error', () => this.dropListener(client));
      client.on('end', () => this.dropListener(client));
      try {
        await client.connect();
        await client.query(`LISTEN ${CHANNEL}`);
        if (this.closed) throw new Error('closed');
        this.listener = client;
        // NOTIFYs sent while no connection listened are lost: followers read again now.
        if (this.listenAttempt > 0) this.wakeAll();
        this.listenAttempt = 0;
      } catch {
        await client.end().catch(() => {});
        this.scheduleReconnect();
      } finally {
        this.connecting = undefined;
      }
    })();
    return this.connecting;
  }

  /** The LISTEN connection died (the database went away, or its session was terminated). */
  private dropListener(client: pg.Client): void {
    if (this.listener !== client) return;
    this.listener = undefined;
    void client.end().catch(() => {});
    this.scheduleReconnect();
  }

  /** Reconnects with backoff while anyone follows; a later follow connects anyway. */
  private scheduleReconnect(): void {
    if (this.closed || this.reconnect || this.wakeups.listenerCount('wake') === 0) return;
    this.reconnect = setTimeout(
      () => {
        this.reconnect = undefined;
        void this.ensureListener();
      },
      backoffMs(this.listenAttempt++),
    );
    this.reconnect.unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.reconnect);
    this.wakeAll();
    await this.notifying;
    await this.connecting;
    await this.listener?.end().catch(() => {});
    this.listener = undefined;
  }
}
