import express, { type Request, type RequestHandler } from 'express';
import { HttpError } from '../kernel/errors.js';
import type { Logger } from '../observability/logger.js';
import type { Services } from '../composition.js';
import { SIGNATURE_HEADER } from '../telco/signature.js';
import { sendError, sendText } from '../http/edge.js';
import type { IngressRoute } from './route.js';

// The handler of the ingress rows (provider callbacks). Only these rows take
// a form-encoded body and no Bearer token; every other /api route stays JSON
// and token-only. A callback is answered as soon as its change has committed
// (204); its events go out through the webhook outbox. The inbound call
// callback is answered 200 with its instruction for the call.

const form = express.urlencoded({
  extended: false,
  limit: '64kb',
  parameterLimit: 100,
  type: 'application/x-www-form-urlencoded',
});

/** No control character in a name; in a value only tab, line feed and carriage return (a transcript has lines). */
const CONTROL = /[\u0000-\u001f\u007f]/;
const CONTROL_IN_TEXT = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;

/** The URLs the provider may have signed: the configured public address, or the one it reached. */
const signedUrls = (req: Request, publicUrl: string) => [
  `${publicUrl}${req.originalUrl}`,
  `${req.protocol}://${req.get('host')}${req.originalUrl}`,
];

export function ingressHandler(routes: IngressRoute[], services: Services, log: Logger): RequestHandler {
  const byPath = new Map(routes.map((route) => [route.path, route]));
  return (req, res, next) => {
    const route = byPath.get(req.path);
    if (!route) return next();
    const receivedAt = performance.now();
    const requestId = res.locals.requestId as string;
    res.locals.route = route.path;
    if (req.method !== route.method) {
      res.setHeader('Allow', route.method);
      return sendError(
        res,
        new HttpError(
          405,
          `The ${req.method} method is not supported for this route. Supported methods: ${route.method}.`,
        ),
        requestId,
        log,
      );
    }
    if (!req.is('application/x-www-form-urlencoded')) {
      return sendError(
        res,
        new HttpError(400, 'A provider callback is form-encoded (application/x-www-form-urlencoded).'),
        requestId,
        log,
      );
    }
    form(req, res, (parseError?: unknown) => {
      if (parseError) {
        const status = (parseError as { status?: number }).status === 413 ? 413 : 400;
        return sendError(
          res,
          new HttpError(status, status === 413 ? 'The callback is too large.' : 'The callback body is malformed.'),
          requestId,
          log,
        );
      }
      void handle(route, req.body as Record<string, unknown>);
    });

    async function handle(route: IngressRoute, body: Record<string, unknown>) {
      try {
        const params: Record<string, string> = {};
        for (const [name, value] of Object.entries(body ?? {})) {
          if (CONTROL.test(name)) throw new HttpError(400, 'A parameter name holds a control character.');
          if (typeof value !== 'string') throw new HttpError(400, `The ${name} parameter is given more than once.`);
          if (value.includes('\u0000')) throw new HttpError(400, `The ${name} parameter holds a NUL character.`);
          if (CONTROL_IN_TEXT.test(value)) throw new HttpError(400, `The ${name} parameter holds a control character.`);
          params[name] = value;
        }
        // Whose callback (checked by its signature before anything is read or written), then its change.
        const answer = await services.callbacks.receive({
          kind: route.callback,
          operationId: route.operationId,
          params,
          signature: req.get(SIGNATURE_HEADER),
          signedUrls: signedUrls(req, services.config.publicUrl),
          requestId,
          receivedAt,
        });
        if (answer) sendText(res, 200, answer.contentType, answer.body);
        else res.status(204).end();
      } catch (error) {
        sendError(res, error, requestId, log);
      }
    }
  };
}
