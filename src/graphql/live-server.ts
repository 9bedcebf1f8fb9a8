import { GraphQLError, type GraphQLSchema } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import type { IncomingMessage, Server } from 'node:http';
import { randomUUID } from 'node:crypto';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Logger } from '../observability/logger.js';
import type { Services } from '../services/index.js';

// GraphQL subscriptions over WebSocket (the graphql-ws protocol) on /graphql.
// The token comes once, in the connection's init payload
// ({ "authorization": "Bearer ..." }); without a valid one the connection is
// closed (4403). Each connection holds at most SUBSCRIPTIONS_PER_CONNECTION.

export const SUBSCRIPTIONS_PER_CONNECTION = 10;

type Extra = {
  socket: WebSocket;
  request: IncomingMessage;
  active?: Set<string>;
};

const bearerOf = (params: Readonly<Record<string, unknown>> | undefined) => {
  const value = params?.authorization ?? params?.Authorization;
  return typeof value === 'string' ? /^Bearer\s+(\S+)$/i.exec(value)?.[1] : undefined;
};

export function serveSubscriptions(server: Server, schema: GraphQLSchema, services: Services, log: Logger): { stop(): Promise<void> } {
  const wss = new WebSocketServer({ server, path: '/graphql' });
  const ipOf = (extra: Extra) => extra.request.socket.remoteAddress ?? 'unknown';
  const context = (params: Readonly<Record<string, unknown>> | undefined, extra: Extra) => services.contexts.forRequest(randomUUID(), ipOf(extra), bearerOf(params));
  const disposable = useServer<Record<string, unknown>, Extra>(
    {
      schema,
      connectionInitWaitTimeout: 10_000,
      onConnect: async (ctx) => {
        if (!bearerOf(ctx.connectionParams)) return false;
        try {
          await context(ctx.connectionParams, ctx.extra).viewer();
          return true;
        } catch {
          return false;
        }
      },
      context: (ctx) => context(ctx.connectionParams, ctx.extra),
      onSubscribe: (ctx, id) => {
        const active = (ctx.extra.active ??= new Set());
        if (active.size >= SUBSCRIPTIONS_PER_CONNECTION) {
          return [new GraphQLError(`A connection holds at most ${SUBSCRIPTIONS_PER_CONNECTION} subscriptions.`, { extensions: { code: 'QUERY_TOO_COMPLEX' } })];
        }
        active.add(id);
      },
      onComplete: (ctx, id) => void ctx.extra.active?.delete(id),
      onError: (_ctx, _id, _payload, errors) => {
        for (const error of errors) if (!error.extensions?.code) log.warn('subscription error', { error: error.message });
      },
    },
    wss,
  );
  return {
    async stop() {
      for (const client of wss.clients) client.close(1001, 'Going away');
      await disposable.dispose();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}
