import type { Express, Request, RequestHandler, Response } from 'express';
import { randomUUID } from 'node:crypto';
import { createServer, IncomingMessage, ServerResponse, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { appErrorOf, causeOf } from '../kernel/errors.js';
import { errorFields, type Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import type { ContextFactory, RequestContext } from '../context/request-context.js';
import type { TraceContext } from '../observability/tracing.js';

// HTTP concerns shared by /api and /graphql: request ids, access logs and
// metrics, the error model, the front door (the body rules: http-body.ts).

const REQUEST_ID = /^[A-Za-z0-9._-]{1,100}$/;

/**
 * The route a request is measured and logged under: a template, never a raw
 * path, so unknown paths cannot grow the metric series.
 */
function routeTemplate(req: Request, rowPath: string | undefined): string {
  if (rowPath) return rowPath;
  const asked = req.originalUrl.split('?')[0];
  if (asked === '/graphql' || asked === '/graphql/') return '/graphql';
  const matched = (req.route as { path?: unknown } | undefined)?.path;
  if (typeof matched === 'string') return matched;
  if (req.path.startsWith('/api/docs/')) return '/api/docs/*';
  return req.path.startsWith('/assets/') && req.res?.statusCode !== 404 ? '/assets/*' : 'unmatched';
}

/** What the request log says of each GraphQL operation of a request (a batch has several). */
export interface GraphQLOperationLog {
  operation: string | null;
  type: string;
  fields: string[];
}

/** One year, subdomains included; never `preload`, which only a domain's owner can ask for. */
export const HSTS = 'max-age=31536000; includeSubDomains';

/** `hsts`: the service is reached over https (PUBLIC_URL), so every answer tells browsers to keep to it. */
export function requestLog(log: Logger, metrics: Metrics, { hsts = false }: { hsts?: boolean } = {}): RequestHandler {
  return (req, res, next) => {
    const incoming = req.header('x-request-id');
    const requestId = incoming && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    res.locals.requestId = requestId;
    res.setHeader('X-Request-Id', requestId);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    if (hsts) res.setHeader('Strict-Transport-Security', HSTS);
    // API answers carry tokens and company data: never stored by a browser or a proxy.
    if (req.path.startsWith('/api/') || req.path === '/graphql') {
      if (!req.path.startsWith('/api/docs')) res.setHeader('Cache-Control', 'no-store');
    }
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const route = routeTemplate(req, res.locals.route as string | undefined);
      metrics.httpDuration.observe({ method: req.method, route, status: String(res.statusCode) }, seconds);
      const graphql = res.locals.graphql as GraphQLOperationLog[] | undefined;
      // A client's mistake (4xx) is the client's: info. Only the service's own failures are errors.
      log[res.statusCode >= 500 ? 'error' : 'info']('request', {
        requestId,
        method: req.method,
        // The path as asked (req.path is relative to a mount point such as /graphql by now).
        path: req.originalUrl.split('?')[0],
        route,
        ...(graphql ? { graphql } : {}),
        status: res.statusCode,
        durationMs: Math.round(seconds * 10_000) / 10,
      });
      // Traced: the request's server span ends with it (app.ts, traceApiRequests).
      (res.locals.endTrace as (() => void) | undefined)?.();
    });
    next();
  };
}

/**
 * Stops an HTTP server without dropping a request a client has already sent.
 * Node's `server.close()` also closes every connection that is not in the
 * middle of a request, including one accepted a moment ago whose request is
 * still unread. So: keep listening (answers say `Connection: close`) until no
 * connection has arrived for `quietMs` and every accepted connection has
 * started its request (or sat silent for a second: a slow client is not
 * waited for); then stop listening, let the requests in progress finish, and
 * after `timeoutMs` close whatever is left.
 */
