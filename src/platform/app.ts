import { ApolloServer } from '@apollo/server';
import {
  ApolloServerPluginCacheControlDisabled,
  ApolloServerPluginLandingPageDisabled,
} from '@apollo/server/plugin/disabled';
import cors from 'cors';
import type { Express, RequestHandler } from 'express';
import type { GraphQLSchema } from 'graphql';
import type { RequestListener } from 'node:http';
import type { RequestContext } from '../context/request-context.js';
import { appErrorOf, causeOf, HttpError } from '../kernel/errors.js';
import { compiledExecution } from '../graphql/executor.js';
import { errorFormatter } from '../graphql/format-error.js';
import { graphqlHandler } from '../graphql/http-handler.js';
import { GRAPHQL_LIMITS, limitsPlugin } from '../graphql/limits.js';
import { Operations } from '../graphql/operations.js';
import { chain, requestContexts, sendError, type GraphQLOperationLog } from '../http/edge.js';
import { bodyErrors, jsonBody, readCsvBody, readJsonBody } from '../http/body.js';
import { probesApp, type ProbeParts } from '../http/probes.js';
import { errorFields } from '../observability/logger.js';
import { endServerSpan, operationSpan, serverSpan, tracingOn } from '../observability/tracing.js';
import { restHandlers, type CompiledRoute } from '../rest/compile.js';
import { docsRouter } from '../rest/docs.js';
import { ingressHandler } from '../rest/ingress.js';
import type { IngressRoute } from '../rest/route.js';
import { DEMO_LOGINS, DEMO_PASSWORD } from '../seed/demo.js';
import { VERSION } from '../config/version.js';
import { explorerPage, webRouter } from '../web/serve.js';

export interface AppParts extends ProbeParts {
  schema: GraphQLSchema;
  routes: CompiledRoute[];
  ingress: IngressRoute[];
  /** The OpenAPI document, made when first asked for. */
  openapi: () => object;
}

/** A batch holds at most GRAPHQL_LIMITS.batch operations; an empty one is no request. */
const batchLimit: RequestHandler = (req, res, next) => {
  if (!Array.isArray(req.body)) return next();
  if (req.body.length >= 1 && req.body.length <= GRAPHQL_LIMITS.batch) return next();
  const message =
    req.body.length === 0
      ? 'The batch holds no operation.'
      : `A batch holds at most ${GRAPHQL_LIMITS.batch} operations.`;
  res.status(400).json({ errors: [{ message, extensions: { code: 'QUERY_TOO_COMPLEX', http: { status: 400 } } }] });
};

