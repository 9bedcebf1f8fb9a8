// Before `npm start`, `npm run seed` and `npm run simulate`: compile what
// changed since the last build (SWC for the service, esbuild for the web
// interface), saying so first, so that a fresh clone starts in seconds and an
// unchanged tree at once. Types are checked by `npm run typecheck`, not here.

import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

const newest = (entry) => {
  const stat = statSync(entry);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(0, ...readdirSync(entry).map((name) => newest(path.join(entry, name))));
};
const stale = (output, inputs) =>
  !existsSync(output) || Math.max(...inputs.filter(existsSync).map(newest)) > statSync(output).mtimeMs;
const run = (...args) => {
  const result = spawnSync(process.execPath, args, { stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
};

const server = stale('dist/src/main.js', ['src', 'scripts/compile.mjs', 'package.json']);
const web = stale('dist/web/index.html', ['web', 'scripts/build-web.mjs', 'package.json']);
if (server || web)
  process.stdout.write(
    `building ${[server && 'the service', web && 'the web interface'].filter(Boolean).join(' and ')} into dist/ (a few seconds, once)\n`,
  );
if (server) run('scripts/compile.mjs');
if (web) run('scripts/build-web.mjs');
