import {
  isEnumType,
  parse,
  validate,
  type DocumentNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { costCounter, largestCost } from '../graphql/limits.js';
import { compileOperation, type Operations, type Run } from '../graphql/operations.js';
import { getMetadataStorage } from 'type-graphql';
import { resolveRoute } from './derive.js';
import type { HttpMethod, ResolvedRoute, Route } from './route.js';
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import type { RequestContext } from '../context/request-context.js';
import { HttpError, NotFoundError, ValidationError } from '../kernel/errors.js';
import type { IdCodec } from '../kernel/ids.js';
import type { Logger } from '../observability/logger.js';
import { sendError, sendJson } from '../http/edge.js';
import { recordName, restErrorOf, variablesFor } from './params.js';
import { fingerprint } from '../db/idempotency.js';
import { recordOwned } from '../repositories/common.js';

// At start, each row's operation is parsed and validated against the schema
// (a row that does not fit stops the start); at its first request it is
// compiled (graphql-jit: the same resolvers, errors and serialization, without
// walking the document per request). Rows are found by Express's router and
// served by the one generic REST handler: read the row's parameters, run its
// operation in-process, shape the result.

export interface CompiledRoute {
  /** The row, its parameters completed from the operation's variables. */
  route: ResolvedRoute;
  method: HttpMethod;
  path: string;
  document: DocumentNode;
  /** The operation, compiled once. */
  run: Run;
  /** The REST body made from the root field's value. */
  shape: (value: unknown) => unknown;
  /** Permissions the operation's root field requires (read from its @Authorized). */
  permissions: string[];
  /** A query or a mutation, and its GraphQL cost with these variables (what the rate limits charge). */
  kind: OperationDefinitionNode['operation'];
  cost: (variables: Record<string, unknown>) => number;
}

/** The body of a row's answer: the root field's value as is, or in the spec's envelope. */
function shaper(route: Route): (value: unknown) => unknown {
  const { response } = route;
  if (response.spread) {
    const key = response.spread;
    const envelope = shaper({ ...route, response: { ...response, spread: undefined } });
    return (value) => {
      const { [key]: inner, ...rest } = value as Record<string, unknown>;
      return envelope({ ...(inner as object), ...rest });
    };
  }
  if (response.shape === 'plain') return (value) => value;
  const { message } = response;
  if (response.data)
    return message ? (data) => ({ success: true, message, data }) : (data) => ({ success: true, data });
  const body = message ? { success: true, message } : { success: true };
  return () => body;
}

/**
 * REST answers with each enum's values (`in-progress`, `call.ended`), as the
 * spec and the webhooks write them, where GraphQL answers with their names.
 */
function enumValues(schema: GraphQLSchema): Record<string, (value: unknown) => unknown> {
  const serializers: Record<string, (value: unknown) => unknown> = {};
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isEnumType(type)) continue;
    const values = new Set(type.getValues().map((v) => v.value));
    serializers[type.name] = (value) => {
      if (!values.has(value))
        throw new TypeError(`Enum "${type.name}" cannot represent value: ${JSON.stringify(value)}`);
      return value;
    };
  }
  return serializers;
}

/** Permission slugs declared with @Authorized on each root field, by field name. */
export function rootFieldPermissions(): Map<string, string[]> {
  const storage = getMetadataStorage();
  const byField = new Map<string, string[]>();
  for (const handler of [...storage.queries, ...storage.mutations]) {
    const authorized = storage.authorizedFields.find(
      (entry) => entry.target === handler.target && entry.fieldName === handler.methodName,
    );
    if (authorized) byField.set(handler.schemaName, [...(authorized.roles as string[])]);
  }
  return byField;
}

/** `eager`: compile every row now (the generated-files check does, so a row that does not compile fails it). */
export function compileRoutes(
  schema: GraphQLSchema,
  routes: Route[],
  options: { eager?: boolean } = {},
): CompiledRoute[] {
  const permissions = rootFieldPermissions();
  const serializers = enumValues(schema);
  const compiled: CompiledRoute[] = [];
  for (const route of routes) {
    const document = parse(route.document);
    const problems = validate(schema, document);
    if (problems.length > 0) {
      throw new Error(
        `Route ${route.operationId}: its operation does not fit the schema: ${problems.map((p) => p.message).join('; ')}`,
      );
    }
    // A row that needs a token runs a field that checks it (@Authorized): the one permission check of its path.
    if (route.auth !== false && !permissions.has(route.response.field)) {
      throw new Error(
        `Route ${route.operationId}: it needs a token, but its field ${route.response.field} has no @Authorized`,
      );
    }
    const operation = document.definitions[0] as OperationDefinitionNode;
    const fields = operation.selectionSet.selections.map((s) => (s.kind === 'Field' ? s.name.value : ''));
    if (!fields.includes(route.response.field)) {
      throw new Error(`Route ${route.operationId}: the operation does not ask for ${route.response.field}`);
    }
    const jit = () => {
      try {
        return compileOperation(schema, document, operation, { serializers });
      } catch (error) {
        throw new Error(`Route ${route.operationId}: ${(error as Error).message}`);
      }
    };
    // Compiled at the row's first request (a process serves a few of its rows
    // at first, most of them maybe never), or here when asked to.
    let compiledRun = options.eager ? jit() : undefined;
    const run: Run = (context, variables) => (compiledRun ??= jit())(context, variables);
    const shape = shaper(route);
    const resolved = resolveRoute(schema, route, operation);
    const root = operation.operation === 'mutation' ? schema.getMutationType()! : schema.getQueryType()!;
    // A client's page size within the documented bound must never meet the
    // GraphQL limits: a row that could is refused here, before the service starts.
    try {
      largestCost(document, operation, root);
    } catch (error) {
      throw new Error(
        `Route ${route.operationId}: at its largest page its operation is over the GraphQL limits: ${(error as Error).message}`,
      );
    }
    const cost = costCounter(document, operation, root);
    for (const method of route.methods) {
      for (const path of route.paths) {
        compiled.push({
          route: resolved,
          method,
          path,
          document,
          run,
          shape,
          permissions: permissions.get(route.response.field) ?? [],
          kind: operation.operation,
          cost,
        });
      }
    }
  }
  return compiled;
}

