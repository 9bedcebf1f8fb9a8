import {
  getOperationAST,
  GraphQLError,
  parse,
  validate,
  type ExecutionArgs,
  type GraphQLFormattedError,
  type GraphQLSchema,
  type OperationTypeNode,
} from 'graphql';
import { CloseCode, handleProtocols, makeServer, type Context, type SubscribePayload } from 'graphql-ws';
import type { IncomingMessage, Server } from 'node:http';
import { randomUUID } from 'node:crypto';
import { WebSocketServer, type WebSocket } from 'ws';
import type { RequestContext } from '../context/request-context.js';
import { pointsOf } from '../limits/budgets.js';
import { errorFields, type Logger } from '../observability/logger.js';
import type { Services } from '../composition.js';
import { errorFormatter } from './format-error.js';
import { GRAPHQL_LIMITS, QueryTooComplexError, checkOperation, tooManyTokens } from './limits.js';

// GraphQL subscriptions over WebSocket (the graphql-ws protocol) on /graphql,
// under the rules /graphql over HTTP keeps:
// - A message is at most WS_LIMITS.message bytes (the HTTP body limit), and
//   at most WS_LIMITS.beforeInit until the connection is authenticated; ws
//   refuses a longer one while reading it (close 1009), before anything parses it.
// - The token comes once, in the init payload ({ "authorization": "Bearer ..." });
//   without a valid one within WS_LIMITS.initTimeoutMs the connection closes (4403, 4408).
// - Each subscribe is parsed (at most GRAPHQL_LIMITS.tokens tokens), validated
//   and held to the depth, alias and cost limits before it runs; a refused one
//   is answered with an `error` message and the connection lives on.
// - At most WS_LIMITS.subscriptions live subscriptions per connection.
// Our own adapter of graphql-ws's server to ws (instead of its `useServer`),
// so every failure is a log line of ours and never a console trace.

export const WS_LIMITS = {
  message: 1024 * 1024,
  beforeInit: 16 * 1024,
  initTimeoutMs: 10_000,
  subscriptions: 10,
  keepAliveMs: 12_000,
} as const;

type Extra = {
  socket: WebSocket;
  request: IncomingMessage;
  /** Subscribe ids holding a slot: admitted and not yet complete. */
  slots: Set<string>;
};

const bearerOf = (params: Readonly<Record<string, unknown>> | undefined) => {
  const value = params?.authorization ?? params?.Authorization;
  return typeof value === 'string' ? /^Bearer\s+(\S+)$/i.exec(value)?.[1] : undefined;
};

/**
 * ws reads a message up to the server's `maxPayload`; the limit lives on the
 * socket's receiver, which ws exposes to no API. Lowered until the connection
 * is acknowledged, when present; the test of WS_LIMITS.beforeInit fails if a
 * ws upgrade moves it.
 */
const setReadLimit = (socket: WebSocket, bytes: number) => {
  const receiver = (socket as unknown as { _receiver?: { _maxPayload?: number } })._receiver;
  if (receiver && typeof receiver._maxPayload === 'number') receiver._maxPayload = bytes;
};

/** The codes Apollo gives the same refusals over HTTP. */
const coded = (error: GraphQLError, code: string) =>
  new GraphQLError(error.message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    extensions: { code },
  });

/** Parses, validates and limits one subscribe: the execution's arguments, or the errors to answer with. */
export function admitOperation(schema: GraphQLSchema, payload: SubscribePayload): Admitted | readonly GraphQLError[] {
  if (typeof payload.query !== 'string')
    return [new GraphQLError('The subscribe payload needs a query string.', { extensions: { code: 'BAD_REQUEST' } })];
  let document;
  try {
    document = parse(payload.query, { maxTokens: GRAPHQL_LIMITS.tokens });
  } catch (error) {
    if (!(error instanceof GraphQLError)) throw error;
    return [tooManyTokens(error) ?? coded(error, 'GRAPHQL_PARSE_FAILED')];
  }
  const invalid = validate(schema, document);
  if (invalid.length > 0) return invalid.map((error) => coded(error, 'GRAPHQL_VALIDATION_FAILED'));
  const operation = getOperationAST(document, payload.operationName);
  if (!operation) return [new GraphQLError('Unable to identify operation.', { extensions: { code: 'BAD_REQUEST' } })];
  const root =
    operation.operation === 'mutation'
      ? schema.getMutationType()
      : operation.operation === 'subscription'
        ? schema.getSubscriptionType()
        : schema.getQueryType();
  const variables = payload.variables ?? {};
  let cost = 0;
  try {
    if (root) cost = checkOperation(document, operation, root, variables);
  } catch (error) {
    if (error instanceof GraphQLError) return [error];
    throw error;
  }
  return {
    args: { schema, document, operationName: payload.operationName, variableValues: variables },
    kind: operation.operation,
    cost,
  };
}

/** A subscribe let through: its execution's arguments, and what it costs (src/graphql/limits.ts). */
interface Admitted {
  args: Omit<ExecutionArgs, 'contextValue'>;
  kind: OperationTypeNode;
  cost: number;
}

