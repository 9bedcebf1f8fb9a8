// `npm run build` (second half): bundles the web interface (web/src, Preact)
// and the GraphQL explorer (web/explorer, GraphiQL on React) with esbuild into
// dist/web: index.html, explorer.html and assets/, the asset addresses carrying
// a content hash so a new build is never served stale.

import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const out = path.resolve('dist/web');
rmSync(out, { recursive: true, force: true });
mkdirSync(path.join(out, 'assets'), { recursive: true });

const bundles = [
  { name: 'app', entry: 'web/src/main.tsx', jsxImportSource: 'preact', page: 'web/index.html', html: 'index.html' },
  {
    name: 'explorer',
    entry: 'web/explorer/main.tsx',
    jsxImportSource: 'react',
    page: 'web/explorer.html',
    html: 'explorer.html',
  },
];

copyFileSync('web/favicon.svg', path.join(out, 'favicon.svg'));

const hash = (file) =>
  createHash('sha256')
    .update(readFileSync(path.join(out, 'assets', file)))
    .digest('hex')
    .slice(0, 12);
for (const bundle of bundles) {
  const result = await build({
    entryPoints: { [bundle.name]: bundle.entry },
    bundle: true,
    format: 'esm',
    target: ['chrome110', 'firefox115', 'safari16'],
    minify: true,
    sourcemap: 'linked',
    jsx: 'automatic',
    jsxImportSource: bundle.jsxImportSource,
    define: { 'process.env.NODE_ENV': '"production"' },
    outdir: path.join(out, 'assets'),
    legalComments: 'linked',
    logLevel: 'warning',
    metafile: true,
  });
  const html = readFileSync(bundle.page, 'utf8')
    .replace('%HASH_JS%', hash(`${bundle.name}.js`))
    .replace('%HASH_CSS%', hash(`${bundle.name}.css`));
  writeFileSync(path.join(out, bundle.html), html);
  const bytes = Object.entries(result.metafile.outputs)
    .filter(([file]) => !file.endsWith('.map'))
    .reduce((sum, [, o]) => sum + o.bytes, 0);
  process.stdout.write(`${bundle.name}: dist/web/${bundle.html} and its assets (${Math.round(bytes / 1024)} KiB)\n`);
}