export async function drainHttpServer(
  server: Server,
  options: { quietMs?: number; timeoutMs?: number } = {},
): Promise<void> {
  const { quietMs = 200, timeoutMs = 10_000 } = options;
  if (!server.listening) return;
  draining.add(server);
  const started = Date.now();
  const silent = new Map<Socket, number>();
  let lastConnection = Date.now();
  const onConnection = (socket: Socket) => {
    lastConnection = Date.now();
    silent.set(socket, lastConnection);
    socket.once('close', () => silent.delete(socket));
  };
  const onRequest = (req: IncomingMessage) => silent.delete(req.socket);
  server.on('connection', onConnection);
  server.on('request', onRequest);
  for (;;) {
    const now = Date.now();
    const waiting = [...silent.values()].some((since) => now - since < 1000);
    if ((!waiting && now - lastConnection >= quietMs) || now - started >= timeoutMs / 2) break;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  server.off('connection', onConnection);
  server.off('request', onRequest);
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  const idle = setInterval(() => server.closeIdleConnections(), 100);
  const deadline = setTimeout(() => server.closeAllConnections(), Math.max(0, timeoutMs - (Date.now() - started)));
  await closed;
  clearInterval(idle);
  clearTimeout(deadline);
}

const draining = new WeakSet<Server>();

/** While `server` drains, every answer says `Connection: close`. */
export const closeWhenDraining =
  (server: Server): RequestHandler =>
  (_req, res, next) => {
    if (draining.has(server)) res.setHeader('Connection', 'close');
    next();
  };

const adopters = new WeakMap<Server, (app: Express) => void>();

/**
 * An HTTP server whose requests and responses are made as an Express app's
 * from the start, once the app is known (`adoptApp`): each is an instance
 * of a class of this server's own whose prototype inherits the app's. The
 * front door then has no prototype to change per request, as Express does:
 * V8 gives an object whose prototype changes a shape of its own after it
 * was made, which costs the change itself and every piece of code that
 * meets the object under both shapes (Node's own stream and HTTP code).
 */
export function appServer(): Server {
  class AppRequest extends IncomingMessage {}
  class AppResponse extends ServerResponse<AppRequest> {}
  const server = createServer({ IncomingMessage: AppRequest, ServerResponse: AppResponse }) as unknown as Server;
  adopters.set(server, (app) => {
    Object.setPrototypeOf(AppRequest.prototype, app.request);
    Object.setPrototypeOf(AppResponse.prototype, app.response);
  });
  return server;
}

/** Makes `server`'s requests and responses `app`'s (appServer); false when the server was not made so. */
export function adoptApp(server: Server, app: Express): boolean {
  const adopt = adopters.get(server);
  adopters.delete(server);
  adopt?.(app);
  return adopt !== undefined;
}

const PASSED_ON = Symbol('passed on by the front door');

/** A request to the APIs (REST under /api, /graphql), by its URL as it came: the front door's (`isFront`). */
export const isApiUrl = (url: string) =>
  url.startsWith('/api/') || url === '/graphql' || url.startsWith('/graphql?') || url.startsWith('/graphql/');

/**
 * The server's request listener, and the app's first layer, for handlers
 * (`front`) that answer most requests on their own: a request `isFront`
 * picks goes to them straight away, made ready as Express makes every
 * request ready (its request and response prototypes, `res.locals`, the
 * original URL; `adopted`: the server made them with the app's prototypes
 * already, appServer) but without the router's walk of its layers; whatever they
 * pass on (`next()`, or an error) goes on into the app, whose first layer
 * lets it through (or on to its error handlers). Any other request goes to
 * the app, whose first layer runs `front` for it.
 */
export function frontDoor(
  app: Express,
  front: RequestHandler,
  isFront: (url: string) => boolean,
  adopted = false,
): { layer: RequestHandler; listener: (req: IncomingMessage, res: ServerResponse) => void } {
  const layer: RequestHandler = (req, res, next) => {
    const passed = (res.locals as Record<symbol, { error?: unknown } | undefined>)[PASSED_ON];
    if (passed) return next(passed.error);
    front(req, res, next);
  };
  const listener = (incoming: IncomingMessage, outgoing: ServerResponse) => {
    if (!isFront(incoming.url ?? '')) return void app(incoming, outgoing);
    const req = incoming as Request;
    const res = outgoing as Response;
    req.res = res;
    res.req = req;
    if (!adopted) {
      Object.setPrototypeOf(req, app.request);
      Object.setPrototypeOf(res, app.response);
    }
    res.locals = Object.create(null) as Response['locals'];
    req.originalUrl = req.url;
    req.baseUrl = '';
    req.params = {};
    front(req, res, (error?: unknown) => {
      (res.locals as Record<symbol, { error?: unknown }>)[PASSED_ON] = { error };
      app(req, res);
    });
  };
  return { layer, listener };
}

/**
 * Handlers run one after another as one: each one's `next()` runs the
 * following, an error (thrown, or a promise's rejection) goes to the app's
 * error handlers. One router layer instead of one each: the router's walk
 * and matching for every layer is work a request does for each.
 */
export function chain(handlers: RequestHandler[]): RequestHandler {
  return (req, res, next) => {
    let at = 0;
    const step = (error?: unknown): void => {
      if (error) return next(error);
      const handler = handlers[at++];
      if (!handler) return next();
      try {
        const running = handler(req, res, step) as unknown;
        if (running instanceof Promise) running.catch(next);
      } catch (thrown) {
        next(thrown);
      }
    };
    step();
  };
}

/**
 * A JSON answer of the APIs, written as is: the body's text in the same
 * write as the headers, and no ETag (API answers are `no-store`: nothing
 * revalidates them, and hashing every body would be work for no one).
 * `text`: the body already serialized.
 */
export function sendJson(res: Response, status: number, body: unknown, text: string = JSON.stringify(body)): void {
  sendText(res, status, 'application/json; charset=utf-8', text);
}

/** An API answer's text of `contentType`, written as sendJson writes JSON (a provider's instruction: rest/ingress.ts). */
export function sendText(res: Response, status: number, contentType: string, text: string): void {
  res.statusCode = status;
  res.setHeader('Content-Type', contentType);
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(res.req.method === 'HEAD' ? undefined : text);
}

// The error model's answer over HTTP (REST routes, the JSON body parser,
// the last-resort handler): one place turns any error into the status and
// body the design names.

export function sendError(res: Response, error: unknown, requestId: string, log: Logger): void {
  const known = appErrorOf(error);
  if (known) {
    // The server's side (the database or the provider unavailable): the client is told to try again, the operator why.
    if (known.status >= 500)
      log.warn('request failed', { requestId, status: known.status, ...errorFields(causeOf(known)) });
    for (const [name, value] of Object.entries(known.headers)) res.setHeader(name, value);
    sendJson(res, known.status, {
      success: false,
      message: known.message,
      ...(known.fieldErrors ? { errors: known.fieldErrors } : {}),
    });
    return;
  }
  log.error('request failed', { requestId, ...errorFields(error, true) });
  sendJson(res, 500, { success: false, message: 'Server error.', request_id: requestId });
}

/** The token of an `Authorization: Bearer <token>` header. */
export const bearerOf = (req: Request) => /^Bearer\s+(\S+)$/i.exec(req.header('authorization') ?? '')?.[1];

/** The context of a request: its id, its address and its Bearer token, whoever answers it (REST or GraphQL). */
export function requestContexts(contexts: ContextFactory): (req: Request) => RequestContext {
  return (req) =>
    contexts.forRequest(
      req.res!.locals.requestId as string,
      req.ip ?? 'unknown',
      bearerOf(req),
      req.res!.locals.trace as TraceContext | undefined,
    );
}