export function serveSubscriptions(
  server: Server,
  schema: GraphQLSchema,
  services: Services,
  log: Logger,
): { stop(): Promise<void> } {
  const wss = new WebSocketServer({ server, path: '/graphql', maxPayload: WS_LIMITS.message, handleProtocols });
  const ipOf = (extra: Extra) => extra.request.socket.remoteAddress ?? 'unknown';
  const contextOf = (ctx: Context<Record<string, unknown>, Extra>) =>
    services.contexts.forRequest(randomUUID(), ipOf(ctx.extra), bearerOf(ctx.connectionParams));
  const formatError = errorFormatter(schema);
  const format = (errors: readonly GraphQLError[]): GraphQLFormattedError[] =>
    errors.map((error) => formatError(error.toJSON(), error.originalError ?? error));

  const graphqlWs = makeServer<Record<string, unknown>, Extra>({
    schema,
    connectionInitWaitTimeout: WS_LIMITS.initTimeoutMs,
    onConnect: async (ctx) => {
      if (!bearerOf(ctx.connectionParams)) return false;
      try {
        await contextOf(ctx).viewer();
      } catch {
        return false;
      }
      setReadLimit(ctx.extra.socket, WS_LIMITS.message);
      return true;
    },
    onSubscribe: async (ctx, id, payload) => {
      if (ctx.extra.slots.size >= WS_LIMITS.subscriptions) {
        return [new QueryTooComplexError(`A connection holds at most ${WS_LIMITS.subscriptions} subscriptions.`)];
      }
      const admitted = admitOperation(schema, payload);
      if (Array.isArray(admitted)) return admitted as GraphQLError[];
      const { args, kind, cost } = admitted as Admitted;
      const contextValue = contextOf(ctx);
      // The slot is taken before the rate limits are asked (subscribes sent together count against the cap), and given back if they refuse.
      ctx.extra.slots.add(id);
      try {
        // Each subscribe spends from the caller's rate limits, as a request over HTTP does.
        if (services.limits.enabled) await services.limits.charge(contextValue, pointsOf(kind, cost));
      } catch (error) {
        ctx.extra.slots.delete(id);
        if (error instanceof GraphQLError) return [error];
        throw error;
      }
      return { ...args, contextValue: contextValue satisfies RequestContext };
    },
    // A subscribe that did not become a stream (refused by its resolver, or a query) gives its slot back at once.
    onOperation: (ctx, id, _payload, _args, result) => {
      if (!(Symbol.asyncIterator in Object(result))) ctx.extra.slots.delete(id);
    },
    onComplete: (ctx, id) => void ctx.extra.slots.delete(id),
    onNext: (_ctx, _id, _payload, _args, result) =>
      result.errors ? { ...result, errors: format(result.errors) } : undefined,
    onError: (_ctx, _id, _payload, errors) => {
      const formatted = format(errors);
      formatted.forEach(
        (error, i) =>
          error.extensions?.code === 'INTERNAL_SERVER_ERROR' &&
          log.error('subscription error', errorFields(errors[i].originalError ?? errors[i])),
      );
      return formatted;
    },
  });

  // The HTTP server's own errors reach ws too; a listen error is the start's to report (src/config/startup-failure.ts).
  wss.on(
    'error',
    (error) =>
      (error as { syscall?: string }).syscall !== 'listen' && log.error('websocket server error', errorFields(error)),
  );
  wss.on('connection', (socket, request) => {
    setReadLimit(socket, WS_LIMITS.beforeInit);
    // A message over the limit: ws has already closed with 1009; the rest is a line of ours.
    socket.on('error', (error) =>
      log.warn('websocket closed on error', { error: error.message, code: (error as { code?: string }).code }),
    );
    let alive = true;
    socket.on('pong', () => (alive = true));
    const keepAlive = setInterval(() => {
      if (!alive) return socket.terminate();
      alive = false;
      socket.ping();
    }, WS_LIMITS.keepAliveMs);
    const closed = graphqlWs.opened(
      {
        protocol: socket.protocol,
        send: (data) =>
          new Promise<void>((resolve) => {
            if (socket.readyState !== socket.OPEN) return resolve();
            socket.send(data, () => resolve()); // a send that fails means the socket is closing; its close ends everything
          }),
        close: (code, reason) => socket.close(code, reason),
        onMessage: (handle) =>
          socket.on('message', async (data) => {
            try {
              await handle(String(data));
            } catch (error) {
              log.error('subscription message failed', errorFields(error));
              socket.close(CloseCode.InternalServerError, 'Internal server error');
            }
          }),
      },
      { socket, request, slots: new Set() },
    );
    socket.once('close', (code, reason) => {
      clearInterval(keepAlive);
      void closed(code, String(reason)).catch((error) => log.warn('subscription close failed', errorFields(error)));
    });
  });

  return {
    async stop() {
      for (const client of wss.clients) client.close(1001, 'Going away');
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}
