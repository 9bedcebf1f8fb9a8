import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import { randomUUID } from 'node:crypto';
import { HttpError } from './errors.js';
import type { Logger } from './observability/logger.js';
import type { Metrics } from './observability/metrics.js';
import { sendError } from './rest/respond.js';

// HTTP concerns shared by /api and /graphql: request ids, access logs and
// metrics, and the body rules (JSON only, at most 1 MiB, well formed).

const REQUEST_ID = /^[A-Za-z0-9._-]{1,100}$/;
export const BODY_LIMIT = '1mb';

/**
 * The route a request is measured and logged under: a template, never a raw
 * path, so unknown paths cannot grow the metric series.
 */
function routeTemplate(req: express.Request, rowPath: string | undefined): string {
  if (rowPath) return rowPath;
  if (req.baseUrl === '/graphql' || req.originalUrl.split('?')[0] === '/graphql') return '/graphql';
  const matched = (req.route as { path?: unknown } | undefined)?.path;
  if (typeof matched === 'string') return matched;
  if (req.path.startsWith('/api/docs/')) return '/api/docs/*';
  return req.path.startsWith('/assets/') && req.res?.statusCode !== 404 ? '/assets/*' : 'unmatched';
}

export function requestLog(log: Logger, metrics: Metrics): RequestHandler {
  return (req, res, next) => {
    const incoming = req.header('x-request-id');
    const requestId = incoming && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    res.locals.requestId = requestId;
    res.setHeader('X-Request-Id', requestId);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    // API answers carry tokens and company data: never stored by a browser or a proxy.
    if (req.path.startsWith('/api/') || req.path === '/graphql') {
      if (!req.path.startsWith('/api/docs')) res.setHeader('Cache-Control', 'no-store');
    }
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const route = routeTemplate(req, res.locals.route as string | undefined);
      metrics.httpDuration.observe({ method: req.method, route, status: String(res.statusCode) }, seconds);
      log.info('request', {
        requestId,
        method: req.method,
        path: req.path,
        route,
        status: res.statusCode,
        durationMs: Math.round(seconds * 10_000) / 10,
      });
    });
    next();
  };
}

const hasBody = (req: express.Request) =>
  req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;

/** JSON bodies only: other content types with a body are 400, oversize 413, malformed 400. */
export function jsonBody(log: Logger): RequestHandler[] {
  const requireJson: RequestHandler = (req, res, next) => {
    if (hasBody(req) && !req.is('application/json')) {
      return sendError(res, new HttpError(400, 'Content-Type must be application/json.'), res.locals.requestId, log);
    }
    next();
  };
  return [requireJson, express.json({ limit: BODY_LIMIT, strict: false })];
}

export function bodyErrors(log: Logger): ErrorRequestHandler {
  return (error, _req, res, next) => {
    if (res.headersSent) return next(error);
    const type = (error as { type?: string }).type;
    const mapped = type === 'entity.too.large'
      ? new HttpError(413, 'The request body is larger than 1 MiB.')
      : type === 'entity.parse.failed'
        ? new HttpError(400, 'Malformed JSON in request body.')
        : type === 'encoding.unsupported' || type === 'charset.unsupported'
          ? new HttpError(400, 'Unsupported request body encoding.')
          : error;
    sendError(res, mapped, res.locals.requestId, log);
  };
}
