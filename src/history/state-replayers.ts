import type { RecordedEvent } from '../event-store/port.ts';

/**
 * How to fold one category of streams (`column`, `article`, ...) into the state an operator reads:
 * the feature's own evolve where it has one, so history shows what the command side saw.
 */
export interface StateReplayer<S = unknown> {
  description: string;
  initialState: () => S;
  evolve: (state: S, event: RecordedEvent) => S;
  /** The state as shown (default: the state itself), e.g. a column as the API returns it. */
  view?: (state: S) => unknown;
}

const registered = new Map<string, StateReplayer>();

/** Stream category -> replayer. Features plug in through src/history/replayers.ts. */
export const stateReplayers = {
  register<S>(category: string, replayer: StateReplayer<S>): void {
    if (registered.has(category)) throw new Error(`a state replayer for ${category} is already registered`);
    registered.set(category, replayer as StateReplayer);
  },
  get(category: string): StateReplayer | undefined {
    return registered.get(category);
  },
  categories(): string[] {
    return [...registered.keys()].sort();
  },
};
