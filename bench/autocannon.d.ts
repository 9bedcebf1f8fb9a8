declare module 'autocannon' {
  interface Histogram { average: number; p50: number; p99: number; mean: number }
  interface Result { requests: Histogram; latency: Histogram; non2xx: number; errors: number; duration: number }
  function autocannon(options: Record<string, unknown>): Promise<Result>;
  export default autocannon;
}
