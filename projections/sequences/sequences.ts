import type { SequenceStep } from '../../src/domain/sequences/events.ts';
import {
  initialSequenceState,
  type SequenceState,
  sequenceStream,
} from '../../src/domain/sequences/streams.ts';
import { singleStreamProjection } from '../../src/projection/single-stream.ts';

export const SEQUENCES = 'sequences';

export interface StoredSequence {
  id: string;
  organization_id: string;
  name: string;
  source_table_id: string;
  steps: SequenceStep[];
  status: SequenceState['status'];
  cloned_from: string;
  created_at: string;
  updated_at: string;
}

/** Sequences by organization, for listing (by status too). Empty text stands for no table / no origin. */
export const sequencesProjection = singleStreamProjection({
  name: 'sequences',
  version: 1,
  stream: sequenceStream,
  handles: ['SequenceCreated', 'SequenceEdited', 'SequenceStatusChanged', 'SequenceDeleted'],
  idOf: (event) => event.data.sequenceId,
  table: {
    name: SEQUENCES,
    key: 'id',
    columns: {
      id: 'text',
      organization_id: 'text',
      name: 'text',
      source_table_id: 'text',
      steps: 'jsonb',
      status: 'text',
      cloned_from: 'text',
      created_at: 'text',
      updated_at: 'text',
    },
    indexes: (t) => [`CREATE INDEX ${t}_by_organization ON ${t} (organization_id, created_at, id)`],
  },
  toRow: (s: SequenceState): StoredSequence | undefined =>
    s.exists
      ? {
          id: s.id,
          organization_id: s.organizationId,
          name: s.name,
          source_table_id: s.sourceTableId ?? '',
          steps: s.steps,
          status: s.status,
          cloned_from: s.clonedFrom ?? '',
          created_at: s.createdAt,
          updated_at: s.updatedAt,
        }
      : undefined,
  fromRow: (row: StoredSequence): SequenceState => sequenceFromRow(row),
});

export const sequenceFromRow = (row: StoredSequence): SequenceState => ({
  ...initialSequenceState(),
  exists: true,
  id: row.id,
  organizationId: row.organization_id,
  name: row.name,
  sourceTableId: row.source_table_id || null,
  steps: row.steps,
  status: row.status,
  clonedFrom: row.cloned_from || null,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});
