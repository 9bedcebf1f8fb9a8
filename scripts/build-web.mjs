// `npm run build` (second half): bundles the web interface (web/) with esbuild
// into dist/web: index.html, assets/app.js and assets/app.css, the asset
// addresses carrying a content hash so a new build is never served stale.

import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const out = path.resolve('dist/web');
rmSync(out, { recursive: true, force: true });
mkdirSync(path.join(out, 'assets'), { recursive: true });

const result = await build({
  entryPoints: { app: 'web/src/main.tsx' },
  bundle: true,
  format: 'esm',
  target: ['chrome110', 'firefox115', 'safari16'],
  minify: true,
  sourcemap: 'linked',
  jsx: 'automatic',
  jsxImportSource: 'preact',
  outdir: path.join(out, 'assets'),
  legalComments: 'linked',
  logLevel: 'warning',
  metafile: true,
});

const hash = (file) => createHash('sha256').update(readFileSync(path.join(out, 'assets', file))).digest('hex').slice(0, 12);
const html = readFileSync('web/index.html', 'utf8').replace('%HASH_JS%', hash('app.js')).replace('%HASH_CSS%', hash('app.css'));
writeFileSync(path.join(out, 'index.html'), html);
const bytes = Object.values(result.metafile.outputs).reduce((sum, o) => sum + o.bytes, 0);
process.stdout.write(`web interface built in dist/web (${Math.round(bytes / 1024)} KiB with source maps)\n`);
