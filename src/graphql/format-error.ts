import { GraphQLError, isEnumType, type GraphQLFormattedError, type GraphQLSchema } from 'graphql';
import { inWords } from '../kernel/messages.js';
import { appErrorOf } from '../kernel/errors.js';
import { tooManyTokens } from './limits.js';

// GraphQL's side of the error model: our typed errors keep their code, status
// and field errors; Apollo's own client errors (parse, validation, bad
// variables) pass through; anything else is masked.

const CLIENT_CODES = new Set([
  'QUERY_TOO_COMPLEX',
  'RATE_LIMITED',
  'UNPROCESSABLE',
  'GRAPHQL_PARSE_FAILED',
  'GRAPHQL_VALIDATION_FAILED',
  'BAD_USER_INPUT',
  'BAD_REQUEST',
  'OPERATION_RESOLUTION_FAILURE',
  'PERSISTED_QUERY_NOT_FOUND',
  'PERSISTED_QUERY_NOT_SUPPORTED',
]);

export function formatGraphQLError(
  formatted: GraphQLFormattedError,
  error: unknown,
  requestId?: string,
): GraphQLFormattedError {
  const known = appErrorOf(error);
  if (known) {
    return {
      message: known.message,
      locations: formatted.locations,
      path: formatted.path,
      extensions: known.toExtensions(),
    };
  }
  const overLimit = error instanceof GraphQLError ? tooManyTokens(error) : undefined;
  if (overLimit) return { message: overLimit.message, extensions: overLimit.extensions };
  const code = formatted.extensions?.code;
  if (typeof code === 'string' && CLIENT_CODES.has(code)) {
    const status = (error as { extensions?: { http?: { status?: number } } }).extensions?.http?.status ?? 400;
    return { ...formatted, extensions: { ...formatted.extensions, code, http: { status } } };
  }
  return {
    message: 'Server error.',
    path: formatted.path,
    extensions: { code: 'INTERNAL_SERVER_ERROR', http: { status: 500 }, ...(requestId ? { requestId } : {}) },
  };
}

/**
 * formatGraphQLError for one schema: graphql-js's refusal of a value outside
 * an enum names the value and the enum; this adds the values it accepts.
 */
export function errorFormatter(
  schema: GraphQLSchema,
): (formatted: GraphQLFormattedError, error: unknown, requestId?: string) => GraphQLFormattedError {
  const accepted = new Map<string, string>();
  for (const type of Object.values(schema.getTypeMap())) {
    if (isEnumType(type) && !type.name.startsWith('__'))
      accepted.set(type.name, inWords(type.getValues().map((value) => value.name)));
  }
  return (formatted, error, requestId) => {
    const result = formatGraphQLError(formatted, error, requestId);
    const enumName = /does not exist in "(\w+)" enum\./.exec(result.message)?.[1];
    const values = enumName ? accepted.get(enumName) : undefined;
    if (!values) return result;
    const message = `${result.message.replace(/ Did you mean [^?]*\?$/, '')} ${enumName} accepts ${values}.`;
    return { ...result, message };
  };
}
