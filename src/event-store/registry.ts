import type { z } from 'zod';
import type { AnyStreamDefinition, EventSchema, Upcaster } from '../stream.ts';
import { InvalidEventError } from './errors.ts';
import type { EventMetadata, NewEvent, RecordedEvent } from './port.ts';

interface Registration {
  schema: z.ZodType;
  version: number;
  /** upcasters[v] lifts version v to v + 1. */
  upcasters: Record<number, Upcaster>;
}

const registrationOf = (event: EventSchema): Registration =>
  'safeParse' in event ? { schema: event, version: 1, upcasters: {} } : event;

const issuesOf = (error: z.ZodError) =>
  error.issues.map((i) => ({ path: i.path.join('.'), message: i.message }));

/**
 * Type name -> zod schema and schema version, built from the stream definitions of the features
 * (app/modules.ts), never by side effect. Data is validated on append and on read; an event stored
 * under an older version is upcast on read and never rewritten; a type that no stream declares is
 * refused both ways rather than passed through unvalidated.
 */
export class EventRegistry {
  private readonly types = new Map<string, Registration>();
  private readonly byCategory = new Map<string, AnyStreamDefinition>();

  constructor(streams: readonly AnyStreamDefinition[]) {
    for (const stream of streams) {
      if (this.byCategory.has(stream.category))
        throw new Error(`stream category ${stream.category} declared twice`);
      this.byCategory.set(stream.category, stream);
      for (const [type, event] of Object.entries(stream.events)) {
        if (this.types.has(type)) throw new Error(`event type ${type} declared by two streams`);
        this.types.set(type, registrationOf(event));
      }
    }
  }

  has(type: string): boolean {
    return this.types.has(type);
  }

  /** The definition of a category of streams (`column`), for replaying one of its streams. */
  stream(category: string): AnyStreamDefinition | undefined {
    return this.byCategory.get(category);
  }

  categories(): string[] {
    return [...this.byCategory.keys()].sort();
  }

  private registration(type: string): Registration {
    const registration = this.types.get(type);
    if (!registration)
      throw new InvalidEventError(type, [{ path: 'type', message: 'unregistered event type' }]);
    return registration;
  }

  /** Validates a new event and stamps its schema version into the metadata. */
  prepare(event: NewEvent): NewEvent & { metadata: EventMetadata } {
    const registration = this.registration(event.type);
    const parsed = registration.schema.safeParse(event.data);
    if (!parsed.success) throw new InvalidEventError(event.type, issuesOf(parsed.error));
    return {
      ...event,
      data: parsed.data,
      metadata: { ...event.metadata, schemaVersion: registration.version },
    };
  }

  /** Upcasts and validates a stored event. */
  decode<E extends RecordedEvent>(event: E): E {
    const registration = this.registration(event.type);
    let data = event.data;
    let version = Number(event.metadata.schemaVersion ?? 1);
    while (version < registration.version) {
      const up = registration.upcasters[version];
      if (!up) throw new Error(`No upcaster for ${event.type} from version ${version}`);
      data = up(data);
      version++;
    }
    const parsed = registration.schema.safeParse(data);
    if (!parsed.success) throw new InvalidEventError(event.type, issuesOf(parsed.error));
    return { ...event, data: parsed.data };
  }
}
