import { GraphQLJSONObject } from 'graphql-scalars';
import type { GraphQLScalarType } from 'graphql';
import { Field, Float, ID, Int, InterfaceType, ObjectType } from 'type-graphql';
import { EVENT_DOCS } from '../events/catalog.js';
import { typeNameOf as pascal } from '../kernel/vocabulary.js';
import { closedSetOf, WebhookEvent } from './enums.js';
import { CallDecisionType } from './decision.types.js';

// The live events, typed from the event catalog: an interface, LiveEvent,
// with what every event has (its untyped `data` too, as webhooks carry it),
// and one type per event (CallEndedEvent, ...) whose `details` are the
// event's data with a GraphQL type per field, named in camelCase
// (call_duration is callDuration). Generated from the same JSON Schemas as
// the webhook payloads, so the two cannot drift.

type Schema = Record<string, unknown>;

export const camel = (key: string) => key.replace(/_([a-z0-9])/g, (_match, c: string) => c.toUpperCase());

/**
 * Objects of known keys an event's data carries, by their schema's title:
 * the same GraphQL type wherever the thing is served (a call's decision in
 * call.started as in liveCalls and callDetails).
 */
const NAMED_TYPES: Record<string, Function> = { CallDecision: CallDecisionType };

/** The GraphQL type of a field of an event's data, from its JSON Schema. */
function fieldType(
  schema: Schema,
): () =>
  | GraphQLScalarType
  | BooleanConstructor
  | StringConstructor
  | [StringConstructor]
  | Record<string, string>
  | Function {
  const types = (Array.isArray(schema.type) ? schema.type : [schema.type]).filter((t) => t !== 'null');
  // A closed set of strings is the GraphQL enum of the same values (src/kernel/vocabulary.ts); one without is a defect.
  if (types[0] === 'string' && Array.isArray(schema.enum)) {
    const set = closedSetOf(schema.enum);
    if (!set)
      throw new Error(
        `No GraphQL enum has the values ${JSON.stringify(schema.enum)}: declare them in src/kernel/vocabulary.ts`,
      );
    return () => set;
  }
  switch (types[0]) {
    case 'integer':
      return () => Int;
    case 'number':
      return () => Float;
    case 'boolean':
      return () => Boolean;
    case 'array':
      return () => [String];
    case 'object': {
      const named = NAMED_TYPES[schema.title as string];
      return named ? () => named : () => GraphQLJSONObject;
    }
    default:
      return () => String;
  }
}

@InterfaceType('LiveEvent', {
  description:
    'An event of the company as it happens: the same events webhooks deliver. Each event type is a type of its own (CallEndedEvent, ...) with typed details.',
  resolveType: (value: { type: string }) => `${pascal(value.type)}Event`,
})
export abstract class LiveEventInterface {
  @Field(() => ID) id!: string;
  @Field(() => WebhookEvent) type!: string;
  @Field() occurredAt!: Date;
  @Field(() => GraphQLJSONObject, { description: "The event's data, as a webhook payload's data (without contact)" })
  data!: Record<string, unknown>;
  @Field(() => GraphQLJSONObject, { nullable: true, description: 'The contact the event concerns, every field' })
  contact!: Record<string, unknown> | null;
}

/** Every event's type (for the schema: they are reached through the interface only). */
export const LIVE_EVENT_TYPES: Function[] = EVENT_DOCS.map((doc) => {
  const properties = Object.entries(doc.schema.properties as Record<string, Schema>).filter(
    ([key]) => key !== 'contact',
  );
  const required = new Set(doc.schema.required as string[]);
  const details = class {};
  for (const [key, property] of properties) {
    const nullable = !required.has(key) || (Array.isArray(property.type) && property.type.includes('null'));
    Field(fieldType(property), { nullable, description: property.description as string | undefined })(
      details.prototype,
      camel(key),
    );
  }
  ObjectType(`${pascal(doc.name)}Data`, { description: `The data of ${doc.name}, typed` })(details);
  const event = class extends LiveEventInterface {};
  Field(() => details, { description: `${doc.description}: the data, typed` })(event.prototype, 'details');
  ObjectType(`${pascal(doc.name)}Event`, {
    implements: LiveEventInterface,
    description: `${doc.name}: ${doc.description}`,
  })(event);
  return event;
});

const camelKeys = (data: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(data).map(([key, value]) => [camel(key), value]));

/** The keys of each event's data that hold an object of a named type (whose keys are camelCased too). */
const NAMED_KEYS = new Map<string, string[]>(
  EVENT_DOCS.map((doc) => [
    doc.name,
    Object.entries(doc.schema.properties as Record<string, Schema>)
      .filter(([, property]) => NAMED_TYPES[property.title as string])
      .map(([key]) => key),
  ]),
);

/** An event's data with its keys in camelCase, as `details` serves it. */
export function detailsOf(type: string, data: Record<string, unknown>): Record<string, unknown> {
  const details = camelKeys(data);
  for (const key of NAMED_KEYS.get(type) ?? []) {
    const value = data[key];
    if (value && typeof value === 'object') details[camel(key)] = camelKeys(value as Record<string, unknown>);
  }
  return details;
}
