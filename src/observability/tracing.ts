import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Context,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import { getRPCMetadata, RPCType } from '@opentelemetry/core';
import { OTLPTraceExporter as OtlpJsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as OtlpProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BatchSpanProcessor,
  NodeTracerProvider,
  ParentBasedSampler,
  SamplingDecision,
  SimpleSpanProcessor,
  type Sampler,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-node';
import type { OtlpProtocol } from '../config/otel-variables.js';

// OpenTelemetry traces, off unless configured (config.ts, `tracing`): the
// standard OTEL_* variables choose the OTLP endpoint, its protocol
// (protobuf or JSON over HTTP: otel-variables.ts) and the service name, and
// the official SDK exports the spans. What is traced:
//   - each API request (REST row or /graphql) as a server span, joining the
//     caller's trace when it sends a traceparent;
//   - each GraphQL operation as a span inside it;
//   - each plain statement and each ORM transaction of the request, unless
//     pg's own instrumentation records its statements (instrumentation.ts);
//   - each webhook attempt as a client span in the trace of the request whose
//     change caused the delivery (the outbox row keeps its traceparent), with
//     the W3C traceparent sent to the receiver.
// A request's trace travels with its RequestContext (context.ts, `trace`),
// handed on by hand. Only when libraries' instrumentations run, which find
// their parent in the active context, is the AsyncLocalStorage context
// manager registered as well: on Node 20 it hooks every promise of the
// process, which cost the read path as much as the spans themselves.
// Off, no provider is registered: the calls below are skipped or are the
// API's no-ops, and no delivery row carries a traceparent.

/** A request's trace: the OpenTelemetry context holding its server span. */
export type TraceContext = Context;

let ours: Tracer | undefined;
/** The service's own tracer (the provider's, once registered). */
const tracer = () => (ours ??= trace.getTracer('switchboard'));

let provider: NodeTracerProvider | undefined;
/** Whether libraries' instrumentations run (and record the statements): the active context then carries the trace too. */
let instrumented = false;

/**
 * Which spans may start a trace: an API request's (server) and a webhook
 * attempt's whose delivery kept none (client). The rest follow their parent,
 * so work outside a request (the startup's GraphQL documents, the background
 * loops) records nothing. OTEL_TRACES_SAMPLER, when set, decides instead.
 */
const requestsStartTraces: Sampler = new ParentBasedSampler({
  root: {
    shouldSample: (_context, _traceId, _name, kind) => ({
      decision:
        kind === SpanKind.SERVER || kind === SpanKind.CLIENT
          ? SamplingDecision.RECORD_AND_SAMPLED
          : SamplingDecision.NOT_RECORD,
    }),
    toString: () => 'RequestsStartTraces',
  },
});

/** Whether spans are recorded in this process. */
export const tracingOn = () => provider !== undefined;

/**
 * Registers the SDK for this process (once; a second service of the same
 * process shares it), and says whether this call did. `exporter` replaces
 * OTLP over `protocol` (the suite's in-memory one); `libraries`: whether libraries'
 * instrumentations will run (instrumentation.ts).
 */
export function startTracing(
  serviceName: string,
  exporter?: SpanExporter,
  { libraries = false, protocol = 'http/protobuf' }: { libraries?: boolean; protocol?: OtlpProtocol } = {},
): boolean {
  if (provider) return false;
  instrumented = libraries;
  provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': process.env.OTEL_SERVICE_NAME ?? serviceName }),
    ...(process.env.OTEL_TRACES_SAMPLER ? {} : { sampler: requestsStartTraces }),
    spanProcessors: [
      exporter
        ? new SimpleSpanProcessor(exporter)
        : new BatchSpanProcessor(protocol === 'http/json' ? new OtlpJsonExporter() : new OtlpProtobufExporter()),
    ],
  });
  // The W3C trace-context propagator, and the AsyncLocalStorage context manager only for the libraries' instrumentations.
  provider.register(libraries ? {} : { contextManager: null });
  return true;
}

/** Flushes and stops the exporter (at shutdown). */
export async function stopTracing(): Promise<void> {
  const stopping = provider;
  provider = undefined;
  ours = undefined;
  await stopping?.shutdown();
  trace.disable();
  context.disable();
  propagation.disable();
}

/** The W3C traceparent of a request's trace (`within`, its context's), or null (tracing off, or no trace). */
export function traceparentOf(within: Context | undefined): string | null {
  if (!provider || !within) return null;
  const carrier: Record<string, string> = {};
  propagation.inject(within, carrier);
  return carrier.traceparent ?? null;
}

