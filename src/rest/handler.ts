import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { GraphQLSchema } from 'graphql';
import type { RequestContext } from '../context.js';
import { HttpError } from '../errors.js';
import type { IdCodec } from '../ids.js';
import type { Logger } from '../observability/logger.js';
import { RouteMatcher, type CompiledRoute } from './compile.js';
import { restErrorOf, variablesFor } from './params.js';
import { sendError } from '../http.js';

// The one generic REST handler: match the row, read its parameters, run its
// GraphQL operation in-process against the same schema, shape the result.

export interface RestDeps {
  schema: GraphQLSchema;
  routes: CompiledRoute[];
  log: Logger;
  context: (req: Request) => RequestContext;
  ids: IdCodec;
}

export function restHandler({ routes, log, context, ids }: RestDeps): RequestHandler {
  const matcher = new RouteMatcher(routes);
  return async (req: Request, res: Response, next: NextFunction) => {
    if (!req.path.startsWith('/api/')) return next();
    const found = matcher.match(req.method === 'HEAD' ? 'GET' : req.method, req.path);
    const requestId = res.locals.requestId as string;
    if (!found) return sendError(res, new HttpError(404, 'Route not found.'), requestId, log);
    if ('allowed' in found) {
      res.setHeader('Allow', found.allowed.join(', '));
      return sendError(res, new HttpError(405, `The ${req.method} method is not supported for this route. Supported methods: ${found.allowed.join(', ')}.`), requestId, log);
    }
    const { route: compiled, params } = found;
    res.locals.route = compiled.path;
    const ctx = context(req);
    try {
      let variableValues: Record<string, unknown>;
      try {
        variableValues = variablesFor(compiled.route, { path: params, query: req.query, body: req.body }, ids);
      } catch (inputError) {
        // 401 and 403 come before any answer about the input. The field's own
        // check (@Authorized) runs when the operation does; this is the same
        // check, made here only when the input stops the request first.
        if (compiled.route.auth !== false) await ctx.requirePermissions(compiled.permissions);
        throw inputError;
      }
      const result = await compiled.run(ctx, variableValues);
      if (result.errors?.length) throw restErrorOf(result.errors[0], compiled.route);
      res.status(compiled.route.status ?? 200).json(compiled.shape(result.data?.[compiled.route.response.field]));
    } catch (error) {
      sendError(res, error, requestId, log);
    }
  };
}
