// The parts the events' JSON Schemas are written with (schemas.ts, dialer-schemas.ts).

export type Schema = Record<string, unknown>;

export interface EventSpec {
  properties: Schema;
  required: string[];
  example: Record<string, unknown>;
}

export const str = (description: string, extra: Schema = {}): Schema => ({ type: 'string', description, ...extra });
export const nullable = (schema: Schema): Schema => ({ ...schema, type: [schema.type as string, 'null'] });
export const int = (description: string): Schema => ({ type: 'integer', format: 'int32', description });
export const dateTime = (description: string): Schema => str(description, { format: 'date-time' });