/** The API's Express app: the probes, then the web interface, docs, the REST table and /graphql. */
export async function createApp(
  parts: AppParts,
): Promise<{ app: Express; listener: RequestListener; apollo: ApolloServer<RequestContext> }> {
  const { services, schema, routes, log, metrics } = parts;
  const context = requestContexts(services.contexts);
  // Both APIs admit, compile and run their operations through one executor (src/graphql/operations.ts).
  const operations = new Operations(services.limits);

  const apollo = new ApolloServer<RequestContext>({
    // The schema as is; a document that repeats runs compiled (src/graphql/executor.ts).
    gateway: compiledExecution<RequestContext>(schema, operations),
    allowBatchedHttpRequests: true,
    // Shutdown is ours (src/main.ts): HTTP drains first, embedded PostgreSQL stops last.
    stopOnTerminationSignals: false,
    includeStacktraceInErrorResponses: false,
    parseOptions: { maxTokens: GRAPHQL_LIMITS.tokens },
    formatError: errorFormatter(schema),
    plugins: [
      ApolloServerPluginLandingPageDisabled(),
      // No cache hints are given; the plugin would wrap every field's resolver to read them.
      ApolloServerPluginCacheControlDisabled(),
      limitsPlugin(operations),
      {
        async requestDidStart({ contextValue }) {
          // Traced: a span per operation, inside the request's (observability/tracing.ts).
          const span = tracingOn() ? operationSpan(contextValue.trace) : undefined;
          return {
            async didResolveOperation({ contextValue, operation, operationName }) {
              if (!operation) return;
              span?.updateName(`${operation.operation} ${operationName ?? 'anonymous'}`);
              span?.setAttributes({
                'graphql.operation.type': operation.operation,
                'graphql.operation.name': operationName ?? '',
              });
              const fields = operation.selectionSet.selections.flatMap((s) =>
                s.kind === 'Field' ? [s.name.value] : [],
              );
              for (const field of fields) metrics.graphqlFields.inc({ type: operation.operation, field });
              contextValue.operations?.push({ operation: operationName ?? null, type: operation.operation, fields });
            },
            async didEncounterErrors({ errors, contextValue, response }) {
              for (const error of errors) {
                const known = appErrorOf(error);
                // The server's side (the database or the provider unavailable): the client is told when to try again.
                if (known && known.status >= 500) {
                  log.warn('graphql error', {
                    requestId: contextValue.requestId,
                    status: known.status,
                    ...errorFields(causeOf(known)),
                  });
                  for (const [name, value] of Object.entries(known.headers))
                    response.http.headers.set(name.toLowerCase(), value);
                }
                // The client's mistakes (our typed errors, GraphQL's own) are in the request line; only the rest is an error.
                if (known || (error.extensions?.code && error.extensions.code !== 'INTERNAL_SERVER_ERROR')) continue;
                {
                  log.error('graphql error', {
                    requestId: contextValue.requestId,
                    ...errorFields(error.originalError ?? error, true),
                  });
                }
              }
            },
            async willSendResponse({ response, contextValue }) {
              span?.end();
              if (response.body.kind !== 'single') return;
              const { singleResult } = response.body;
              for (const error of singleResult.errors ?? []) {
                if (error.extensions?.code === 'INTERNAL_SERVER_ERROR')
                  (error.extensions as Record<string, unknown>).requestId = contextValue.requestId;
              }
              // One rule for the status (docs/design.md, GraphQL errors): a request refused before it ran (no
              // data) answers the status its error names; once it ran, 200 with data and the field errors.
              const status = (singleResult.errors?.[0]?.extensions?.http as { status?: number } | undefined)?.status;
              if (singleResult.data === undefined && typeof status === 'number' && status >= 400)
                response.http.status = status;
            },
          };
        },
      },
    ],
  });
  await apollo.start();

  // The APIs first, straight after the request log (their paths are apart
  // from the probes', the page's and the docs'): a REST row's request goes
  // to its row, a GraphQL request to Apollo, crossing nothing else.
  const first: RequestHandler[] = [];
  // CORS from CORS_ORIGINS (off when empty); a wildcard never comes with credentials.
  if (services.config.corsOrigins.length > 0) {
    const any = services.config.corsOrigins.includes('*');
    const policy = cors({
      origin: any ? '*' : services.config.corsOrigins,
      credentials: !any,
      methods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
      allowedHeaders: ['Authorization', 'Content-Type', 'X-Request-Id', 'Idempotency-Key'],
      exposedHeaders: [
        'X-Request-Id',
        'Retry-After',
        'WWW-Authenticate',
        'Idempotent-Replayed',
        'RateLimit-Policy',
        'RateLimit',
      ],
      maxAge: 600,
    });
    first.push((req, res, next) => (isApiPath(req.path) ? policy(req, res, next) : next()));
  }
  // Traced: each API request a server span, which the outbox hands on to the webhook attempts it causes.
  if (tracingOn()) first.push(traceApiRequests);
  // Provider callbacks before the rows, on their own paths only: their rows alone take form bodies and signatures
  // instead of tokens, and an inbound call's answer waits on no router's walk (docs/call-routing.md).
  first.push(ingressHandler(parts.ingress, services, log));
  const rest = restHandlers({
    routes,
    log,
    context,
    ids: services.ids,
    readBody: readJsonBody(log),
    readCsv: readCsvBody(),
    operations,
  });
  first.push(rest.rows);
  // /graphql as one step: the JSON body rules, the batch limit, Apollo. Browsers that GET it are given the explorer.
  const explorer = explorerPage();
  const graphql = chain([
    ...jsonBody(log),
    batchLimit,
    graphqlHandler(apollo, async (req, res) => {
      const ctx = context(req);
      // Apollo copies the context for each operation of a batch; they all report into this one list.
      ctx.operations = res.locals.graphql = [] as GraphQLOperationLog[];
      return ctx;
    }),
  ]);
  first.push((req, res, next) => {
    if (req.path !== '/graphql' && req.path !== '/graphql/') return next();
    if (req.method === 'GET') return explorer(req, res, () => graphql(req, res, next));
    graphql(req, res, next);
  });
  const { app, listener } = probesApp(parts, first);
  // Browsers get the web interface at `/`; JSON clients where the APIs and their documents are.
  // Development with demo data: the sign-in screen offers the demo logins (never in production, where there are none).
  const { config } = services;
  const demo =
    config.nodeEnv === 'development' && config.seedDemo ? { password: DEMO_PASSWORD, logins: DEMO_LOGINS } : undefined;
  app.use(
    webRouter(
      () => ({
        name: 'Switchboard',
        version: VERSION,
        web: '/',
        graphql: '/graphql',
        rest: '/api',
        docs: '/api/docs',
        openapi: '/api/openapi.json',
      }),
      demo,
    ),
  );
  app.use(docsRouter(parts.openapi));
  // What no row and no callback takes is 404 (or 405) whatever its body: an unknown route's body is never read.
  app.use(rest.unmatched);
  app.use((_req, res) => sendError(res, new HttpError(404, 'Not found.'), res.locals.requestId, log));
  app.use(bodyErrors(log));
  return { app, listener, apollo };
}

/** A server span around each API request (REST rows, /graphql), named by its route once answered. */
const traceApiRequests: RequestHandler = (req, res, next) => {
  const api = req.path.startsWith('/api/') ? undefined : req.path === '/graphql' ? '/graphql' : null;
  if (api === null) return next();
  serverSpan(req.method, req.headers, (span, within) => {
    res.locals.trace = within;
    // Ended by the request log as the answer finishes (http.ts), beside its own line: one listener for both.
    res.locals.endTrace = () =>
      endServerSpan(span, req.method, (res.locals.route as string | undefined) ?? api, res.statusCode);
    next();
  });
};

/** /api and /graphql, and every path under them. */
const isApiPath = (path: string) =>
  path === '/api' || path.startsWith('/api/') || path === '/graphql' || path.startsWith('/graphql/');
