import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';

// The layout docs/architecture.md draws,
// checked on the sources: layers import downward only, a few sideways
// imports are ruled out, no import cycle outside MikroORM's entity pairs,
// no source file over 400 lines and no line over 160 characters.

const SRC = 'src';

/** Each part of src/ and its layer: a file may import its own layer or a lower one. */
const LAYERS: Array<[number, string[]]> = [
  [9, ['main.ts', 'generate.ts', 'create-migration.ts', 'seed/cli.ts', 'limits/cli.ts', 'listen/cli.ts', 'contract/']],
  [8, ['platform/runtime.ts', 'platform/generated.ts', 'platform/gc-threads.ts']],
  [7, ['platform/app.ts', 'seed/']],
  [6, ['http/', 'graphql/', 'rest/', 'jobs/', 'web/']],
  [5, ['resolvers/']],
  [4, ['composition.ts']],
  [3, ['services/', 'webhooks/', 'workflows/', 'spam/', 'telco/', 'decisions/']],
  // The repositories: under the services, over the entities and the context they act through.
  [2.5, ['repositories/']],
  [
    2,
    [
      'context/request-context.ts',
      'context/transaction.ts',
      'auth/',
      'db/',
      'limits/',
      'events/',
      'crypto/',
      'kernel/ids.ts',
      'kernel/time/',
      'mikro-orm.config.ts',
      'migrations/',
      'entities/',
    ],
  ],
  [
    1,
    [
      'kernel/',
      'config/config.ts',
      'config/config-error.ts',
      'config/cors-origins.ts',
      'config/dialer-settings.ts',
      'config/otel-variables.ts',
      'config/version.ts',
      'config/startup-failure.ts',
      'observability/',
    ],
  ],
];

/**
 * Imports ruled out: the core does not know REST; REST runs GraphQL
 * operations or the telco adapter, never a service; the services and the
 * webhook module meet only in the composition root.
 */
const FORBIDDEN: Array<[string, string]> = [
  ['graphql/', 'rest/'],
  ['http/edge.ts', 'rest/'],
  ['rest/', 'services/'],
  ['rest/', 'webhooks/'],
  ['services/', 'webhooks/'],
  ['webhooks/', 'services/'],
  // The call path's decisions and the services meet only in the composition root (through kernel/call-decision.ts).
  ['services/', 'decisions/'],
  ['decisions/', 'services/'],
  ['rest/', 'decisions/'],
  ['webhooks/', 'decisions/'],
  // What a webhook is (its configuration and contract) knows nothing of how it is delivered.
  ['webhooks/config/', 'webhooks/engine/'],
];

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) out.push(...sources(full));
    else if (/\.tsx?$/.test(name)) out.push(full);
  }
  return out;
}

/** Each source file (relative to src/) and the source files it imports, by relative specifier, static or dynamic, type-only included. */
function importGraph(): Map<string, string[]> {
  const files = sources(SRC).map((f) => path.relative(SRC, f));
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const text = readFileSync(path.join(SRC, file), 'utf8');
    const targets = new Set<string>();
    for (const match of text.matchAll(/(?:from|import)\s*\(?\s*'(\.[^']+)'/g)) {
      const base = path.normalize(path.join(path.dirname(file), match[1])).replace(/\.js$/, '');
      const target = [`${base}.ts`, `${base}.tsx`].find((candidate) => known.has(candidate));
      if (target) targets.add(target);
    }
    graph.set(file, [...targets]);
  }
  return graph;
}

const inPart = (file: string, part: string) => (part.endsWith('/') ? file.startsWith(part) : file === part);
const layerOf = (file: string) => LAYERS.find(([, parts]) => parts.some((part) => inPart(file, part)))?.[0];

