import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

interface Profile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number } }>;
  samples: number[];
}

const readProfile = (dir: string) => JSON.parse(readFileSync(path.join(dir, readdirSync(dir).find((f) => f.endsWith('.cpuprofile'))!), 'utf8')) as Profile;

/** Self time by where the code lives: a package, a file of ours, Node's own, or V8's (GC, idle, program), as lines "percent  place". */
export function topPlaces(dir: string, count = 20): string[] {
  const profile = readProfile(dir);
  const counts = new Map<number, number>();
  for (const id of profile.samples) counts.set(id, (counts.get(id) ?? 0) + 1);
  const byPlace = new Map<string, number>();
  for (const node of profile.nodes) {
    const n = counts.get(node.id) ?? 0;
    if (!n) continue;
    const { functionName, url } = node.callFrame;
    const place = url.includes('node_modules/')
      ? url.replace(/^.*node_modules\/((@[^/]+\/)?[^/]+).*$/, '$1')
      : url.includes('/dist/') ? url.replace(/^.*\/dist\//, 'dist/') : url.startsWith('node:') ? 'node' : functionName ? `(${functionName})` : '(native)';
    byPlace.set(place, (byPlace.get(place) ?? 0) + n);
  }
  const all = profile.samples.length;
  return [...byPlace].sort((a, b) => b[1] - a[1]).slice(0, count).map(([key, n]) => `${((100 * n) / all).toFixed(1).padStart(5)}%  ${key}`);
}

/** The top frames by self time of the one .cpuprofile in `dir`, as lines "percent  function file:line". */
export function topFrames(dir: string, count = 15): string[] {
  const profile = readProfile(dir);
  const counts = new Map<number, number>();
  for (const id of profile.samples) counts.set(id, (counts.get(id) ?? 0) + 1);
  const byFrame = new Map<string, number>();
  for (const node of profile.nodes) {
    const n = counts.get(node.id) ?? 0;
    if (!n) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    const key = `${functionName || '(anonymous)'} ${url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*\/dist\//, 'dist/')}:${lineNumber + 1}`;
    byFrame.set(key, (byFrame.get(key) ?? 0) + n);
  }
  const all = profile.samples.length;
  return [...byFrame].sort((a, b) => b[1] - a[1]).slice(0, count).map(([key, n]) => `${((100 * n) / all).toFixed(1).padStart(5)}%  ${key}`);
}
