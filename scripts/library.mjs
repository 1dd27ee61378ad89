// orc as a library (`orc-cli`, `orc-cli/testing`): what the npm package gives `import` and `require` besides the
// CLI. The ESM entries (dist/index.js, dist/testing.js) are built with the CLI's own (scripts/build.mjs), so
// they share its chunks; here: the CommonJS bundles and the type declarations.
//
// Declarations: tsc emits them (tsconfig.types.json), and only the files the two entries reach ship, each as
// .d.ts (for import) and .d.cts (for require). They may import nothing but Node's modules: a user installs
// orc-cli alone (everything is bundled), so a declaration that named zod would leave its types unresolved.
// The one file that does, contract/schemas.d.ts (its shapes are zod schemas), is written instead from the
// schemas themselves, read at build time: the same shapes, as plain interfaces (test/sdk/declarations.test.ts
// holds them equal to what zod infers).
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { pathToFileURL } from 'node:url';
import { codeOptions } from './bundle-options.mjs';

const ROOT = new URL('..', import.meta.url).pathname;
const CACHE = join(ROOT, 'node_modules/.cache');
export const LIBRARY_ENTRIES = { index: 'src/sdk/index.ts', testing: 'src/sdk/testing.ts' };

export async function buildLibrary() {
  await buildCommonJs();
  await writeDeclarations();
}

/**
 * dist/cjs/index.cjs and testing.cjs. A CommonJS build cannot share chunks, so testing.cjs takes what it uses
 * of the library (the client, the errors) from index.cjs, never a copy of its own: an error its sandbox's
 * client throws is then the class a test imports from 'orc-cli'.
 */
async function buildCommonJs() {
  const base = codeOptions({ standalone: false });
  const library = /[\\/]src[\\/](sdk[\\/](?!testing\.ts)[^\\/]+|api[\\/]errors)\.ts$/;
  await build({
    ...base,
    plugins: [
      ...base.plugins,
      {
        name: 'library-from-index',
        setup(b) {
          b.onResolve({ filter: /^\./ }, (args) => {
            if (!/[\\/]src[\\/]sdk[\\/]testing\.ts$/.test(args.importer)) return undefined;
            const target = join(args.resolveDir, args.path.replace(/\.js$/, '.ts'));
            return library.test(target) ? { path: './index.cjs', external: true } : undefined;
          });
        },
      },
    ],
    entryPoints: LIBRARY_ENTRIES,
    outdir: 'dist/cjs',
    outExtension: { '.js': '.cjs' },
    format: 'cjs',
    target: 'node22.12',
    // import.meta.url, which the sandbox reads to find its console, is the .cjs file itself.
    inject: ['scripts/import-meta-url.js'],
    define: { ...base.define, 'import.meta.url': 'import_meta_url' },
    sourcemap: false,
  });
}

