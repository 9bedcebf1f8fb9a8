declare module 'autocannon' {
  interface Histogram {
    average: number;
    p50: number;
    p99: number;
    mean: number;
  }
  interface Result {
    requests: Histogram & { total: number };
    latency: Histogram;
    non2xx: number;
    errors: number;
    duration: number;
  }
  /** A run: a promise of its result that also emits each `response` (client, status, bytes, milliseconds). */
  interface Running extends PromiseLike<Result> {
    on(event: 'response', listener: (client: unknown, status: number, bytes: number, ms: number) => void): Running;
  }
  function autocannon(options: Record<string, unknown>): Running;
  export default autocannon;
}
