import express, { type ErrorRequestHandler, type Request, type RequestHandler, type Response } from 'express';
import { HttpError } from '../kernel/errors.js';
import { sendError } from './edge.js';
import type { Logger } from '../observability/logger.js';

// The body rules of /api and /graphql: JSON only, at most 1 MiB, well formed.

export const BODY_LIMIT = '1mb';
const BODY_LIMIT_BYTES = 1024 * 1024;

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
  const parser = express.json({ limit: BODY_LIMIT, strict: false });
  return [requireJson, (req, res, next) => (plainJsonBody(req) ? readPlainJson(req, next) : parser(req, res, next))];
}

/**
 * A body body-parser would read as it comes, which most are: UTF-8 (no other
 * charset named), not compressed, its length given and within the limit.
 * Those are read here, without body-parser's decoding streams and async
 * scopes; the rest (chunked, compressed, another charset, too large) go to it.
 */
function plainJsonBody(req: Request): boolean {
  const length = Number(req.headers['content-length'] ?? 0);
  const type = req.headers['content-type']?.toLowerCase();
  if (
    !(length > 0 && length <= BODY_LIMIT_BYTES) ||
    type === undefined ||
    req.headers['transfer-encoding'] !== undefined
  )
    return false;
  const encoding = req.headers['content-encoding'];
  if (encoding !== undefined && encoding.toLowerCase() !== 'identity') return false;
  const parameters = type.indexOf(';');
  return parameters === -1 || /^;\s*charset="?utf-8"?\s*$/.test(type.slice(parameters));
}

/** Reads a plain JSON body (plainJsonBody) into req.body as body-parser does: its errors typed as body-parser's (bodyErrors answers them). */
function readPlainJson(req: Request, next: (error?: unknown) => void): void {
  const expected = Number(req.headers['content-length']);
  const chunks: Buffer[] = [];
  let received = 0;
  let done = false;
  const finish = (type?: string) => {
    if (done) return;
    done = true;
    next(type ? Object.assign(new Error(type), { type }) : undefined);
  };
  req.on('data', (chunk: Buffer) => {
    received += chunk.length;
    chunks.push(chunk);
  });
  req.once('end', () => {
    if (received !== expected) return finish('request.size.invalid');
    let text = (chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, received)).toString('utf8');
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    try {
      req.body = JSON.parse(text);
    } catch {
      return finish('entity.parse.failed');
    }
    finish();
  });
  // A client gone before its whole body came.
  req.once('close', () => {
    if (!req.complete) finish('request.aborted');
  });
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
