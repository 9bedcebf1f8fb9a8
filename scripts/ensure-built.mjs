// Before `npm start` and `npm run seed`: compile only when a source file is
// newer than the last build, so an unchanged tree starts at once.

import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

const output = path.resolve('dist/src/main.js');
const inputs = ['src', 'tsconfig.json', 'package.json'];

const newest = (entry) => {
  const stat = statSync(entry);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(0, ...readdirSync(entry).map((name) => newest(path.join(entry, name))));
};

const stale = !existsSync(output) || Math.max(...inputs.filter(existsSync).map(newest)) > statSync(output).mtimeMs;
if (stale) {
  const tsc = spawnSync(process.execPath, [path.resolve('node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], { stdio: 'inherit' });
  if (tsc.status !== 0) process.exit(tsc.status ?? 1);
}
