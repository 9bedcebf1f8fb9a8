import { GraphQLScalarType } from 'graphql';
import { GraphQLDateTimeISO } from 'graphql-scalars';
import { isoString } from '../kernel/time/instant.js';

/**
 * The schema's DateTimeISO, as graphql-scalars defines it (name, description,
 * input rules, errors), whose answers of Dates are written by isoString: a
 * page of records serializes every date of every row through here.
 */
export const DateTimeISO = new GraphQLScalarType({
  ...GraphQLDateTimeISO.toConfig(),
  serialize: (value) =>
    value instanceof Date && !Number.isNaN(value.getTime()) ? isoString(value) : GraphQLDateTimeISO.serialize(value),
});
