import type { z } from 'zod';

/** An event as a decider sees it: its type and data. */
export interface DomainEvent<T extends string = string, D = unknown> {
  type: T;
  data: D;
}

/** Turns the data of an older schema version into the next version's shape. */
export type Upcaster = (data: unknown) => unknown;

/**
 * One event type of a stream: its zod schema, or, once its shape has changed, the schema of the
 * current version with the upcasters that lift each older version (`upcasters[v]`: v -> v + 1).
 */
export type EventSchema =
  | z.ZodType
  | { schema: z.ZodType; version: number; upcasters: Record<number, Upcaster> };

type SchemaOf<T extends EventSchema> = T extends { schema: infer S extends z.ZodType } ? S : T;

/** The union of a stream's events, typed from its schemas. */
export type EventsOf<M extends Record<string, EventSchema>> = {
  [K in keyof M & string]: DomainEvent<K, z.infer<SchemaOf<M[K]>>>;
}[keyof M & string];

/**
 * One command's decision on one kind of stream: a pure `decide` (no I/O, the clock comes in as an
 * argument; it throws an AppError to refuse) over the state that the stream's own definition folds.
 * Every command of every feature has this shape (docs/architecture.md says why); a stream
 * definition makes them: `columnStream.decider((command: PatchColumn, state) => [...])`.
 */
export interface Decider<S, C, E extends DomainEvent> {
  readonly stream: Pick<StreamDefinition<S, E>, 'initialState' | 'evolve'>;
  readonly decide: (command: C, state: S, now: Date) => E[];
}

/** How `stk admin events at` shows the state of one of these streams at a past time. */
export interface StreamHistory<S> {
  description: string;
  /** The state as shown (default: the state itself), e.g. a column as the API returns it. */
  view?: (state: S) => unknown;
}

/**
 * A category of streams as one object (`column-<tableId>.<columnId>`): how its names are made, the
 * events it holds with their schemas, and the fold of those events into the state its commands decide
 * on. Registration, history replay and the commands all read this same definition.
 */
export interface StreamDefinition<
  S = unknown,
  E extends DomainEvent = DomainEvent,
  A extends unknown[] = never,
> {
  readonly category: string;
  readonly events: Readonly<Record<string, EventSchema>>;
  readonly initialState: () => S;
  readonly evolve: (state: S, event: E) => S;
  readonly history?: StreamHistory<S>;
  /** The stream's full name, `<category>-<id>`. */
  name(...args: A): string;
  /** A command's decider on streams of this kind. */
  decider<C>(decide: (command: C, state: S, now: Date) => E[]): Decider<S, C, E>;
}

/** Any stream definition, for lists (the registry, history). */
// biome-ignore lint/suspicious/noExplicitAny: a list holds definitions of every state, event and id shape
export type AnyStreamDefinition = StreamDefinition<any, any, any>;

export function defineStream<
  const M extends Record<string, EventSchema>,
  S,
  A extends unknown[],
>(definition: {
  category: string;
  events: M;
  /** The part of the name after `<category>-`. */
  id: (...args: A) => string;
  initialState: () => S;
  evolve: (state: S, event: EventsOf<M>) => S;
  history?: StreamHistory<S>;
}): StreamDefinition<S, EventsOf<M>, A> {
  const { category, id, ...rest } = definition;
  if (category.includes('-')) throw new Error(`a stream category has no '-': ${category}`);
  const stream: StreamDefinition<S, EventsOf<M>, A> = {
    category,
    ...rest,
    name: (...args: A) => `${category}-${id(...args)}`,
    decider: (decide) => ({ stream, decide }),
  };
  return stream;
}

/** The category of a stream name (`column-t1.c1` -> `column`). */
export function categoryOf(stream: string): string {
  const dash = stream.indexOf('-');
  return dash < 0 ? stream : stream.slice(0, dash);
}
