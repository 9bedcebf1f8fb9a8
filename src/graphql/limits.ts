import type { ApolloServerPlugin } from '@apollo/server';
import {
  getNamedType,
  getNullableType,
  GraphQLError,
  isListType,
  isObjectType,
  isInterfaceType,
  Kind,
  valueFromASTUntyped,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLNamedType,
  type OperationDefinitionNode,
  type SelectionSetNode,
  visit,
} from 'graphql';
import type { RequestContext } from '../context/request-context.js';
import { AppError, ValidationError } from '../kernel/errors.js';
import { jsonProblem } from '../kernel/validation.js';
import type { Operations } from './operations.js';

// The GraphQL limits of docs/design.md §3, checked before anything executes:
// depth, aliases of one field, a cost where a list costs its page size, and
// the bounds every input value is held to.

export const GRAPHQL_LIMITS = {
  depth: 12,
  aliasesPerField: 50,
  cost: 5_000,
  batch: 10,
  /** A document's size, in GraphQL tokens (the same over HTTP and WebSocket). */
  tokens: 10_000,
  /** What an unpaged list is assumed to hold. */
  listSize: 10,
  defaultPageSize: 15,
  maxPageSize: 100,
} as const;

export class QueryTooComplexError extends GraphQLError {
  constructor(message: string) {
    super(message, { extensions: { code: 'QUERY_TOO_COMPLEX', http: { status: 400 } } });
  }
}

/** graphql-js's refusal of a document over `maxTokens`, as the limit it is. */
export function tooManyTokens(error: GraphQLError): GraphQLError | undefined {
  return /more th\w+ \d+ tokens/.test(error.message)
    ? new QueryTooComplexError(`The query has more than ${GRAPHQL_LIMITS.tokens} tokens.`)
    : undefined;
}

interface Walk {
  fragments: Map<string, FragmentDefinitionNode>;
  variables: Record<string, unknown>;
  aliases: Map<string, number>;
}

const PAGE_ARGS = new Set(['perPage', 'first']);

function pageSizeOf(args: Record<string, unknown>): number | undefined {
  for (const name of PAGE_ARGS) {
    if (name in args) {
      const value = Number(args[name] ?? GRAPHQL_LIMITS.defaultPageSize);
      return Math.min(
        Math.max(Number.isFinite(value) ? value : GRAPHQL_LIMITS.defaultPageSize, 1),
        GRAPHQL_LIMITS.maxPageSize,
      );
    }
  }
  return undefined;
}

/** How a query's cost is counted, as the schema's description and the refusal say it. */
export const COST_RULE =
  `Each object costs 1 and scalar and enum fields nothing; a list of objects costs its page size times what each object costs: the perPage (or first) ` +
  `of the field that pages it, at most ${GRAPHQL_LIMITS.maxPageSize}, or ${GRAPHQL_LIMITS.listSize} ` +
  `when none is given. A query may cost ${GRAPHQL_LIMITS.cost.toLocaleString('en-US')} at most.`;

/** The cost of a selection set; throws when it is too deep or repeats a field too often. */
function costOf(
  set: SelectionSetNode,
  type: GraphQLNamedType,
  depth: number,
  pageSize: number | undefined,
  walk: Walk,
  seen: Set<string>,
): number {
  if (depth > GRAPHQL_LIMITS.depth)
    throw new QueryTooComplexError(`The query is nested more than ${GRAPHQL_LIMITS.depth} levels deep.`);
  let cost = 0;
  for (const selection of set.selections) {
    if (selection.kind === Kind.FIELD) {
      const name = selection.name.value;
      if (name.startsWith('__')) continue;
      const fields = isObjectType(type) || isInterfaceType(type) ? type.getFields() : {};
      const definition = fields[name];
      if (!definition) continue;
      if (selection.alias) {
        const key = `${type.name}.${name}`;
        const count = (walk.aliases.get(key) ?? 0) + 1;
        walk.aliases.set(key, count);
        if (count > GRAPHQL_LIMITS.aliasesPerField) {
          throw new QueryTooComplexError(
            `The query aliases ${name} more than ${GRAPHQL_LIMITS.aliasesPerField} times.`,
          );
        }
      }
      const args: Record<string, unknown> = {};
      for (const arg of selection.arguments ?? [])
        args[arg.name.value] = valueFromASTUntyped(arg.value, walk.variables);
      // A scalar or an enum comes with the object that holds it: only objects cost.
      if (!selection.selectionSet) continue;
      const ownPage = pageSizeOf(args);
      const list = isListType(getNullableType(definition.type));
      const children = costOf(
        selection.selectionSet,
        getNamedType(definition.type),
        depth + 1,
        ownPage ?? (list ? undefined : pageSize),
        walk,
        seen,
      );
      cost += (list ? (pageSize ?? GRAPHQL_LIMITS.listSize) : 1) * (1 + children);
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      cost += costOf(selection.selectionSet, type, depth, pageSize, walk, seen);
    } else {
      const fragment = walk.fragments.get(selection.name.value);
      if (!fragment || seen.has(fragment.name.value)) continue;
      const inner = new Set(seen).add(fragment.name.value);
      cost += costOf(fragment.selectionSet, type, depth, pageSize, walk, inner);
    }
    // Counting stops here: a document of spread fragments could cost more to count than to refuse.
    if (cost > GRAPHQL_LIMITS.cost)
      throw new QueryTooComplexError(
        `The query costs ${cost.toLocaleString('en-US')} or more, over the limit of ${GRAPHQL_LIMITS.cost.toLocaleString('en-US')}. ${COST_RULE}`,
      );
  }
  return cost;
}

