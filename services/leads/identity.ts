import { type CommandResult, handleCommand, loadState } from '../../src/command.ts';
import type { LeadEvent } from '../../src/domain/leads/events.ts';
import {
  claimKey,
  createOrMergeLead,
  markMergedInto,
  mergeIntoLead,
  newLeadId,
  older,
} from '../../src/domain/leads/identity.ts';
import { compatible, identityKeys, type LeadData } from '../../src/domain/leads/lead.ts';
import { type LeadState, leadKeyStream, leadStream } from '../../src/domain/leads/lead-state.ts';
import { AppError } from '../../src/errors.ts';
import type { EventMetadata, EventStore, Position } from '../../src/event-store/port.ts';
import type { Decider } from '../../src/stream.ts';

export interface IdentityDeps {
  store: EventStore;
  clock: () => Date;
}

/** The lead a chain of merges ends at (deleted or live), or undefined for an id with no lead. */
export async function followLead(store: EventStore, leadId: string): Promise<LeadState | undefined> {
  let id = leadId;
  for (let hops = 0; hops < 100; hops++) {
    const { state } = await loadState(store, leadStream.name(id), leadStream);
    if (state.status === 'none') return undefined;
    if (state.status !== 'merged') return state;
    id = state.mergedInto!;
  }
  throw new Error(`lead ${leadId}: merge chain longer than 100`);
}

export interface Upserted {
  leadId: string;
  /** True when the record made a new lead that is still itself (not merged into an older one). */
  created: boolean;
  state: LeadState;
  /** The last position appended, for read-your-writes. */
  position: Position | undefined;
}

/**
 * The identity engine: a record becomes a new lead or merges into the one it is the same person as.
 * Lookups go through the identity-key streams, not the read model (which lags): a record looks for a
 * live, compatible holder of its keys, strongest first, and merges into it; else it makes a new lead.
 * A new lead's id first claims the record's first free key, so records of one person at once join
 * the one lead whose claim landed. Then the lead claims each of its keys; a key another lead already
 * holds means both are the same person, and the younger is folded into the older. So records of one
 * person arriving at once (20 rows of a run) end as one lead whatever the interleaving;
 * docs/leads-and-sequences.md tells the design.
 */
export class LeadIdentity {
  private position: Position | undefined;

  constructor(
    private readonly deps: IdentityDeps,
    private readonly organizationId: string,
    private readonly metadata: EventMetadata,
  ) {}

  async upsert(data: LeadData): Promise<Upserted> {
    const keys = identityKeys(data);
    if (keys.length === 0) throw new Error('a record without identity keys cannot be a lead');
    for (let attempt = 0; attempt < 20; attempt++) {
      const found = await this.find(keys, data);
      let leadId: string;
      if (found.into) leadId = found.into;
      else {
        leadId = newLeadId();
        // The id is claimed before the lead exists: of records of one person arriving at once, one
        // claim lands and the others join its lead, so no lead is made only to be folded afterwards
        // (a row's cell would name the folded one). With no key free (each held by a deleted or an
        // incompatible lead) the lead is made at once, and claimKeys below sorts its keys out.
        if (found.free !== undefined && (await this.claim(found.free, leadId)) !== leadId) continue;
      }
      const result = await this.command(leadId, createOrMergeLead, {
        leadId,
        organizationId: this.organizationId,
        data,
      });
      // Merged or deleted meanwhile, or edited to another profile: look again.
      if (result.state.status !== 'live' || !compatible(result.state.data, data)) continue;
      const created = result.events.some((e) => e.type === 'LeadCreated');
      const final = await this.claimKeys(leadId, true);
      return {
        leadId: final.id,
        created: created && final.id === leadId,
        state: final,
        position: this.position,
      };
    }
    throw new AppError('conflict', 'The lead kept changing while this record was merged; try again.');
  }

  /**
   * Where a record goes, its keys looked up strongest first: `into`, the first key's live, compatible
   * lead, or the lead a key was claimed for that does not exist yet (its record is about to create it,
   * or its process died first: whoever comes first creates it); else `free`, its first unclaimed key.
   */
  private async find(keys: string[], data: LeadData): Promise<{ into?: string; free?: string }> {
    let free: string | undefined;
    for (const key of keys) {
      const { state } = await loadState(
        this.deps.store,
        leadKeyStream.name(this.organizationId, key),
        leadKeyStream,
      );
      if (state.holder === undefined) {
        free ??= key;
        continue;
      }
      const holder = await followLead(this.deps.store, state.holder);
      if (!holder) return { into: state.holder };
      if (holder.status === 'live' && compatible(holder.data, data)) return { into: holder.id };
    }
    return { free };
  }

  /**
   * Claims every key of the lead; with `bridge`, a key held by another compatible live lead folds the
   * younger of the two into the older, and claiming goes on as the survivor. Answers the lead the
   * record's content ends in.
   */
  async claimKeys(leadId: string, bridge: boolean): Promise<LeadState> {
    let current = leadId;
    for (let round = 0; round < 100; round++) {
      const state = await followLead(this.deps.store, current);
      if (!state) throw new Error(`lead ${current} does not exist`);
      if (state.status !== 'live') return state;
      current = state.id;
      let moved = false;
      for (const key of identityKeys(state.data)) {
        let holderId = await this.claim(key, current);
        if (holderId === current) continue;
        const holder = await followLead(this.deps.store, holderId);
        if (!holder || holder.status === 'deleted') {
          holderId = await this.claim(key, current, holderId);
          continue;
        }
        if (holder.id === current || !bridge || !compatible(holder.data, state.data)) continue;
        const [victim, survivor] = older(holder, state) ? [state, holder] : [holder, state];
        await this.absorb(victim.id, survivor.id);
        current = survivor.id;
        moved = true;
        break;
      }
      if (!moved) return state;
    }
    throw new Error(`lead ${leadId}: identity claims did not settle`);
  }

  /** Marks the victim merged (so nothing more lands on it), then adds what it held to the survivor. */
  private async absorb(victimId: string, survivorId: string): Promise<void> {
    const marked = await handleCommand({
      ...this.options(leadStream.name(victimId)),
      decider: markMergedInto,
      command: { into: survivorId },
    });
    if (marked.appended) this.position = marked.appended.position;
    if (marked.events.length === 0) return;
    const data = marked.state.data;
    let into = survivorId;
    for (let hops = 0; hops < 100; hops++) {
      const { state: merged } = await this.command(into, mergeIntoLead, { data, from: victimId });
      if (merged.status !== 'merged') return;
      into = merged.mergedInto!;
    }
  }

  private async claim(key: string, leadId: string, replacing?: string): Promise<string> {
    const result = await handleCommand({
      ...this.options(leadKeyStream.name(this.organizationId, key)),
      decider: claimKey,
      command: { organizationId: this.organizationId, key, leadId, replacing },
    });
    if (result.appended) this.position = result.appended.position;
    return result.state.holder!;
  }

  private async command<C>(
    leadId: string,
    decider: Decider<LeadState, C, LeadEvent>,
    command: C,
  ): Promise<CommandResult<LeadState, LeadEvent>> {
    const result = await handleCommand({ ...this.options(leadStream.name(leadId)), decider, command });
    if (result.appended) this.position = result.appended.position;
    return result;
  }

  private options(stream: string) {
    return {
      store: this.deps.store,
      stream,
      metadata: this.metadata,
      now: this.deps.clock(),
      maxRetries: 50,
    };
  }
}
