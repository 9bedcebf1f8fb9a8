import type { ApolloServerOptionsWithGateway, BaseContext } from '@apollo/server';
import {
  execute,
  Kind,
  type DefinitionNode,
  type DocumentNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import type { RequestContext } from '../context/request-context.js';
import { fingerprint } from '../db/idempotency.js';
import { compileOperation, type Operations, type Run } from './operations.js';

// /graphql runs a document it has seen before as a compiled query (graphql-jit),
// the way the REST rows run theirs: the same resolvers and errors, without
// walking the document per request. Apollo keeps doing everything around the
// execution (parsing with its document cache, validation, the limits, error
// formatting, HTTP); this is its executor, given through the one interface
// Apollo Server offers for that (`gateway`).
//
// - A document is compiled on its second use: compiling costs more than one
//   run, and a client's one-off queries (an explorer's, an attacker's) are
//   never compiled. The first run is graphql-js's own `execute`.
// - Compiled queries live as long as Apollo keeps the parsed document in its
//   own bounded cache (a WeakMap keyed by the document), so the number of
//   distinct documents a client sends does not grow memory.
// - Variables are checked by graphql-js first, so a bad variable gets
//   graphql-js's message and Apollo's 400 whichever way the document runs.
// - Inputs written as literals around variables are lifted into one variable
//   (src/graphql/lift.ts): graphql-jit would pass null for an absent field.

interface Seen {
  uses: number;
  /** The compiled run, or null when the operation is one graphql-js runs (a subscription, or one that did not compile). */
  run?: Run | null;
}

/** Only the operation that runs and the fragments: lifting gives each lifted variable to that operation alone. */
function operationOnly(document: DocumentNode, operation: OperationDefinitionNode): DocumentNode {
  const definitions: DefinitionNode[] = document.definitions.filter(
    (d) => d === operation || d.kind === Kind.FRAGMENT_DEFINITION,
  );
  return definitions.length === document.definitions.length ? document : { ...document, definitions };
}

function compile(schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode): Run | null {
  if (operation.operation === 'subscription') return null;
  try {
    return compileOperation(schema, operationOnly(document, operation), operation, { checkVariables: true });
  } catch {
    return null; // a document graphql-jit cannot take keeps running through graphql-js
  }
}

/** Apollo Server's `gateway` option: the schema as is, executed compiled once a document repeats. */
export function compiledExecution<TContext extends BaseContext>(
  schema: GraphQLSchema,
  operations: Operations,
): ApolloServerOptionsWithGateway<TContext>['gateway'] {
  const seen = new WeakMap<DocumentNode, Map<string | null, Seen>>();
  return {
    onSchemaLoadOrUpdate(callback) {
      callback({ apiSchema: schema, coreSupergraphSdl: '' });
      return () => undefined;
    },
    async load() {
      return {
        async executor({ document, operation, operationName, request, context, source, response }) {
          const byName = seen.get(document) ?? seen.set(document, new Map()).get(document)!;
          const entry = byName.get(operationName) ?? byName.set(operationName, { uses: 0 }).get(operationName)!;
          entry.uses += 1;
          if (entry.run === undefined && entry.uses >= 2) entry.run = compile(schema, document, operation);
          const run = (contextValue: unknown) =>
            entry.run
              ? entry.run(contextValue, request.variables)
              : execute({
                  schema,
                  document,
                  contextValue,
                  variableValues: request.variables,
                  operationName: request.operationName,
                });
          const key = operation.operation === 'mutation' ? request.http?.headers.get('idempotency-key') : undefined;
          if (key === undefined || key === null) return run(context);
          const print = fingerprint('POST', '/graphql', {
            query: source,
            operationName,
            variables: request.variables ?? {},
          });
          return operations.runOnce(
            context as unknown as RequestContext,
            { key, print, operation, headers: response?.http?.headers },
            run,
          );
        },
      };
    },
    async stop() {},
  };
}
