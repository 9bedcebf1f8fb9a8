import { register } from 'node:module';
import type { IncomingMessage } from 'node:http';
import { registerInstrumentations, type Instrumentation } from '@opentelemetry/instrumentation';
import { ExpressInstrumentation } from '@opentelemetry/instrumentation-express';
import { GraphQLInstrumentation } from '@opentelemetry/instrumentation-graphql';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { createAddHookMessageChannel } from 'import-in-the-middle';
import type { TracedLibrary } from '../config/otel-variables.js';

// The official OpenTelemetry instrumentations of the libraries a request goes
// through, those chosen (otel-variables.ts), when tracing is on (main.ts,
// before the service's modules load):
//   - http: the server span of each API request (the one tracing.ts names by
//     its route), and a client span for each outgoing request made inside a
//     trace (a webhook attempt, a call to the provider);
//   - express: a span per middleware and route handler (the REST rows are one
//     middleware, so their work shows between the server span and its queries);
//   - pg: a span per query, inside a request or a job's trace (not per pool
//     checkout: a wait for a connection shows as the gap before the query);
//   - graphql: parse, validate and execute of each operation (no span per
//     resolver: a page of 100 rows would be hundreds of spans).
// Only API requests open a trace: probes, metrics and the web app's files do
// not, nor do the background loops' queries and requests (each needs a parent).
// The modules are ESM importing CommonJS packages, so both of Node's loaders
// are hooked: import-in-the-middle (told only these packages' names, so no
// other module is wrapped) and require-in-the-middle.

/** Whether a request is to the API (REST under /api, or /graphql), the only ones traced. */
const isApiRequest = (url = '') => url.startsWith('/api/') || url === '/graphql' || url.startsWith('/graphql?');

/** The instrumentations by the names OpenTelemetry's Node distribution gives them (otel-variables.ts). */
const INSTRUMENTATIONS: Record<TracedLibrary, () => Instrumentation> = {
  http: () =>
    new HttpInstrumentation({
      ignoreIncomingRequestHook: (request: IncomingMessage) => !isApiRequest(request.url),
      requireParentforOutgoingSpans: true,
    }),
  express: () => new ExpressInstrumentation(),
  pg: () => new PgInstrumentation({ requireParentSpan: true, ignoreConnectSpans: true }),
  graphql: () => new GraphQLInstrumentation({ ignoreResolveSpans: true }),
};

/**
 * Hooks the module loaders and enables the instrumentations named (config.ts,
 * from otel-variables.ts: none unless OTEL_NODE_ENABLED_INSTRUMENTATIONS
 * names some, less those OTEL_NODE_DISABLED_INSTRUMENTATIONS names). Call it before
 * anything imports http's users, express, pg or graphql, and after the tracer
 * provider is registered (tracing.ts, startTracing).
 */
export async function instrumentLibraries(names: readonly TracedLibrary[]): Promise<void> {
  if (names.length === 0) return;
  const { registerOptions, waitForAllMessagesAcknowledged } = createAddHookMessageChannel();
  register('import-in-the-middle/hook.mjs', import.meta.url, registerOptions);
  registerInstrumentations({ instrumentations: names.map((name) => INSTRUMENTATIONS[name]()) });
  await waitForAllMessagesAcknowledged();
}