/** Strongly connected components of more than one file (Tarjan). */
function cycles(graph: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

describe('architecture', () => {
  const graph = importGraph();

  test('every source file belongs to a layer', () => {
    assert.deepEqual(
      [...graph.keys()].filter((file) => layerOf(file) === undefined),
      [],
    );
  });

  test('imports go to the same layer or a lower one', () => {
    const upward: string[] = [];
    for (const [file, targets] of graph) {
      for (const target of targets)
        if (layerOf(target)! > layerOf(file)!)
          upward.push(`${file} (layer ${layerOf(file)}) imports ${target} (layer ${layerOf(target)})`);
    }
    assert.deepEqual(upward, []);
  });

  test('the core does not import REST, and services and webhooks meet only in the composition root', () => {
    const ruledOut: string[] = [];
    for (const [file, targets] of graph) {
      for (const target of targets) {
        for (const [from, to] of FORBIDDEN)
          if (inPart(file, from) && inPart(target, to)) ruledOut.push(`${file} imports ${target}`);
      }
    }
    assert.deepEqual(ruledOut, []);
  });

  test('no import cycle', () => {
    assert.deepEqual(cycles(graph), []);
  });

  // 400 lines as the formatter writes them (120 wide); docs/adr/0054-formatter-line-width-and-file-size.md says why.
  test('no source file is over 400 lines', () => {
    const long = [...sources(SRC), ...sources(path.join('web', 'src'))]
      .filter((file) => !file.includes(`${path.sep}migrations${path.sep}`))
      .map((file) => ({ file, lines: readFileSync(file, 'utf8').split('\n').length - 1 }))
      .filter(({ lines }) => lines > 400)
      .map(({ file, lines }) => `${file}: ${lines} lines`);
    assert.deepEqual(long, []);
  });

  test('no line is over 160 characters outside generated files', () => {
    const written = [SRC, 'test', 'bench', path.join('web', 'src'), path.join('web', 'explorer')].flatMap((dir) =>
      sources(dir),
    );
    const generated = (file: string) =>
      file.includes(`${path.sep}migrations${path.sep}`) || file.endsWith('.generated.ts');
    const long = written
      .filter((file) => !generated(file))
      .flatMap((file) =>
        readFileSync(file, 'utf8')
          .split('\n')
          .flatMap((line, i) => (line.length > 160 ? [`${file}:${i + 1}: ${line.length} characters`] : [])),
      );
    assert.deepEqual(long, []);
  });

  // docs/adr/0079: the repositories are the one place that knows tables and columns. The services, resolvers, REST and
  // GraphQL layers hold no statement and no EntityManager, nor do the webhook and decision modules outside the delivery
  // engine.
  test('no statement in the services, resolvers, REST or GraphQL', () => {
    const STATEMENT = /\bctx\.sql\b|\.sql<|\.sql\(|\.em\b|\b(readPage|readNewestPage|readDeepPage)\(/;
    const holding = [
      'services',
      'resolvers',
      'rest',
      'graphql',
      'decisions',
      'webhooks/config',
      'webhooks/tools',
      'workflows',
      'spam',
      'telco',
    ]
      .flatMap((dir) => sources(path.join(SRC, dir)))
      .filter((file) => STATEMENT.test(readFileSync(file, 'utf8')))
      .map((file) => path.relative(SRC, file).split(path.sep).join('/'))
      .sort();
    assert.deepEqual(holding, []);
  });

  // docs/adr/0060-one-way-into-the-database.md: statements go through ctx.sql alone, with $1, $2... placeholders.
  test('one way into the database: ctx.sql, with numbered placeholders', () => {
    const product = sources(SRC).filter((file) => !file.includes(`${path.sep}migrations${path.sep}`));
    const found: string[] = [];
    for (const file of product) {
      const text = readFileSync(file, 'utf8');
      for (const [i, line] of text.split('\n').entries()) {
        if (
          /\bctx\.read\b|\.committed\(|\bem\.execute\(|\.getConnection\(\)\.execute\(/.test(line) &&
          !file.includes('seed') &&
          !file.endsWith('request-context.ts')
        )
          found.push(`${file}:${i + 1}: ${line.trim()}`);
        // MikroORM is known to the migrator, the entities, the repositories and the one place forks are made.
        if (
          /from '@mikro-orm\//.test(line) &&
          !/db[\\/](migrate|entity-manager)\.ts$|mikro-orm\.config\.ts$|(entities|repositories)[\\/]/.test(file)
        )
          found.push(`${file}:${i + 1}: ${line.trim()}`);
        // A `?` placeholder in a statement's text: after an operator, a comma or a parenthesis, before one of them or the end.
        if (
          /\b(SELECT|INSERT|UPDATE|DELETE|VALUES|WHERE|SET)\b/.test(line) &&
          /(=|<|>|,|\(|IN) ?\?(?=[\s,)'`:]|$)/.test(line)
        )
          found.push(`${file}:${i + 1}: ${line.trim()}`);
      }
    }
    assert.deepEqual(found, []);
  });

  test('a comment that names a source file names one that exists', () => {
    const stale: string[] = [];
    for (const file of graph.keys()) {
      const text = readFileSync(path.join(SRC, file), 'utf8');
      for (const [, named] of text.matchAll(/(?:\/\/|\*).*?\b((?:src\/)?[a-z-]+(?:\/[a-z0-9.-]+)+\.tsx?)\b/g)) {
        const candidates = named.startsWith('src/')
          ? [named]
          : [named, path.join(SRC, named), path.join(SRC, path.dirname(file), named)];
        if (!candidates.some((candidate) => existsSync(candidate))) stale.push(`${file}: ${named}`);
      }
    }
    assert.deepEqual(stale, []);
  });

  test('every export is imported somewhere (the code, its tests, its bench, the web app)', () => {
    const everything = [SRC, 'test', 'bench', 'web/src', 'scripts']
      .filter((dir) => existsSync(dir))
      .flatMap((dir) => sources(dir))
      .map((file) => [file, readFileSync(file, 'utf8')] as const);
    const unused: string[] = [];
    // Migrations are found by file name; the webhook guide's generator writes code samples that begin with `export`.
    for (const file of [...graph.keys()].filter(
      (f) => !f.startsWith('migrations/') && f !== 'webhooks/config/docs.ts',
    )) {
      const text = readFileSync(path.join(SRC, file), 'utf8');
      for (const [, name] of text.matchAll(/^export (?:async )?(?:function|const|class|interface|type|enum) (\w+)/gm)) {
        const used = everything.some(
          ([other, body]) => other !== path.join(SRC, file) && new RegExp(`\\b${name}\\b`).test(body),
        );
        // A name used only in its own file beyond its declaration is exported for a reason the file states.
        if (!used && text.split(new RegExp(`\\b${name}\\b`)).length <= 2) unused.push(`${file}: ${name}`);
      }
    }
    assert.deepEqual(unused, []);
  });

  test('the checks see a violation when there is one', () => {
    // A made-up graph: a resolver imported by a service (upward), and a two-file cycle.
    const made = new Map([
      ['services/a.service.ts', ['resolvers/a.resolver.ts']],
      ['resolvers/a.resolver.ts', ['services/a.service.ts']],
    ]);
    assert.deepEqual(cycles(made), [['resolvers/a.resolver.ts', 'services/a.service.ts']]);
    assert.ok(layerOf('services/a.service.ts')! < layerOf('resolvers/a.resolver.ts')!);
  });
});
