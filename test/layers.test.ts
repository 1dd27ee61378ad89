// The arrows of docs/architecture.md, held: each folder of src/ may import only the folders its row allows
// (an allow-list: a new arrow is a decision, written here and in the doc's table, which this test keeps
// equal), the CLI reaches the sandbox only through sandbox/index.ts, and no module imports itself back
// through others (a cycle of static imports, types included; a lazy `import()` is a one-way door).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = resolve(import.meta.dirname, '../src');

/** Row: a folder of src/ ("." for the entry files at its top); the folders it may import besides itself. */
const ALLOWED: Record<string, readonly string[]> = {
  lib: [],
  contract: ['lib'],
  sandbox: ['lib', 'contract'],
  console: ['lib', 'contract'],
  api: ['lib', 'contract'],
  exit: ['lib', 'contract', 'api'],
  watch: ['lib', 'contract', 'api'],
  ui: ['lib', 'contract', 'exit', 'watch'],
  config: ['lib', 'contract', 'api', 'exit'],
  'app-spec': ['lib', 'contract', 'exit'],
  artifacts: ['lib', 'contract', 'api', 'exit'],
  webhooks: ['lib', 'contract', 'api', 'exit', 'config'],
  mcp: ['lib', 'contract', 'api', 'exit', 'watch', 'artifacts'],
  sdk: ['lib', 'contract', 'api', 'exit', 'watch', 'config', 'artifacts', 'sandbox'],
  commands: [
    'lib',
    'contract',
    'api',
    'exit',
    'watch',
    'ui',
    'config',
    'app-spec',
    'artifacts',
    'webhooks',
    'mcp',
    'sandbox',
  ],
  cli: ['lib', 'contract', 'api', 'exit', 'ui', 'config', 'commands'],
  '.': ['lib', 'cli'],
};

/** Packages a browser page may load: the console imports nothing else from outside. */
const CONSOLE_PACKAGES = /^(preact|htm)(\/|$)/;

interface Edge {
  file: string;
  target: string;
  /** A package or a Node built-in, named as imported; else a path relative to src/. */
  pkg: boolean;
  /** `import()`: loaded when first needed, so it cannot close a cycle at load. */
  lazy: boolean;
}

function sourceFiles(): string[] {
  return readdirSync(SRC, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && /\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts'))
    .map((e) => relative(SRC, join(e.parentPath, e.name)));
}

/** Every import of src/: relative ones resolved to a file of src/ (or a path outside it), packages as named. */
function edges(): Edge[] {
  const out: Edge[] = [];
  const pattern =
    /(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s+'([^']+)'|(?:^|\n)\s*import\s+'([^']+)'|import\(\s*'([^']+)'\s*\)/g;
  for (const file of sourceFiles()) {
    const dir = join(SRC, file, '..');
    for (const m of readFileSync(join(SRC, file), 'utf8').matchAll(pattern)) {
      const spec = (m[1] ?? m[2] ?? m[3])!;
      const path = spec.split('?')[0]!;
      const pkg = !spec.startsWith('.');
      const target = pkg ? spec : relative(SRC, resolve(dir, path)).replace(/\.js$/, '.ts');
      out.push({ file, target, pkg, lazy: m[3] !== undefined });
    }
  }
  return out;
}

const folderOf = (path: string) => (path.includes('/') ? path.split('/')[0]! : '.');
/** A module of src/ (not a package, not a file beside src/ such as docs/topics/*.md read as text). */
const isLocal = (e: Edge) => !e.pkg && !e.target.startsWith('..');

/** The arrows that break the matrix: an import of a folder the row does not allow, or past the sandbox's door. */
function violations(all: readonly Edge[]): string[] {
  const bad: string[] = [];
  for (const edge of all) {
    const { file, target } = edge;
    const from = folderOf(file);
    if (edge.pkg && from === 'console' && !CONSOLE_PACKAGES.test(target)) bad.push(`${file} -> ${target}`);
    if (!isLocal(edge)) continue;
    const to = folderOf(target);
    if (from === to) continue;
    const allowed = ALLOWED[from];
    if (!allowed?.includes(to)) bad.push(`${file} -> ${target}`);
    else if (to === 'sandbox' && target !== 'sandbox/index.ts') bad.push(`${file} -> ${target} (not sandbox/index.ts)`);
  }
  return bad;
}

/** The cycles among static imports (types included), each as the files on it. */
function cycles(all: readonly Edge[]): string[][] {
  const graph = new Map<string, string[]>();
  for (const edge of all) {
    if (edge.lazy || !isLocal(edge)) continue;
    graph.set(edge.file, [...(graph.get(edge.file) ?? []), edge.target]);
  }
  const found: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (node: string): void => {
    state.set(node, 'open');
    path.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === 'open') found.push(path.slice(path.indexOf(next)));
      else if (!state.has(next)) visit(next);
    }
    path.pop();
    state.set(node, 'done');
  };
  for (const node of graph.keys()) if (!state.has(node)) visit(node);
  return found;
}