/**
 * The rows' paths in the order Express's router tries them: at the first
 * segment where two differ, a literal one before a parameter, so
 * /api/webhooks/notices is found before /api/webhooks/{id} (as OpenAPI
 * prescribes). Two rows of one method and path, or of one path with its
 * parameters named otherwise, stop the start.
 */
export function routeOrder(routes: CompiledRoute[]): Array<{ path: string; rows: CompiledRoute[] }> {
  const byPath = new Map<string, CompiledRoute[]>();
  for (const route of routes) {
    const key = route.path.replace(/\{\w+\}/g, '{}');
    const rows = byPath.get(key) ?? byPath.set(key, []).get(key)!;
    if (rows.some((row) => row.method === route.method))
      throw new Error(`Route ${route.route.operationId}: ${route.method} ${route.path} is taken`);
    // The rows of one path share its router entry, and so the names of its parameters.
    if (rows.length > 0 && rows[0].path !== route.path)
      throw new Error(`Route ${route.route.operationId}: ${route.path} names its parameters unlike ${rows[0].path}`);
    rows.push(route);
  }
  const segments = (path: string) => path.split('/').filter(Boolean);
  // A total order: the first differing segment decides, a literal before a parameter, literals by their text.
  const literalFirst = (a: string, b: string) => {
    const [x, y] = [segments(a), segments(b)];
    for (let i = 0; i < Math.min(x.length, y.length); i++) {
      if (x[i] === y[i]) continue;
      if (x[i] === '{}' || y[i] === '{}') return x[i] === '{}' ? 1 : -1;
      return x[i] < y[i] ? -1 : 1;
    }
    return x.length - y.length;
  };
  return [...byPath.keys()]
    .sort(literalFirst)
    .map((key) => ({ path: byPath.get(key)![0].path, rows: byPath.get(key)! }));
}

/**
 * A refused input on a row whose path names a record is 404 when the
 * caller's company has no such record: "no such record" is never hidden
 * behind "bad body". The path's ids are decoded by then (variablesFor
 * decodes them before it reads anything else).
 */
async function recordsFirst(
  ctx: RequestContext,
  route: ResolvedRoute,
  params: Record<string, string>,
  error: unknown,
): Promise<unknown> {
  if (!(error instanceof ValidationError)) return error;
  try {
    for (const [name, param] of Object.entries(route.params.path ?? {})) {
      if (param.type !== 'id' || !param.idKind) continue;
      if ((await recordOwned(ctx, param.idKind, Number(params[name]))) === false)
        return new NotFoundError(recordName(param));
    }
    return error;
  } catch (lookup) {
    return lookup;
  }
}

export interface RestDeps {
  routes: CompiledRoute[];
  log: Logger;
  context: (req: Request) => RequestContext;
  ids: IdCodec;
  /** The JSON body rules, for a row's request that carries a body. */
  readBody: (req: Request, res: Response, done: (error?: unknown) => void) => void;
  /** The CSV body rules, for a row whose body is a CSV file. */
  readCsv: (req: Request, res: Response, done: (error?: unknown) => void) => void;
  /** Admission and idempotency, as for /graphql (src/graphql/operations.ts). */
  operations: Operations;
}

/**
 * The REST table as two handlers. `rows` answers a request a row takes and
 * passes on every other: mounted before the rest of the app, a row's request
 * crosses no middleware it does not need. `unmatched`, after everything else
 * under /api, answers 404, or 405 with the methods the path takes.
 */
