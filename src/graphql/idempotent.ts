import { GraphQLError, type ExecutionResult, type OperationDefinitionNode } from 'graphql';
import type { RequestContext } from '../context/request-context.js';
import { checkKey, fingerprint, once } from '../db/idempotency.js';
import { HttpError } from '../kernel/errors.js';

// The Idempotency-Key header on /graphql, as on the REST writes: a mutation
// operation of one root field sent again with the same key gets the first
// result back (Idempotent-Replayed: true) instead of running twice. The
// operation runs in the key's transaction (its field's unit of work joins it),
// and its result is kept there before the commit. A result with errors rolls
// back and keeps nothing, so a retry runs again.

interface KeyedRequest {
  key: string;
  source: string;
  operation: OperationDefinitionNode;
  operationName: string | null;
  variables: Record<string, unknown> | undefined;
  /** Where the replay header goes. */
  headers?: { set(name: string, value: string): void };
}

/** Carries a result with errors out of the transaction, which it rolls back. */
class Refused extends Error {
  constructor(readonly result: ExecutionResult) {
    super('refused');
  }
}

export async function runOnce(
  ctx: RequestContext,
  request: KeyedRequest,
  run: (ctx: RequestContext) => Promise<ExecutionResult> | ExecutionResult,
): Promise<ExecutionResult> {
  try {
    if (request.operation.selectionSet.selections.length !== 1) {
      throw new HttpError(
        400,
        'An Idempotency-Key covers one mutation field: send each field as a request of its own.',
      );
    }
    const print = fingerprint('POST', '/graphql', {
      query: request.source,
      operationName: request.operationName,
      variables: request.variables ?? {},
    });
    const answer = await once(ctx, checkKey(request.key), print, async (uow) => {
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
