import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

interface Profile {
  nodes: Array<{ id: number; callFrame: CallFrame; children?: number[] }>;
  samples: number[];
}

/** Start-up, not requests: loading modules, and the service's start (schema, routes). */
const startingUp = (frame: CallFrame) =>
  frame.url.startsWith('node:internal/modules/') || frame.functionName === 'startService';

/**
 * Self time of the one .cpuprofile in `dir` while requests were answered
 * (samples of idle time and of the start-up left out), summed under the key
 * `keyOf` gives each frame, as lines "percent  key", the largest `count` first.
 */
function selfTime(dir: string, keyOf: (frame: CallFrame) => string, count: number): string[] {
  const profile = JSON.parse(
    readFileSync(path.join(dir, readdirSync(dir).find((f) => f.endsWith('.cpuprofile'))!), 'utf8'),
  ) as Profile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const startup = (id: number) => {
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at))
      if (startingUp(byId.get(at)!.callFrame)) return true;
    return false;
  };
  const samples = new Map<number, number>();
  let all = 0;
  let idle = 0;
  let starting = 0;
  for (const id of profile.samples) {
    if (byId.get(id)!.callFrame.functionName === '(idle)') idle++;
    else if (startup(id)) starting++;
    else {
      samples.set(id, (samples.get(id) ?? 0) + 1);
      all++;
    }
  }
  const byKey = new Map<string, number>();
  for (const node of profile.nodes) {
    const n = samples.get(node.id) ?? 0;
    if (n) byKey.set(keyOf(node.callFrame), (byKey.get(keyOf(node.callFrame)) ?? 0) + n);
  }
  const share = (n: number, of: number) => `${((100 * n) / of).toFixed(1).padStart(5)}%`;
  const total = profile.samples.length;
  return [
    `(of all samples: ${share(idle, total).trim()} idle and ${share(starting, total).trim()} starting up, left out)`,
    ...[...byKey]
      .sort((a, b) => b[1] - a[1])
      .slice(0, count)
      .map(([key, n]) => `${share(n, all)}  ${key}`),
  ];
}

/** Self time by where the code lives: a package, a file of ours, Node's own, or V8's (GC, idle, program). */
export const topPlaces = (dir: string, count = 20) =>
  selfTime(
    dir,
    ({ functionName, url }) =>
      url.includes('node_modules/')
        ? url.replace(/^.*node_modules\/((@[^/]+\/)?[^/]+).*$/, '$1')
        : url.includes('/dist/')
          ? url.replace(/^.*\/dist\//, 'dist/')
          : url.startsWith('node:')
            ? 'node'
            : functionName
              ? `(${functionName})`
              : '(native)',
    count,
  );

/** The top frames by self time, as "function file:line". */
export const topFrames = (dir: string, count = 15) =>
  selfTime(
    dir,
    ({ functionName, url, lineNumber }) =>
      `${functionName || '(anonymous)'} ${url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*\/dist\//, 'dist/')}:${lineNumber + 1}`,
    count,
  );