export function restHandlers({ routes, log, context, ids, readBody, readCsv, operations }: RestDeps): {
  rows: RequestHandler;
  unmatched: RequestHandler;
} {
  const answer = async (req: Request, res: Response, compiled: CompiledRoute, params: Record<string, string>) => {
    res.locals.route = compiled.path;
    const ctx = context(req);
    try {
      let variableValues: Record<string, unknown> | undefined;
      let inputError: unknown;
      try {
        variableValues = variablesFor(compiled.route, { path: params, query: req.query, body: req.body }, ids);
      } catch (error) {
        inputError = error;
      }
      // A body of a media type the row does not take (readCsv's): the input error to tell, after a path's 404.
      if (res.locals.bodyRefusal && !(inputError instanceof NotFoundError)) {
        inputError = res.locals.bodyRefusal;
        variableValues = undefined;
      }
      if (compiled.route.auth !== false) {
        // A signed-in caller's request spends from its rate limits, whatever its answer; 401 and 403 come before
        // any answer about the input (the field's @Authorized checks them when the operation runs).
        const cost = variableValues ? compiled.cost(variableValues) : 0;
        let headers = operations.admit(
          ctx,
          { kind: compiled.kind, cost, permissions: compiled.permissions },
          {
            refused: inputError !== undefined,
          },
        );
        if (headers instanceof Promise) headers = await headers;
        for (const name in headers) res.setHeader(name, headers[name]);
      }
      if (!variableValues) throw inputError;
      // Writes of a signed-in caller only (a sign-in makes nothing to repeat).
      const key =
        req.method === 'GET' || req.method === 'HEAD' || compiled.route.auth === false
          ? undefined
          : req.get('idempotency-key');
      if (key === undefined) {
        const result = await compiled.run(ctx, variableValues);
        if (result.errors?.length) throw restErrorOf(result.errors[0], compiled.route);
        return sendJson(
          res,
          compiled.route.status ?? 200,
          compiled.shape(result.data?.[compiled.route.response.field]),
        );
      }
      // A write with an Idempotency-Key: made once, its answer kept with it (db/idempotency.ts).
      const answer = await operations.once(
        ctx,
        key,
        fingerprint(req.method, req.originalUrl, req.body),
        async (uow) => {
          const result = await compiled.run(uow, variableValues);
          if (result.errors?.length) throw restErrorOf(result.errors[0], compiled.route);
          return {
            status: compiled.route.status ?? 200,
            body: JSON.stringify(compiled.shape(result.data?.[compiled.route.response.field])),
          };
        },
      );
      if (answer.replayed) res.setHeader('Idempotent-Replayed', 'true');
      sendJson(res, answer.status, undefined, answer.body);
    } catch (error) {
      sendError(res, await recordsFirst(ctx, compiled.route, params, error), res.locals.requestId as string, log);
    }
  };
  // One router per resource (/api/roles, /api/webhooks...), mounted on its prefix: a request is matched against its
  // resource's rows only, not against every row of the table.
  const router = express.Router({ caseSensitive: true });
  const resources = new Map<string, express.Router>();
  for (const { path, rows: taken } of routeOrder(routes)) {
    const prefix = path.split('/').slice(0, 3).join('/');
    let resource = resources.get(prefix);
    if (!resource) {
      resources.set(prefix, (resource = express.Router({ caseSensitive: true })));
      router.use(prefix, resource);
    }
    const route = resource.route(path.slice(prefix.length).replace(/\{(\w+)\}/g, ':$1') || '/');
    for (const compiled of taken) {
      route[compiled.method.toLowerCase() as Lowercase<HttpMethod>]((req, res, next) => {
        const params = req.params as Record<string, string>;
        // A GET carries no body the row reads: only the other methods go through the JSON body rules.
        if (req.method === 'GET' || req.method === 'HEAD') return void answer(req, res, compiled, params);
        const read = compiled.route.bodyType === 'csv' ? readCsv : readBody;
        read(req, res, (error) => (error ? next(error) : void answer(req, res, compiled, params)));
      });
    }
    // Another method on a row's path: what it takes, for the 405 of `unmatched` (another handler may still take it).
    const allowed = taken.map((row) => row.method);
    route.all((_req, res, next) => {
      res.locals.allowed = allowed;
      next();
    });
  }
  // A parameter that is no valid percent-encoding names no row: the router's URIError becomes the 404 of `unmatched`.
  const rows: RequestHandler = (req, res, next) =>
    router(req, res, (error?: unknown) => (error instanceof URIError ? next() : next(error as Error)));
  const unmatched: RequestHandler = (req: Request, res: Response, next: NextFunction) => {
    if (!req.path.startsWith('/api/')) return next();
    const allowed = res.locals.allowed as string[] | undefined;
    const requestId = res.locals.requestId as string;
    if (allowed) {
      res.setHeader('Allow', allowed.join(', '));
      return sendError(
        res,
        new HttpError(
          405,
          `The ${req.method} method is not supported for this route. Supported methods: ${allowed.join(', ')}.`,
        ),
        requestId,
        log,
      );
    }
    // A row's own request never gets here (rows answered it); anything else under /api/ is unknown.
    sendError(res, new HttpError(404, 'Route not found.'), requestId, log);
  };
  return { rows, unmatched };
}
