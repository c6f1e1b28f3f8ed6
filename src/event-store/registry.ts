import type { z } from 'zod';
import { InvalidEventError } from './errors.ts';
import type { EventMetadata, NewEvent, RecordedEvent } from './port.ts';

/** Turns the data of an older schema version into the next version's shape. */
export type Upcaster = (data: unknown) => unknown;

interface Registration {
  schema: z.ZodType;
  version: number;
  /** upcasters[v] lifts version v to v + 1. */
  upcasters: Record<number, Upcaster>;
}

/**
 * Type name -> zod schema and schema version. Data is validated on append and on read; an event
 * stored under an older version is upcast on read and never rewritten.
 */
export class EventRegistry {
  private readonly types = new Map<string, Registration>();

  register<S extends z.ZodType>(
    type: string,
    schema: S,
    options: { version?: number; upcasters?: Record<number, Upcaster> } = {},
  ): S {
    const existing = this.types.get(type);
    if (existing && existing.schema !== schema) throw new Error(`Event type ${type} registered twice`);
    this.types.set(type, { schema, version: options.version ?? 1, upcasters: options.upcasters ?? {} });
    return schema;
  }

  has(type: string): boolean {
    return this.types.has(type);
  }

  /** Validates a new event and stamps its schema version into the metadata. */
  prepare(event: NewEvent): NewEvent & { metadata: EventMetadata } {
    const registration = this.types.get(event.type);
    if (!registration) {
      throw new InvalidEventError(event.type, [{ path: 'type', message: 'unregistered event type' }]);
    }
    const parsed = registration.schema.safeParse(event.data);
    if (!parsed.success) {
      throw new InvalidEventError(
        event.type,
        parsed.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })),
      );
    }
    return {
      ...event,
      data: parsed.data,
      metadata: { ...event.metadata, schemaVersion: registration.version },
    };
  }

  /** Upcasts and validates a stored event; unknown types (other writers, system events) pass as they are. */
  decode<E extends RecordedEvent>(event: E): E {
    const registration = this.types.get(event.type);
    if (!registration) return event;
    let data = event.data;
    let version = Number(event.metadata.schemaVersion ?? 1);
    while (version < registration.version) {
      const up = registration.upcasters[version];
      if (!up) throw new Error(`No upcaster for ${event.type} from version ${version}`);
      data = up(data);
      version++;
    }
    const parsed = registration.schema.safeParse(data);
    if (!parsed.success) {
      throw new InvalidEventError(
        event.type,
        parsed.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })),
      );
    }
    return { ...event, data: parsed.data };
  }
}

/** The registry every feature registers its events in. */
export const eventRegistry = new EventRegistry();