/**
 * An operation's cost by its variables, for an operation run again and again
 * (a REST row's): the cost depends only on the variables given as a page size
 * (perPage or first), so it is counted once per page size asked for.
 */
export function costCounter(
  document: DocumentNode,
  operation: OperationDefinitionNode,
  rootType: GraphQLNamedType,
): (variables: Record<string, unknown>) => number {
  const names = new Set<string>();
  visit(document, {
    Argument(node) {
      if (PAGE_ARGS.has(node.name.value) && node.value.kind === Kind.VARIABLE) names.add(node.value.name.value);
    },
  });
  const paging = [...names];
  const costs = new Map<string, number>();
  return (variables) => {
    const key =
      paging.length === 1 ? String(variables[paging[0]]) : paging.map((name) => String(variables[name])).join('|');
    let cost = costs.get(key);
    if (cost === undefined) {
      cost = operationCost(document, operation, rootType, variables);
      if (costs.size < 200) costs.set(key, cost);
    }
    return cost;
  };
}

/**
 * The operation's cost with every page size it takes from a variable at its
 * largest (a REST row's cost at `per_page=100`); throws as operationCost does.
 */
export function largestCost(
  document: DocumentNode,
  operation: OperationDefinitionNode,
  rootType: GraphQLNamedType,
): number {
  const variables: Record<string, unknown> = {};
  visit(document, {
    Argument(node) {
      if (PAGE_ARGS.has(node.name.value) && node.value.kind === Kind.VARIABLE)
        variables[node.value.name.value] = GRAPHQL_LIMITS.maxPageSize;
    },
  });
  return operationCost(document, operation, rootType, variables);
}

/** The operation's cost (COST_RULE); throws when it is over the cost, depth or alias limits. */
export function operationCost(
  document: DocumentNode,
  operation: OperationDefinitionNode,
  rootType: GraphQLNamedType,
  variables: Record<string, unknown>,
): number {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  return costOf(
    operation.selectionSet,
    rootType,
    1,
    undefined,
    { fragments, variables, aliases: new Map() },
    new Set(),
  );
}

/** Throws when the operation is over a limit or carries an unbounded value; returns its cost. */
export function checkOperation(
  document: DocumentNode,
  operation: OperationDefinitionNode,
  rootType: GraphQLNamedType,
  variables: Record<string, unknown>,
): number {
  const cost = countersOf(document, operation, rootType)(variables);
  const problem = jsonProblem(variables);
  if (problem) throw ValidationError.field('variables', `The variables ${problem}.`);
  if (inlineNul(document)) throw ValidationError.field('query', 'The query must not contain a NUL character.');
  return cost;
}

// Apollo keeps one parsed document per query text, so each is looked at once:
// its operations' costs are counted once per page size asked (costCounter),
// a NUL looked for once.
const counters = new WeakMap<OperationDefinitionNode, (variables: Record<string, unknown>) => number>();

function countersOf(
  document: DocumentNode,
  operation: OperationDefinitionNode,
  rootType: GraphQLNamedType,
): (variables: Record<string, unknown>) => number {
  let counter = counters.get(operation);
  if (!counter) counters.set(operation, (counter = costCounter(document, operation, rootType)));
  return counter;
}

const nulChecked = new WeakMap<DocumentNode, boolean>();

function inlineNul(document: DocumentNode): boolean {
  const known = nulChecked.get(document);
  if (known !== undefined) return known;
  let found = false;
  visit(document, {
    StringValue(node) {
      if (node.value.includes('\u0000')) found = true;
    },
  });
  nulChecked.set(document, found);
  return found;
}

/**
 * The Apollo plugin that applies the limits after the operation is known and
 * before it runs, and admits it (./operations.ts: the rate limits charged; an
 * operation without a caller, such as signing in, spends nothing and is
 * refused by its field if it needs one).
 */
export function limitsPlugin(operations: Operations): ApolloServerPlugin<RequestContext> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ document, operation, schema, request, contextValue, response }) {
          if (!operation) return;
          const root =
            operation.operation === 'mutation'
              ? schema.getMutationType()
              : operation.operation === 'subscription'
                ? schema.getSubscriptionType()
                : schema.getQueryType();
          try {
            const cost = root ? checkOperation(document, operation, root, request.variables ?? {}) : 0;
            const headers = await operations.admit(
              contextValue,
              { kind: operation.operation, cost },
              { anonymous: true },
            );
            for (const [name, value] of Object.entries(headers ?? {}))
              response.http.headers.set(name.toLowerCase(), value);
          } catch (error) {
            // Refused before execution: the error carries its status (and its fields, such as Retry-After) for Apollo to answer with.
            if (error instanceof AppError) {
              for (const [name, value] of Object.entries(error.headers))
                response.http.headers.set(name.toLowerCase(), value);
              throw new GraphQLError(error.message, { extensions: error.toExtensions() });
            }
            throw error;
          }
        },
      };
    },
  };
}