/** The matrix as the table docs/architecture.md shows. */
function table(): string {
  const rows = Object.entries(ALLOWED).map(
    ([folder, may]) =>
      `| ${folder === '.' ? 'src/*.ts (entries)' : `${folder}/`} | ${may.join(', ') || '(nothing of orc)'} |`,
  );
  return ['| folder | may import |', '| --- | --- |', ...rows].join('\n');
}

describe('arrows', () => {
  const all = edges();

  it('every folder of src/ imports only what its row of the matrix allows', () => {
    expect(all.filter(isLocal).length).toBeGreaterThan(500); // the scan reads the imports
    expect(Object.keys(ALLOWED).sort()).toEqual(
      [...new Set(sourceFiles().map(folderOf))].sort(), // a new folder needs its row
    );
    expect(violations(all)).toEqual([]);
  });

  it('names every module it imports in plain words: an import() of a computed name would pass the matrix unseen', () => {
    const computed = sourceFiles().flatMap((file) =>
      [...readFileSync(join(SRC, file), 'utf8').matchAll(/\bimport\(\s*([^'\s)][^)]*)\)/g)].map(
        (m) => `${file}: import(${m[1]})`,
      ),
    );
    expect(computed).toEqual([]);
  });

  it('the matrix catches an arrow it does not allow, and a reach past the sandbox door', () => {
    const fake = (file: string, target: string): Edge => ({ file, target, pkg: !target.includes('.ts'), lazy: false });
    expect(
      violations([
        fake('api/http.ts', 'exit/errors.ts'),
        fake('commands/sandbox/start.ts', 'sandbox/server.ts'),
        fake('commands/sandbox/start.ts', 'sandbox/index.ts'),
        fake('console/main.ts', 'chalk'),
        fake('console/main.ts', 'preact/hooks'),
      ]),
    ).toEqual([
      'api/http.ts -> exit/errors.ts',
      'commands/sandbox/start.ts -> sandbox/server.ts (not sandbox/index.ts)',
      'console/main.ts -> chalk',
    ]);
  });

  it('no module imports itself back through others', () => {
    expect(cycles(all)).toEqual([]);
    const fake = (file: string, target: string, lazy = false): Edge => ({ file, target, pkg: false, lazy });
    expect(cycles([fake('a/x.ts', 'a/y.ts'), fake('a/y.ts', 'a/x.ts')])).toEqual([['a/x.ts', 'a/y.ts']]);
    expect(cycles([fake('a/x.ts', 'a/y.ts', true), fake('a/y.ts', 'a/x.ts')])).toEqual([]);
  });

  it('docs/architecture.md draws this matrix', () => {
    const doc = readFileSync(resolve(SRC, '../docs/architecture.md'), 'utf8');
    expect(doc).toContain(table());
  });
});

describe('the shape of functions', () => {
  it('is waived only for a data table, saying which (npm test runs oxlint: 60 lines, nesting 4)', () => {
    const waivers = sourceFiles().flatMap((file) =>
      readFileSync(join(SRC, file), 'utf8')
        .split('\n')
        .filter((line) => /(oxlint|eslint)-disable/.test(line))
        // one of the two shape rules, or every rule at once (a bare disable)
        .filter((line) => /max-lines|max-depth|-disable(-next-line|-line)?\s*(\*\/)?\s*$/.test(line))
        .map((line) => `${file}: ${line.trim()}`),
    );
    expect(waivers.length).toBeGreaterThan(0); // the scan sees the tables' waivers
    const other = waivers.filter(
      (w) => !/: \/\/ oxlint-disable-next-line max-lines-per-function -- a data table: \S/.test(w),
    );
    expect(other).toEqual([]);
  });
});

describe('the tests mirror src/', () => {
  const TEST = resolve(import.meta.dirname);
  const tests = readdirSync(TEST, { recursive: true, encoding: 'utf8' }).filter(
    (f) => f.endsWith('.test.ts') && !f.startsWith('bench/') && !f.startsWith('helpers/'),
  );

  it('a test file sits in the folder of src/ its subject is in (end-to-end ones in test/e2e, test/package)', () => {
    expect(tests.length).toBeGreaterThan(60);
    const astray = tests.filter((f) => {
      const dir = f.split('/').slice(0, -1).join('/');
      // The whole tree; the built orc; the packed library in a user's projects; scripts/.
      if (dir === '' || dir === 'e2e' || dir === 'package' || dir === 'scripts') return false;
      return !existsSync(join(SRC, dir));
    });
    expect(astray).toEqual([]);
  });

  it('no file name is used twice', () => {
    const seen = new Map<string, string[]>();
    for (const f of tests) {
      const name = f.split('/').at(-1)!;
      seen.set(name, [...(seen.get(name) ?? []), f]);
    }
    expect([...seen.values()].filter((paths) => paths.length > 1)).toEqual([]);
  });
});
