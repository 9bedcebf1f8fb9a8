// Before `npm start` and `npm run seed`: compile only what changed since the
// last build (the service, the web interface), so an unchanged tree starts at once.

import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

const newest = (entry) => {
  const stat = statSync(entry);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(0, ...readdirSync(entry).map((name) => newest(path.join(entry, name))));
};
const stale = (output, inputs) => !existsSync(output) || Math.max(...inputs.filter(existsSync).map(newest)) > statSync(output).mtimeMs;
const run = (...args) => {
  const result = spawnSync(process.execPath, args, { stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
};
const tsc = path.resolve('node_modules/typescript/bin/tsc');

if (stale('dist/src/main.js', ['src', 'tsconfig.json', 'package.json'])) run(tsc, '-p', 'tsconfig.json');
if (stale('dist/web/index.html', ['web', 'scripts/build-web.mjs', 'package.json'])) {
  run(tsc, '-p', 'web/tsconfig.json');
  run('scripts/build-web.mjs');
}
