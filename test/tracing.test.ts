import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { SpanKind } from '@opentelemetry/api';
import protobuf from 'protobufjs';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { startTracing, stopTracing } from '../src/observability/tracing.js';
import { loadConfig } from '../src/config/config.js';
import { startTestApp, type TestApp } from './helpers/app.js';
import { eventually, Receiver } from './helpers/receiver.js';
import { kill, startWorker } from './helpers/worker.js';

// OpenTelemetry across the webhook hop. In this process, with the SDK's
// in-memory exporter: a REST write (in its caller's trace), the commit of its
// change and the webhook attempt it causes form one trace, and the receiver
// gets the attempt's traceparent; a /graphql mutation is a server span with
// its operation inside. Across processes, with the OTLP exporter the
// standard variables configure: an API process and a worker process export
// to a collector on loopback (one in protobuf, the other in JSON), and the attempt the worker makes is in the
// trace of the request the API answered.

const exporter = new InMemorySpanExporter();
let app: TestApp;
let owner: string;
let receiver: Receiver;

before(async () => {
  startTracing('switchboard-test', exporter);
  app = await startTestApp();
  owner = await app.login('owner@acme.test');
  receiver = await new Receiver().start();
});
after(async () => {
  await receiver.close();
  await app.close();
  await stopTracing();
});

const CALLER_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';
const spans = () => exporter.getFinishedSpans();
const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;

async function hook(path: string): Promise<string> {
  const created = await app.request('POST', '/api/webhooks', {
    token: owner,
    body: { title: `Traced ${path}`, url: `${receiver.url}${path}`, events: ['agent.created'] },
  });
  assert.equal(created.status, 201, created.text);
  return created.body.data.secret;
}