/** The declarations the entries reach, checked to import nothing outside them, as .d.ts and .d.cts. */
async function writeDeclarations() {
  const out = join(CACHE, 'orc-types');
  rmSync(out, { recursive: true, force: true });
  const tsc = spawnSync(join(ROOT, 'node_modules/.bin/tsc'), ['-p', 'tsconfig.types.json'], { encoding: 'utf8' });
  if (tsc.status !== 0)
    throw new Error(`build: the library's declarations did not compile:\n${tsc.stdout}${tsc.stderr}`);
  writeFileSync(join(out, 'contract/schemas.d.ts'), await contractDeclarations(join(out, 'contract/schemas.d.ts')));
  const files = reached(out, ['sdk/index.d.ts', 'sdk/testing.d.ts']);
  rmSync('dist/types', { recursive: true, force: true });
  for (const file of files) {
    const text = readFileSync(join(out, file), 'utf8');
    mkdirSync(dirname(join('dist/types', file)), { recursive: true });
    writeFileSync(join('dist/types', file), text);
    // For require: the same declarations, naming each other's .cjs (TypeScript then reads them as CommonJS).
    const cts = text.replace(/((?:from\s+|import\()\s*['"]\.{1,2}\/[^'"]+?)\.js(['"])/g, '$1.cjs$2');
    writeFileSync(join('dist/types', file.replace(/\.d\.ts$/, '.d.cts')), cts);
  }
  return files;
}

/** The declaration files `roots` import, transitively; any import of a package but Node's fails the build. */
function reached(dir, roots) {
  const seen = new Set();
  const missing = roots.filter((r) => !existsSync(join(dir, r)));
  if (missing.length) throw new Error(`build: tsc wrote no ${missing.join(', ')}; check tsconfig.types.json's files`);
  const queue = [...roots];
  while (queue.length) {
    const file = queue.pop();
    if (seen.has(file)) continue;
    seen.add(file);
    const text = readFileSync(join(dir, file), 'utf8');
    for (const [, spec] of text.matchAll(/(?:from\s+|import\()\s*['"]([^'"]+)['"]/g)) {
      if (spec.startsWith('.')) queue.push(normalize(join(dirname(file), spec.replace(/\.(js|ts)$/, '.d.ts'))));
      else if (!spec.startsWith('node:'))
        throw new Error(
          `build: the library's declaration ${file} imports ${spec}, which a user of orc-cli does not have; keep it out of the public types (@internal) or name its types in src/sdk`,
        );
    }
  }
  return [...seen].sort();
}

/**
 * contract/schemas.d.ts as plain TypeScript: each exported schema as the type it parses to (a loose object
 * keeps `[key: string]: unknown`; a `knownOr` string is its values or any string), nested schemas by name.
 * Page<T>, an interface in the source, is kept as tsc wrote it.
 */
export async function contractDeclarations(emitted) {
  const bundle = join(CACHE, 'orc-schemas.mjs');
  await build({
    entryPoints: ['src/contract/schemas.ts'],
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile: bundle,
    logLevel: 'warning',
  });
  const S = await import(`${pathToFileURL(bundle).href}?${Date.now()}`);
  const named = new Map();
  for (const [name, value] of Object.entries(S)) if (isSchema(value)) named.set(value, name);
  const print = (schema, top = false) => {
    if (!top && named.has(schema)) return named.get(schema);
    return typeOf(schema, print, S.KNOWN_VALUES);
  };
  const page = /export interface Page<T> \{[^}]*\}/.exec(readFileSync(emitted, 'utf8'))?.[0];
  if (!page) throw new Error('build: contract/schemas.d.ts no longer declares Page<T> as library.mjs expects');
  const lines = [
    "// The contract's shapes (src/contract/schemas.ts), written as types from its schemas by scripts/library.mjs.",
    page,
  ];
  for (const [schema, name] of named) {
    const body = print(schema, true);
    const object = schema._zod.def.type === 'object';
    lines.push(object ? `export interface ${name} ${body}` : `export type ${name} = ${body};`);
  }
  return `${lines.join('\n')}\n`;
}

const isSchema = (v) => v !== null && typeof v === 'object' && '_zod' in v;

/** One zod (mini) schema as a TypeScript type. */
function typeOf(schema, print, known) {
  const def = schema._zod.def;
  const wrap = (t) => (/[|&]/.test(t) ? `(${t})` : t);
  switch (def.type) {
    case 'string': {
      const values = known.get(schema);
      return values ? [...values.map((v) => JSON.stringify(v)), '(string & {})'].join(' | ') : 'string';
    }
    case 'number':
    case 'boolean':
    case 'unknown':
    case 'null':
      return def.type;
    case 'literal':
      return def.values.map((v) => JSON.stringify(v)).join(' | ');
    case 'enum':
      return Object.values(def.entries)
        .map((v) => JSON.stringify(v))
        .join(' | ');
    case 'nullable':
      return `${print(def.innerType)} | null`;
    case 'optional':
      return `${print(def.innerType)} | undefined`;
    case 'array':
      return `${wrap(print(def.element))}[]`;
    case 'tuple':
      return `[${def.items.map((i) => print(i)).join(', ')}]`;
    case 'union':
      return def.options.map((o) => print(o)).join(' | ');
    case 'record':
      return `Record<${print(def.keyType)}, ${print(def.valueType)}>`;
    case 'object':
      return objectType(def, print);
    default:
      throw new Error(`build: library.mjs cannot write a zod ${def.type} as a type; teach typeOf`);
  }
}

function objectType(def, print) {
  const fields = Object.entries(def.shape).map(([key, field]) => {
    const optional = field._zod.def.type === 'optional';
    const type = print(optional ? field._zod.def.innerType : field);
    const name = /^[A-Za-z_$][\w$]*$/.test(key) ? key : JSON.stringify(key);
    return `  ${name}${optional ? '?' : ''}: ${type.replace(/\n/g, '\n  ')};`;
  });
  const loose = def.catchall?._zod.def.type === 'unknown';
  return `{\n${loose ? '  [key: string]: unknown;\n' : ''}${fields.join('\n')}\n}`;
}
