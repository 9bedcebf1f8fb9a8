import express, { type ErrorRequestHandler, type Request, type RequestHandler, type Response } from 'express';
import { HttpError, ValidationError } from '../kernel/errors.js';
import { CAMPAIGN_LIMITS } from '../kernel/bounds.js';
import { sendError } from './edge.js';
import type { Logger } from '../observability/logger.js';

// The body rules of /api and /graphql: JSON only, at most 1 MiB, well formed.

export const BODY_LIMIT = '1mb';

const hasBody = (req: Request) =>
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

/**
 * The same rules as one step, for a handler that reads its own body (the REST
 * rows): nothing to do without a body; `done(error)` for the parser's errors
 * (bodyErrors answers them), no call at all once a refusal is sent.
 */
export function readJsonBody(log: Logger): (req: Request, res: Response, done: (error?: unknown) => void) => void {
  const [requireJson, parse] = jsonBody(log);
  return (req, res, done) => {
    if (!hasBody(req)) return done();
    requireJson(req, res, () => parse(req, res, done));
  };
}

/**
 * A route whose body is a CSV file: `text/csv` (UTF-8), at most 16 MiB, given to its operation as the body
 * parameter `csv`. No body at all leaves `csv` missing (the operation's 422 names it).
 */
export function readCsvBody(): (req: Request, res: Response, done: (error?: unknown) => void) => void {
  const parse = express.text({ type: 'text/csv', limit: CAMPAIGN_LIMITS.csvBytes });
  return (req, res, done) => {
    if (!hasBody(req)) {
      req.body = {};
      return done();
    }
    // Another media type is the operation's input error (422 naming `csv`), answered after 401, 403 and 404 as every
    // input error is; its body is not read.
    if (!req.is('text/csv')) {
      req.body = {};
      res.locals.bodyRefusal = ValidationError.field(
        'csv',
        `The body must be a CSV file sent as text/csv (it was sent as ${req.headers['content-type'] ?? 'nothing'}).`,
      );
      return done();
    }
    parse(req, res, (error?: unknown) => {
      const type = (error as { type?: string } | undefined)?.type;
      if (type === 'entity.too.large') return done(new HttpError(413, 'The CSV file is larger than 16 MiB.'));
      if (error) return done(error);
      req.body = { csv: req.body };
      done();
    });
  };
}

export function bodyErrors(log: Logger): ErrorRequestHandler {
  return (error, _req, res, next) => {
    if (res.headersSent) return next(error);
    const type = (error as { type?: string }).type;
    const mapped =
      type === 'entity.too.large'
        ? new HttpError(413, 'The request body is larger than 1 MiB.')
        : type === 'entity.parse.failed'
          ? new HttpError(400, 'Malformed JSON in request body.')
          : type === 'encoding.unsupported' || type === 'charset.unsupported'
            ? new HttpError(400, 'Unsupported request body encoding.')
            : type === 'request.size.invalid' || type === 'request.aborted'
              ? new HttpError(400, 'The request body was shorter than its Content-Length.')
              : error;
    sendError(res, mapped, res.locals.requestId, log);
  };
}
