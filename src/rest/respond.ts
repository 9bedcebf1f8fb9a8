import type { Response } from 'express';
import { appErrorOf } from '../errors.js';
import { errorFields, type Logger } from '../observability/logger.js';

// REST's side of the error model: one place turns any error into the
// status and body the design names.

export function sendError(res: Response, error: unknown, requestId: string, log: Logger): void {
  const known = appErrorOf(error);
  if (known) {
    for (const [name, value] of Object.entries(known.headers)) res.setHeader(name, value);
    res.status(known.status).json({
      success: false,
      message: known.message,
      ...(known.fieldErrors ? { errors: known.fieldErrors } : {}),
    });
    return;
  }
  log.error('request failed', { requestId, ...errorFields(error, true) });
  res.status(500).json({ success: false, message: 'Server error.', request_id: requestId });
}
