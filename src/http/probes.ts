import type pg from 'pg';
import express, { type Express, type RequestHandler } from 'express';
import { timingSafeEqual } from 'node:crypto';
import type { RequestListener, Server } from 'node:http';
import { adoptApp, bearerOf, chain, closeWhenDraining, frontDoor, isApiUrl, requestLog } from './edge.js';
import type { JobRunner } from '../jobs/agenda.js';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import type { Services } from '../composition.js';

// What every process serves, a worker alone included: the request log,
// /healthz, /readyz and /metrics. The API (src/platform/app.ts) builds on it.

export interface ProbeParts {
  /** The pool the readiness probe asks. */
  database: pg.Pool;
  services: Services;
  log: Logger;
  metrics: Metrics;
  jobs?: JobRunner;
  httpServer: Server;
}

const tokenMatches = (given: string | undefined, expected: string) =>
  given !== undefined && given.length === expected.length && timingSafeEqual(Buffer.from(given), Buffer.from(expected));

/**
 * An Express app with the request log and the probes; the caller adds what it
 * serves and its 404. `first`: handlers that come straight after the request
 * log, before the probes (the API's: its requests are the many).
 */
export function probesApp(
  { database, services, log, metrics, jobs, httpServer }: ProbeParts,
  first: RequestHandler[] = [],
): { app: Express; listener: RequestListener } {
  const app = express();
  let listener: RequestListener;
  app.disable('x-powered-by');
  app.set('trust proxy', services.config.trustProxy);
  const handlers = [
    requestLog(log, metrics, { hsts: services.config.publicUrl.startsWith('https:') }),
    closeWhenDraining(httpServer),
    ...first,
  ];
  const { config } = services;
  if (config.tracing && config.tracedLibraries.includes('express')) {
    // Express's instrumentation asked for: each handler a layer of the router, so each is a span.
    app.use(...handlers);
    listener = app;
  } else {
    // The request log and the APIs' handlers as one, the server's front door for API paths (http.ts, frontDoor).
    const door = frontDoor(app, chain(handlers), first.length > 0 ? isApiUrl : () => false, adoptApp(httpServer, app));
    app.use(door.layer);
    listener = door.listener;
  }

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    const checks: Record<string, string> = {};
    try {
      await database.query('SELECT 1');
      checks.database = 'ok';
    } catch {
      checks.database = 'unreachable';
    }
    if (jobs) {
      try {
        await jobs.ping();
        checks.jobs = 'ok';
      } catch {
        checks.jobs = 'unreachable';
      }
    }
    const ready = Object.values(checks).every((v) => v === 'ok');
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not ready', checks });
  });
  app.get('/metrics', async (req, res) => {
    const { metricsToken } = services.config;
    if (metricsToken && !tokenMatches(bearerOf(req), metricsToken)) {
      res.setHeader('WWW-Authenticate', 'Bearer realm="metrics"');
      return void res.status(401).json({ success: false, message: 'Unauthenticated.' });
    }
    res.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });
  return { app, listener };
}