describe('traces across the webhook hop (in-memory exporter)', () => {
  it("one REST write, in its caller's trace, its commit and the webhook attempt it causes form one trace", async () => {
    const secret = await hook('/rest');
    const made = await app.request('POST', '/api/agents', {
      token: owner,
      body: { name: 'Traced Tess' },
      headers: { traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01` },
    });
    assert.equal(made.status, 201, made.text);
    const [delivery] = await receiver.waitFor(1, 10_000, (r) => r.path === '/rest');
    new StandardWebhook(secret).verify(delivery.body, delivery.headers as Record<string, string>);
    const traceparent = String(delivery.headers.traceparent);
    assert.match(
      traceparent,
      new RegExp(`^00-${CALLER_TRACE}-[0-9a-f]{16}-01$`),
      'the receiver is sent the trace it belongs to',
    );

    const server = spans().find((s) => s.name === 'POST /api/agents')!;
    assert.ok(
      server,
      spans()
        .map((s) => s.name)
        .join(', '),
    );
    assert.equal(server.kind, SpanKind.SERVER);
    assert.equal(server.spanContext().traceId, CALLER_TRACE);
    assert.equal(parentOf(server), CALLER_SPAN, "the request's span is a child of the caller's");
    assert.equal(server.attributes['http.route'], '/api/agents');
    assert.equal(server.attributes['http.response.status_code'], 201);

    // The change's ORM transaction and the outbox's statement, each a client span of the request.
    const inServer = spans().filter((s) => parentOf(s) === server.spanContext().spanId && s.kind === SpanKind.CLIENT);
    assert.ok(
      inServer.some((s) => s.name === 'transaction' && s.attributes['db.system.name'] === 'postgresql'),
      inServer.map((s) => s.name).join(', '),
    );
    assert.ok(
      inServer.some((s) => String(s.attributes['db.query.text']).includes('INSERT INTO events')),
      'the outbox statement is a span of the request',
    );

    const deliveryId = String(delivery.headers['webhook-id']);
    const [row] = await app.sql('SELECT trace_parent FROM webhook_deliveries WHERE id = $1', [deliveryId]);
    assert.equal(
      row.trace_parent,
      `00-${CALLER_TRACE}-${server.spanContext().spanId}-01`,
      'the outbox row keeps the request span it was committed in',
    );

    const attempt = await eventually(async () =>
      spans().find((s) => s.name === 'webhook.attempt' && s.attributes['webhook.delivery_id'] === deliveryId),
    );
    assert.equal(attempt.kind, SpanKind.CLIENT);
    assert.equal(attempt.spanContext().traceId, CALLER_TRACE);
    assert.equal(parentOf(attempt), server.spanContext().spanId);
    assert.deepEqual(
      attempt.links.map((link) => link.context.spanId),
      [server.spanContext().spanId],
      'linked to the request that caused it',
    );
    assert.equal(traceparent.split('-')[2], attempt.spanContext().spanId, "the header is the attempt's own span");
    assert.equal(attempt.attributes['http.response.status_code'], 200);
    assert.equal(attempt.attributes['webhook.event'], 'agent.created');
    assert.equal(attempt.attributes['webhook.attempt'], 1);
  });

  it('a /graphql mutation is a server span with its operation inside, and a new trace when the caller sends none', async () => {
    await hook('/graphql');
    const made = await app.graphql(
      'mutation CreateAgent($n: String!) { createAgent(name: $n) { id } }',
      { n: 'Traced Gus' },
      owner,
    );
    assert.equal(made.body.errors, undefined, made.text);
    const [delivery] = await receiver.waitFor(1, 10_000, (r) => r.path === '/graphql');
    const server = spans()
      .filter((s) => s.name === 'POST /graphql')
      .at(-1)!;
    assert.ok(server);
    assert.equal(parentOf(server), undefined, 'a root span');
    assert.notEqual(server.spanContext().traceId, CALLER_TRACE);
    const operation = await eventually(async () =>
      spans().find(
        (s) => s.name === 'mutation CreateAgent' && s.spanContext().traceId === server.spanContext().traceId,
      ),
    );
    assert.equal(parentOf(operation), server.spanContext().spanId);
    assert.equal(operation.attributes['graphql.operation.type'], 'mutation');
    assert.equal(String(delivery.headers.traceparent).split('-')[1], server.spanContext().traceId);
  });

  it("a REST read's statement is a span of its request, with its text", async () => {
    const read = await app.request('GET', '/api/roles?per_page=5', { token: owner });
    assert.equal(read.status, 200, read.text);
    const server = await eventually(async () =>
      spans()
        .filter((s) => s.name === 'GET /api/roles')
        .at(-1),
    );
    const statements = spans().filter((s) => parentOf(s) === server.spanContext().spanId);
    const select = statements.find((s) => s.name === 'SELECT' || s.name === 'WITH');
    assert.ok(select, statements.map((s) => s.name).join(', '));
    assert.equal(select.kind, SpanKind.CLIENT);
    assert.match(String(select.attributes['db.query.text']), /\broles\b/);
    // The SDK anchors each span's clock to Date.now() at its start, whole milliseconds, and measures on from there:
    // two spans' times compare to within a millisecond.
    const seconds = (time: [number, number]) => time[0] + time[1] / 1e9;
    assert.ok(seconds(select.endTime) <= seconds(server.endTime) + 0.001, 'the statement ends before the request');
  });

  it('a refused request ends its span with its status, and a webhook may not set the trace headers itself', async () => {
    const refused = await app.request('POST', '/api/webhooks', {
      token: owner,
      body: {
        title: 'Own trace',
        url: `${receiver.url}/own`,
        events: ['agent.created'],
        headers: [{ name: 'traceparent', value: 'x' }],
      },
    });
    assert.equal(refused.status, 422, refused.text);
    assert.ok(refused.body.errors['headers.0.name'], refused.text);
    const server = await eventually(async () =>
      spans()
        .filter((s) => s.name === 'POST /api/webhooks')
        .find((s) => s.attributes['http.response.status_code'] === 422),
    );
    assert.equal(server.kind, SpanKind.SERVER);
  });
});

describe('tracing is off unless an OTLP endpoint is configured', () => {
  const base = { NODE_ENV: 'test', JWT_SECRET: 'x'.repeat(32), APP_KEY: Buffer.alloc(32, 1).toString('base64') };
  it('reads the standard OTEL_* variables', () => {
    assert.equal(loadConfig(base).tracing, false);
    assert.equal(
      loadConfig({ ...base, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' }).tracing,
      'http/protobuf',
    );
    assert.equal(
      loadConfig({ ...base, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:4318/v1/traces' }).tracing,
      'http/protobuf',
    );
    assert.equal(
      loadConfig({ ...base, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_SDK_DISABLED: 'true' }).tracing,
      false,
    );
    assert.equal(
      loadConfig({ ...base, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_TRACES_EXPORTER: 'none' })
        .tracing,
      false,
    );
  });

  it('exports over http/protobuf unless the OTLP protocol variables say http/json, and refuses grpc', () => {
    const on = { ...base, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' };
    assert.equal(loadConfig({ ...on, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }).tracing, 'http/json');
    assert.equal(
      loadConfig({
        ...on,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf',
      }).tracing,
      'http/protobuf',
    );
    assert.equal(loadConfig({ ...on, OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json' }).tracing, 'http/json');
    assert.throws(
      () => loadConfig({ ...on, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }),
      (error: Error & { problems?: string[] }) =>
        /OTEL_EXPORTER_OTLP_PROTOCOL is grpc: this service exports traces over http\/protobuf or http\/json/.test(
          String(error.problems),
        ),
    );
    // Off, the protocol is not read.
    assert.equal(loadConfig({ ...base, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }).tracing, false);
  });

  it('instruments no library unless OTEL_NODE_ENABLED_INSTRUMENTATIONS names some (OTEL_NODE_DISABLED_INSTRUMENTATIONS taking some away)', () => {
    assert.deepEqual(loadConfig(base).tracedLibraries, []);
    assert.deepEqual(loadConfig({ ...base, OTEL_NODE_ENABLED_INSTRUMENTATIONS: 'graphql, pg' }).tracedLibraries, [
      'pg',
      'graphql',
    ]);
    assert.deepEqual(
      loadConfig({ ...base, OTEL_NODE_ENABLED_INSTRUMENTATIONS: 'pg', OTEL_NODE_DISABLED_INSTRUMENTATIONS: 'pg' })
        .tracedLibraries,
      [],
    );
    assert.deepEqual(
      loadConfig({
        ...base,
        OTEL_NODE_ENABLED_INSTRUMENTATIONS: 'http,express,pg,graphql',
        OTEL_NODE_DISABLED_INSTRUMENTATIONS: 'express',
      }).tracedLibraries,
      ['http', 'pg', 'graphql'],
    );
    assert.throws(
      () => loadConfig({ ...base, OTEL_NODE_ENABLED_INSTRUMENTATIONS: 'pg,redis' }),
      (error: Error & { problems?: string[] }) =>
        /OTEL_NODE_ENABLED_INSTRUMENTATIONS names redis: it takes a comma-separated list of http, express, pg, graphql/.test(
          String(error.problems),
        ),
    );
  });
});

interface ExportedSpan {
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  /** OTLP's span kind: 1 internal, 2 server, 3 client. */
  kind: number;
  /** The instrumentation that made it (its scope). */
  scope: string;
  service: string;
  attributes: Record<string, string | number | undefined>;
  /** How the export carrying it was encoded. */
  encoding: 'json' | 'protobuf';
}

type OtlpValue = { stringValue?: string; intValue?: string | number | { toString(): string } };
type OtlpAttributes = Array<{ key: string; value?: OtlpValue }>;
const attributesOf = (list: OtlpAttributes = []) =>
  Object.fromEntries(
    list.map((a) => [
      a.key,
      a.value?.stringValue ?? (a.value?.intValue === undefined ? undefined : Number(String(a.value.intValue))),
    ]),
  );

/** The part of OTLP's trace messages (opentelemetry-proto, trace/v1) the assertions read, to decode the protobuf encoding. */
const OTLP_TRACES = protobuf
  .parse(`
  syntax = "proto3";
  message ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; }
  message ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2; }
  message Resource { repeated KeyValue attributes = 1; }
  message ScopeSpans { InstrumentationScope scope = 1; repeated Span spans = 2; }
  message InstrumentationScope { string name = 1; }
  message Span { bytes trace_id = 1; bytes span_id = 2; bytes parent_span_id = 4; string name = 5; int32 kind = 6; repeated KeyValue attributes = 9; }
  message KeyValue { string key = 1; AnyValue value = 2; }
  message AnyValue { oneof value { string string_value = 1; bool bool_value = 2; int64 int_value = 3; double double_value = 4; } }
`)
  .root.lookupType('ExportTraceServiceRequest');

type Id = string | Uint8Array;
type Sent = {
  resourceSpans: Array<{
    resource: { attributes: OtlpAttributes };
    scopeSpans: Array<{
      scope: { name: string };
      spans: Array<{
        traceId: Id;
        spanId: Id;
        parentSpanId?: Id;
        name: string;
        kind: number;
        attributes?: OtlpAttributes;
      }>;
    }>;
  }>;
};
/** An id as JSON sends it (hex), from either encoding (protobuf's are bytes). */
const hex = (id: Id | undefined) => (typeof id === 'string' ? id : Buffer.from(id ?? []).toString('hex'));

/** An OTLP/HTTP collector on loopback: the spans of every export it receives, in either encoding (and which). */
class Collector {
  readonly spans: ExportedSpan[] = [];
  private server?: Server;
  url = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        if (req.url === '/v1/traces') {
          const body = Buffer.concat(chunks);
          const encoding = req.headers['content-type'] === 'application/x-protobuf' ? 'protobuf' : 'json';
          const sent = (
            encoding === 'protobuf'
              ? OTLP_TRACES.toObject(OTLP_TRACES.decode(body), { arrays: true })
              : JSON.parse(body.toString())
          ) as Sent;
          for (const resource of sent.resourceSpans) {
            const service = String(attributesOf(resource.resource.attributes)['service.name'] ?? '');
            for (const scope of resource.scopeSpans) {
              for (const span of scope.spans) {
                this.spans.push({
                  name: span.name,
                  kind: span.kind,
                  traceId: hex(span.traceId),
                  spanId: hex(span.spanId),
                  parentSpanId: hex(span.parentSpanId) || undefined,
                  service,
                  scope: scope.scope.name,
                  attributes: attributesOf(span.attributes),
                  encoding,
                });
              }
            }
          }
        }
        res
          .writeHead(200, { 'content-type': req.headers['content-type'] ?? 'application/json' })
          .end(req.headers['content-type'] === 'application/x-protobuf' ? '' : '{}');
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
    return this;
  }

  /** Whether `span` descends from the span `ancestorId` (through the spans exported so far). */
  descends(span: ExportedSpan, ancestorId: string): boolean {
    for (
      let at: ExportedSpan | undefined = span;
      at?.parentSpanId;
      at = this.spans.find((s) => s.spanId === at!.parentSpanId)
    ) {
      if (at.parentSpanId === ancestorId) return true;
    }
    return false;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server!.close(() => resolve()));
  }
}

describe('traces exported over OTLP by an API process and a worker process', () => {
  it("the libraries' spans nest in the request, and the attempt the worker makes is in the trace of the request the API answered", async () => {
    // A database of its own, whose in-process API (this process's) never delivers: the worker process does.
    const apart = await startTestApp({ PROCESS_ROLE: 'api' });
    const collector = await new Collector().start();
    const otel = { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_BSP_SCHEDULE_DELAY: '200' };
    // The API with every instrumentation, exporting in protobuf (the default); the worker with the default
    // instrumentation (no library's: its attempt is our span), exporting in JSON.
    const api = await startWorker(apart, {
      ...otel,
      PROCESS_ROLE: 'api',
      OTEL_SERVICE_NAME: 'switchboard-api',
      OTEL_NODE_ENABLED_INSTRUMENTATIONS: 'http,express,pg,graphql',
    });
    const worker = await startWorker(apart, {
      ...otel,
      OTEL_SERVICE_NAME: 'switchboard-worker',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    });
    try {
      const token = await apart.login('owner@acme.test');
      const post = (path: string, body: unknown) =>
        fetch(`${api.url}${path}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      assert.equal(
        (
          await post('/api/webhooks', {
            title: 'Across processes',
            url: `${receiver.url}/otlp`,
            events: ['agent.created'],
          })
        ).status,
        201,
      );
      assert.equal((await post('/api/agents', { name: 'Exported Eve' })).status, 201);
      const [delivery] = await receiver.waitFor(1, 15_000, (r) => r.path === '/otlp');
      const [, traceId, sentSpanId] = String(delivery.headers.traceparent).split('-');

      // The request: the http instrumentation's server span, named by the REST row; express's and pg's spans inside it.
      const request = await eventually(
        async () => collector.spans.find((s) => s.name === 'POST /api/agents' && s.traceId === traceId),
        15_000,
        'the API process to export its span',
      );
      assert.equal(request.service, 'switchboard-api');
      assert.equal(request.encoding, 'protobuf');
      assert.equal(request.scope, '@opentelemetry/instrumentation-http');
      assert.equal(request.kind, 2);
      assert.equal(request.attributes['http.route'], '/api/agents');
      assert.equal(request.attributes['http.response.status_code'] ?? request.attributes['http.status_code'], 201);
      const inRequest = (scope: string) =>
        collector.spans.filter(
          (s) => s.traceId === traceId && s.scope === scope && collector.descends(s, request.spanId),
        );
      const insert = await eventually(
        async () =>
          inRequest('@opentelemetry/instrumentation-pg').find((s) =>
            /^insert into "?agents"?/i.test(String(s.attributes['db.statement'] ?? s.attributes['db.query.text'])),
          ),
        15_000,
        'the INSERT of the agent as a pg span of the request',
      );
      assert.equal(insert.attributes['db.system'] ?? insert.attributes['db.system.name'], 'postgresql');
      // The statement's text, never its values: the agent's name was a bound parameter.
      const text = String(insert.attributes['db.statement'] ?? insert.attributes['db.query.text']);
      assert.ok(!text.includes('Exported Eve') && /\$1/.test(text), text);
      assert.ok(
        inRequest('@opentelemetry/instrumentation-express').some((s) => s.name === 'middleware - rows'),
        'the REST rows middleware is an express span of the request',
      );

      // The attempt: the worker's span, inside the request (a child of the span that wrote the outbox row), and what the receiver was told.
      const attempt = await eventually(
        async () => collector.spans.find((s) => s.name === 'webhook.attempt' && s.traceId === traceId),
        15_000,
        'the worker process to export its span',
      );
      assert.equal(attempt.service, 'switchboard-worker');
      assert.equal(attempt.encoding, 'json');
      assert.equal(attempt.kind, 3);
      assert.ok(collector.descends(attempt, request.spanId), 'the attempt descends from the request');
      assert.equal(attempt.spanId, sentSpanId);

      // A GraphQL query: the graphql instrumentation's parse and validate, beside the operation's span, inside the request.
      const query = await fetch(`${api.url}/graphql`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01`,
        },
        body: JSON.stringify({ query: '{ roles { records { id } } }' }),
      });
      assert.equal(query.status, 200, await query.clone().text());
      const graphqlRequest = await eventually(
        async () => collector.spans.find((s) => s.traceId === CALLER_TRACE && s.name === 'POST /graphql'),
        15_000,
        'the /graphql request span',
      );
      assert.equal(graphqlRequest.parentSpanId, CALLER_SPAN);
      const parse = await eventually(
        async () => collector.spans.find((s) => s.traceId === CALLER_TRACE && s.name === 'graphql.parse'),
        15_000,
        'the parse span',
      );
      assert.ok(collector.descends(parse, graphqlRequest.spanId));
      // The operation's own span (named by its type and name) and the instrumentation's execute, with the read's query inside.
      const operation = await eventually(
        async () =>
          collector.spans.find(
            (s) => s.traceId === CALLER_TRACE && s.scope === 'switchboard' && s.name === 'query anonymous',
          ),
        15_000,
        'the operation span',
      );
      assert.ok(collector.descends(operation, graphqlRequest.spanId));
      const read = await eventually(
        async () =>
          collector.spans.find(
            (s) =>
              s.traceId === CALLER_TRACE &&
              s.scope === '@opentelemetry/instrumentation-pg' &&
              s.name.startsWith('pg.query'),
          ),
        15_000,
        'the read as a pg span',
      );
      assert.ok(collector.descends(read, graphqlRequest.spanId));

      // Only API requests and attempts start traces: not the probes, nor the startup's work, nor the background loops.
      assert.equal((await fetch(`${api.url}/healthz`)).status, 200);
      await new Promise((resolve) => setTimeout(resolve, 600));
      const roots = collector.spans.filter((s) => !s.parentSpanId);
      assert.deepEqual(
        roots
          .filter(
            (s) =>
              !(s.kind === 2 && /^(GET|POST|PUT|PATCH|DELETE) \/(api|graphql)/.test(s.name)) &&
              s.name !== 'webhook.attempt',
          )
          .map((s) => `${s.service} ${s.name}`),
        [],
      );
    } finally {
      await kill(api);
      await kill(worker);
      await collector.close();
      await apart.close();
    }
  });
});
