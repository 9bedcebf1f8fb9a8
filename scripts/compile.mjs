// `npm run build` (first half) and `npm start`: emits dist/ from src/, test/
// and bench/ with SWC, file by file, in about a second. SWC keeps what tsc
// would emit for this code: legacy decorators with their design-time metadata
// (type-graphql and MikroORM read it), class fields assigned in the
// constructor, ES modules. Types are checked separately by `npm run typecheck`
// (tsc --noEmit), which `npm test` and CI run first.
//
//   node scripts/compile.mjs          only files newer than their output
//   node scripts/compile.mjs --all    every file

import { transformFile } from '@swc/core';
import { mkdirSync, readdirSync, statSync, writeFileSync, existsSync } from 'node:fs';
import path from 'node:path';

const roots = ['src', 'test', 'bench'];
const all = process.argv.includes('--all');

const options = (file) => ({
  filename: file,
  swcrc: false,
  configFile: false,
  sourceMaps: true,
  module: { type: 'es6', resolveFully: false },
  jsc: {
    target: 'es2022',
    keepClassNames: true,
    parser: { syntax: 'typescript', decorators: true },
    transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
  },
});

const sources = (dir) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sources(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [full] : [];
  });

const outputOf = (file) => path.join('dist', file.replace(/\.ts$/, '.js'));
const stale = (file) => all || !existsSync(outputOf(file)) || statSync(file).mtimeMs > statSync(outputOf(file)).mtimeMs;

const started = Date.now();
const files = roots.filter(existsSync).flatMap(sources).filter(stale);
await Promise.all(
  files.map(async (file) => {
    const output = outputOf(file);
    const result = await transformFile(file, options(file));
    mkdirSync(path.dirname(output), { recursive: true });
    const map = JSON.parse(result.map);
    map.sources = [path.relative(path.dirname(output), file)];
    writeFileSync(output, `${result.code}\n//# sourceMappingURL=${path.basename(output)}.map\n`);
    writeFileSync(`${output}.map`, JSON.stringify(map));
  }),
);
if (files.length > 0) process.stdout.write(`compiled ${files.length} files into dist/ in ${Date.now() - started} ms\n`);