/**
 * The server span of an API request, run `next` inside it and given the
 * trace the request's work joins: the span the http instrumentation opened
 * (instrumentation.ts), or else one of ours, in the caller's trace when its
 * headers carry one.
 */
export function serverSpan(
  method: string,
  headers: Record<string, unknown>,
  next: (span: Span, within: Context) => void,
): void {
  const opened = instrumented ? getRPCMetadata(context.active()) : undefined;
  if (opened?.type === RPCType.HTTP) return next(opened.span, context.active());
  const parent = propagation.extract(instrumented ? context.active() : ROOT_CONTEXT, headers);
  const span = tracer().startSpan(
    method,
    { kind: SpanKind.SERVER, attributes: { 'http.request.method': method } },
    parent,
  );
  const within = trace.setSpan(parent, span);
  if (instrumented) context.with(within, () => next(span, within));
  else next(span, within);
}

const kinds = new Map<string, string>();
/** A statement's span name: its first keyword (SELECT, WITH, INSERT...), as OpenTelemetry's database conventions name it. */
function statementKind(text: string): string {
  let kind = kinds.get(text);
  if (kind === undefined) {
    kind = (/^\s*(\w+)/.exec(text)?.[1] ?? 'statement').toUpperCase();
    if (kinds.size < 1000) kinds.set(text, kind);
  }
  return kind;
}

/**
 * Runs a statement (`text`) or an ORM transaction (`text` undefined) of a
 * request in a client span of its trace, unless pg's instrumentation records
 * the statements itself; just runs it outside a trace.
 */
export function databaseSpan<T>(
  within: Context | undefined,
  text: string | undefined,
  run: () => Promise<T>,
): Promise<T> {
  if (!within || instrumented || !provider) return run();
  const span = tracer().startSpan(
    text === undefined ? 'transaction' : statementKind(text),
    {
      kind: SpanKind.CLIENT,
      attributes:
        text === undefined
          ? { 'db.system.name': 'postgresql' }
          : { 'db.system.name': 'postgresql', 'db.query.text': text },
    },
    within,
  );
  return run().then(
    (result) => {
      span.end();
      return result;
    },
    (error: unknown) => {
      span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
      span.end();
      throw error;
    },
  );
}

/**
 * Ends a request's span with its route and status (5xx marks it an error).
 * The http instrumentation's span is named from the route here and ended by it.
 */
export function endServerSpan(span: Span, method: string, route: string | undefined, status: number): void {
  const opened = instrumented ? getRPCMetadata(context.active()) : undefined;
  if (opened?.type === RPCType.HTTP && opened.span === span) {
    if (route) opened.route = route;
    return;
  }
  if (route) {
    span.updateName(`${method} ${route}`);
    span.setAttribute('http.route', route);
  }
  span.setAttribute('http.response.status_code', status);
  if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
}

/** A span for a GraphQL operation in the request's trace (`within`); the caller ends it. */
export function operationSpan(within: Context | undefined): Span {
  return tracer().startSpan('graphql.operation', { kind: SpanKind.INTERNAL }, within ?? context.active());
}

/**
 * Runs a webhook attempt in a client span of the trace its delivery was
 * caused in (when the row kept one), linked to that span too; `headers` gets
 * the attempt's own traceparent for the receiver.
 */
export async function attemptSpan<T extends { statusCode: number | null; error?: string | null }>(
  traceParent: string | null,
  attributes: Record<string, string | number>,
  headers: Record<string, string>,
  attempt: () => Promise<T>,
): Promise<T> {
  if (!provider) return attempt();
  const parent: Context = traceParent
    ? propagation.extract(context.active(), { traceparent: traceParent })
    : context.active();
  const caused = trace.getSpanContext(parent);
  const span = tracer().startSpan(
    'webhook.attempt',
    { kind: SpanKind.CLIENT, attributes, links: caused ? [{ context: caused }] : [] },
    parent,
  );
  propagation.inject(trace.setSpan(parent, span), headers);
  try {
    const result = await context.with(trace.setSpan(parent, span), attempt);
    if (result.statusCode !== null) span.setAttribute('http.response.status_code', result.statusCode);
    if (result.statusCode === null || result.statusCode >= 300)
      span.setStatus({ code: SpanStatusCode.ERROR, message: result.error ?? `status ${result.statusCode}` });
    return result;
  } finally {
    span.end();
  }
}
