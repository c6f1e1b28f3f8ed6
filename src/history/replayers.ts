import { type ColumnState, evolveColumn, initialColumnState } from '../domain/columns/column-state.ts';
import type { ColumnEvent } from '../domain/columns/events.ts';
import { type ArticleEvent, type ArticleState, articleDecider } from '../domain/content/article.ts';
import type { TableEvent } from '../domain/tables/events.ts';
import { evolveTable, initialTableState, type TableState } from '../domain/tables/table-state.ts';
import { stateReplayers } from './state-replayers.ts';

/**
 * The features' states for `stk admin events at`, each from the feature's own evolve. A feature with
 * a stream worth auditing adds one line here.
 */
stateReplayers.register<ColumnState>('column', {
  description: 'a column as GET .../columns shows it (src/domain/columns evolveColumn)',
  initialState: initialColumnState,
  evolve: (state, event) => evolveColumn(state, event as unknown as ColumnEvent),
  view: (state) => state.column ?? null,
});

stateReplayers.register<TableState>('table', {
  description: 'a table and the columns that belong to it (src/domain/tables evolveTable)',
  initialState: initialTableState,
  evolve: (state, event) => evolveTable(state, event as unknown as TableEvent),
  view: (state) => ({ ...state, columns: [...state.columns.values()] }),
});

interface ArticleHistory {
  decider: ArticleState;
  content?: unknown;
}

stateReplayers.register<ArticleHistory>('article', {
  description:
    'an article as stored then: the content of its last sync and its updated_at (commands/sync-article.ts)',
  initialState: () => ({ decider: articleDecider.initialState() }),
  evolve: (state, event) => ({
    decider: articleDecider.evolve(state.decider, event as unknown as ArticleEvent),
    content: event.data,
  }),
  view: (state) => ({ ...(state.content as object), updatedAt: state.decider.updatedAt }),
});

export { stateReplayers };
