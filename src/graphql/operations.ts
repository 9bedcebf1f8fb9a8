import {
  GraphQLError,
  getVariableValues,
  type DocumentNode,
  type ExecutionResult,
  type GraphQLFieldResolver,
  type GraphQLObjectType,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { compileQuery, isCompiledQuery, type CompilerOptions } from 'graphql-jit';
import type { AuthChecker } from 'type-graphql';
import type { RequestContext } from '../context/request-context.js';
import { checkKey, once, type Answer } from '../db/idempotency.js';
import { HttpError, UnauthenticatedError } from '../kernel/errors.js';
import { pointsOf, type ApiLimits, type LimitHeaders } from '../limits/budgets.js';
import { liftInputLiterals } from './lift.js';

// The one way an operation runs, whichever API asked for it: a REST row and a
// /graphql request each come here to be admitted (the caller's rate limits
// charged, and a refused input answered only after who calls is known), to
// be compiled once (graphql-jit), to run each root field in a unit of work
// of its own, and to run once per Idempotency-Key. The
// REST table and Apollo differ only in how they read a request and write its
// answer (docs/architecture.md, "A request's path").

export type Run = (
  context: unknown,
  variables: Record<string, unknown> | undefined,
) => Promise<ExecutionResult> | ExecutionResult;

export interface CompileOptions {
  /** How the answer writes enum values (REST: the values, not the names). */
  serializers?: CompilerOptions['customSerializers'];
  /** Variables checked by graphql-js first, for its messages (a client's document; a REST row's are checked already). */
  checkVariables?: boolean;
}

/** Carries a result with errors out of an idempotent write's transaction, which it rolls back. */
export class Refused extends Error {
  constructor(readonly result: ExecutionResult) {
    super('refused');
  }
}

/**
 * One operation of a document compiled with graphql-jit: the same resolvers,
 * errors and serialization as graphql-js, without walking the document per
 * request. Inputs written as literals around variables are lifted into one
 * variable first (./lift.ts). Throws when graphql-jit cannot take it.
 */
export function compileOperation(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  options: CompileOptions = {},
): Run {
  const lifted = liftInputLiterals(schema, document);
  const compiled = compileQuery(schema, lifted.document, operation.name?.value, {
    customSerializers: options.serializers ?? {},
  });
  if (!isCompiledQuery(compiled))
    throw new Error(`The operation does not compile: ${compiled.errors?.map((e) => e.message).join('; ')}`);
  const lift = lifted.variables;
  const definitions = operation.variableDefinitions ?? [];
  return (context, variables) => {
    const given = variables ?? {};
    if (options.checkVariables) {
      // graphql-js's check, for its messages (the compiled query coerces the values again).
      const checked = getVariableValues(schema, definitions, given, { maxErrors: 50 });
      if (checked.errors) return { errors: checked.errors };
    }
    return compiled.query(undefined, context, lift ? lift(given) : given);
  };
}

/** Admission, and a write once per key: for the REST rows and /graphql alike. */
export class Operations {
  constructor(
    /** The rate limits (src/limits/); absent or off: nothing is charged. */
    private readonly limits?: ApiLimits,
  ) {}

  /**
   * Admits an operation before it runs: spends its points from the caller's
   * rate limits and gives the fields to answer with (at once when the leases
   * in hand decide; else as a promise). Throws 401 without a signed-in caller,
   * 429 over a budget. `anonymous`: an operation that may run without a
   * caller (signing in over /graphql) spends nothing then. `refused`: the
   * input was refused already; who calls is checked first (401, then 403
   * without `permissions`), so the input's errors go only to one allowed to
   * hear them.
   */
  admit(
    ctx: RequestContext,
    operation: { kind: OperationDefinitionNode['operation']; cost: number; permissions?: readonly string[] },
    { anonymous = false, refused = false }: { anonymous?: boolean; refused?: boolean } = {},
  ): LimitHeaders | undefined | Promise<LimitHeaders | undefined> {
    let headers: LimitHeaders | undefined | Promise<LimitHeaders | undefined> = this.limits?.enabled
      ? this.limits.charge(ctx, pointsOf(operation.kind, operation.cost))
      : undefined;
    if (anonymous && headers instanceof Promise)
      headers = headers.catch((error: unknown) =>
        error instanceof UnauthenticatedError ? undefined : Promise.reject(error),
      );
    if (!refused) return headers;
    return Promise.resolve(headers).then(async (fields) => {
      await ctx.requirePermissions(operation.permissions ?? []);
      return fields;
    });
  }

  /**
   * Runs a write once per Idempotency-Key of the caller's company: `write`
   * runs in the key's transaction and its answer is kept there before the
   * commit; the same key and request again get that answer (`replayed`).
   * A `Refused` thrown by `write` rolls back and keeps nothing.
   */
  once(
    ctx: RequestContext,
    key: string,
    print: string,
    write: (uow: RequestContext) => Promise<Answer>,
  ): Promise<Answer & { replayed: boolean }> {
    return once(ctx, checkKey(key), print, write);
  }

  /** A /graphql mutation under an Idempotency-Key: one root field, its result kept as the answer's JSON. */
  async runOnce(
    ctx: RequestContext,
    request: {
      key: string;
      print: string;
      operation: OperationDefinitionNode;
      /** Where the replay header goes. */
      headers?: { set(name: string, value: string): void };
    },
    run: (uow: RequestContext) => Promise<ExecutionResult> | ExecutionResult,
  ): Promise<ExecutionResult> {
    try {
      if (request.operation.selectionSet.selections.length !== 1)
        throw new HttpError(
          400,
          'An Idempotency-Key covers one mutation field: send each field as a request of its own.',
        );
      const answer = await this.once(ctx, request.key, request.print, async (uow) => {
        const result = await run(uow);
        if (result.errors?.length) throw new Refused(result);
        return { status: 200, body: JSON.stringify(result) };
      });
      if (answer.replayed) request.headers?.set('Idempotent-Replayed', 'true');
      return JSON.parse(answer.body) as ExecutionResult;
    } catch (error) {
      if (error instanceof Refused) return error.result;
      return { errors: [new GraphQLError((error as Error).message, { originalError: error as Error })] };
    }
  }
}

type RootResolver = GraphQLFieldResolver<unknown, RequestContext>;

function wrapFields(type: GraphQLObjectType | null | undefined, wrap: (resolve: RootResolver) => RootResolver): void {
  for (const field of Object.values(type?.getFields() ?? {})) {
    if (field.resolve) field.resolve = wrap(field.resolve as RootResolver);
  }
}

/**
 * The unit of work (docs/design.md §3): each mutation field runs in one
 * transaction of its own, committed once when the field's resolver succeeds
 * and rolled back when it fails; each query field reads in a context of its
 * own. Operations of one batch, or fields of one document, never share a
 * transaction. The caller (the viewer behind the token) is resolved before
 * the transaction opens, so a transaction never waits for a second
 * connection.
 */
export function withUnitsOfWork(schema: GraphQLSchema): void {
  wrapFields(schema.getQueryType(), (resolve) => (root, args, ctx, info) => resolve(root, args, ctx.readOnly(), info));
  wrapFields(
    schema.getMutationType(),
    (resolve) => (root, args, ctx, info) =>
      ctx.unitOfWork((uow) => Promise.resolve(resolve(root, args, uow, info)), {
        oneStatement: ONE_STATEMENT_MUTATIONS.has(info.fieldName),
      }),
  );
}

/**
 * Mutations whose service runs one statement on every path, which
 * decides everything (a rename: found, not the Owner's, title free, changed,
 * or none of it): that statement is their transaction (unitOfWork's
 * `oneStatement`). Kept by the bench's A/B (ADR 0046).
 */
const ONE_STATEMENT_MUTATIONS = new Set(['updateRole']);

/** `@Authorized('slug', ...)`: signed in (else 401) and holding every named permission (else 403), through the request context. */
export const authChecker: AuthChecker<RequestContext> = async ({ context }, permissions) => {
  await context.requirePermissions(permissions as string[]);
  return true;
};
