// What OpenTelemetry's standard variables choose that the service acts on
// itself (read by config.ts; the SDK and its exporter read the rest):
//   - the OTLP protocol the traces are exported with: OTEL_EXPORTER_OTLP_TRACES_PROTOCOL,
//     else OTEL_EXPORTER_OTLP_PROTOCOL, else http/protobuf, the
//     specification's default (http/json the other one served; not grpc);
//   - which libraries' official instrumentations run when tracing is on
//     (instrumentation.ts), by the variables OpenTelemetry's Node
//     distribution reads: OTEL_NODE_ENABLED_INSTRUMENTATIONS names them,
//     OTEL_NODE_DISABLED_INSTRUMENTATIONS takes some away (comma-separated).

/** The OTLP protocols traces can be exported with: protobuf or JSON, over HTTP. */
export const OTLP_PROTOCOLS = ['http/protobuf', 'http/json'] as const;
export type OtlpProtocol = (typeof OTLP_PROTOCOLS)[number];

/** The protocol the two variables choose; `fail` is told what is wrong with the one given. */
export function otlpProtocol(
  env: Record<string, string | undefined>,
  fail: (variable: string, problem: string) => never,
): OtlpProtocol {
  const variable = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL
    ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL'
    : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const value = env[variable] || 'http/protobuf';
  if (!(OTLP_PROTOCOLS as readonly string[]).includes(value))
    fail(variable, `is ${value}: this service exports traces over ${OTLP_PROTOCOLS.join(' or ')}`);
  return value as OtlpProtocol;
}

/** The libraries the service's traces can instrument, by the names that distribution gives them. */
export const TRACED_LIBRARIES = ['http', 'express', 'pg', 'graphql'] as const;
export type TracedLibrary = (typeof TRACED_LIBRARIES)[number];

/**
 * None: the request's server span, its GraphQL operation, its statements
 * and the webhook attempts are the service's own spans (tracing.ts), which
 * need no context manager. The libraries' instrumentations, and the
 * AsyncLocalStorage context manager they need, cost the read path more than
 * tracing may by default (README, Performance: tracing), so they are the
 * operator's choice.
 */
export const DEFAULT_TRACED_LIBRARIES: readonly TracedLibrary[] = [];

/** The libraries the two variables choose; `fail` is told what is wrong with one of them. */
export function tracedLibraries(
  env: Record<string, string | undefined>,
  fail: (variable: string, problem: string) => never,
): TracedLibrary[] {
  const list = (variable: string) => {
    const names = (env[variable] ?? '')
      .split(',')
      .map((name) => name.trim())
      .filter(Boolean);
    const unknown = names.filter((name) => !(TRACED_LIBRARIES as readonly string[]).includes(name));
    if (unknown.length > 0)
      fail(variable, `names ${unknown.join(', ')}: it takes a comma-separated list of ${TRACED_LIBRARIES.join(', ')}`);
    return names;
  };
  const [enabled, disabled] = [list('OTEL_NODE_ENABLED_INSTRUMENTATIONS'), list('OTEL_NODE_DISABLED_INSTRUMENTATIONS')];
  const chosen: readonly string[] = enabled.length > 0 ? enabled : DEFAULT_TRACED_LIBRARIES;
  return TRACED_LIBRARIES.filter((name) => chosen.includes(name) && !disabled.includes(name));
}
