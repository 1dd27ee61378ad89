// Builds dist/ with esbuild: one small entry, every command and heavy library in chunks loaded on demand.
// Fails if a heavy library slips into what the entry loads at start-up.
//
// Every package is bundled, into lazily loaded chunks, never the entry: the npm package installs orc and
// nothing else it needs at run time (no dependency tree to resolve, audit or break), and one compile-cached
// chunk loads faster than a package's many files. The one exception is the OS keychain's native module
// (@napi-rs/keyring), which nothing in JavaScript can replace: an optional dependency, loaded if present.
// jq's WebAssembly goes beside the bundle as dist/jq.wasm (src/lib/assets.ts finds it).
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { gzipSync } from 'node:zlib';
import { codeOptions, writeNotices } from './bundle-options.mjs';
import { LIBRARY_ENTRIES, buildLibrary } from './library.mjs';

rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });
const result = await build({
  ...codeOptions({ standalone: false }),
  // The CLI, and the library's ESM entries (scripts/library.mjs), which share its chunks.
  entryPoints: { main: 'src/main.ts', ...LIBRARY_ENTRIES },
  outdir: 'dist',
  splitting: true,
  format: 'esm',
  target: 'node22.12',
  // Bundled CommonJS (commander, yaml, undici) calls require() for Node's own modules, and for nothing else
  // (every package is in the bundle). Each chunk gets a require of Node's built-in modules only, not
  // createRequire's: that costs a Module and a path resolution in every one of the 40-odd chunks a command
  // loads.
  banner: {
    js: "const require = (id) => { const m = process.getBuiltinModule(id); if (m === undefined) throw Object.assign(new Error(`Cannot find module '${id}'`), { code: 'MODULE_NOT_FOUND' }); return m; };",
  },
  chunkNames: 'chunks/[name]-[hash]',
  sourcemap: 'linked',
});
copyFileSync(createRequire(import.meta.url).resolve('jq-wasm/jq.wasm'), 'dist/jq.wasm');
// What went into which chunk, for looking into start-up (not shipped).
mkdirSync('node_modules/.cache', { recursive: true });
writeFileSync('node_modules/.cache/orc-build-meta.json', JSON.stringify(result.metafile));

// What `orc` loads before any command runs: the entry and its static imports, transitively.
const HEAVY = [
  'zod',
  'undici',
  'ora',
  '@inquirer/prompts',
  'conf',
  'execa',
  'chalk',
  'yaml',
  '@modelcontextprotocol/sdk',
  'node:sqlite',
  'jq-wasm',
];
const outputs = result.metafile.outputs;
/** The files loaded with `roots` (their static imports, transitively), the external modules among them,
 * and the heavy packages bundled into them. */
function loadedWith(roots) {
  const seen = new Set();
  const queue = [...roots];
  const eager = new Set();
  while (queue.length) {
    const file = queue.pop();
    if (seen.has(file)) continue;
    seen.add(file);
    for (const imp of outputs[file]?.imports ?? []) {
      if (imp.kind !== 'import-statement') continue;
      if (imp.external) eager.add(imp.path);
      else queue.push(imp.path);
    }
    // Bundled heavy code must not be reachable without a dynamic import either.
    for (const input of Object.keys(outputs[file]?.inputs ?? {})) {
      const pkgName = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1];
      if (pkgName && HEAVY.includes(pkgName)) eager.add(pkgName);
    }
  }
  return { seen, eager };
}
const { seen, eager } = loadedWith(['dist/main.js']);
const leaked = [...eager].filter((p) => HEAVY.some((h) => p === h || p.startsWith(`${h}/`)));
if (leaked.length) {
  console.error(`build: the entry loads ${leaked.join(', ')} at start-up; load it lazily (await import) instead`);
  process.exit(1);
}
// `orc run get` and `orc watch` (the program, the noun, the command) load no zod: their answers are checked
// by hand (src/contract/shapes.ts), the schemas loaded only for what those checks do not take.
const outputOf = (source) => Object.keys(outputs).find((o) => o.endsWith('.js') && outputs[o].entryPoint === source);
for (const [what, sources] of [
  ['orc run get', ['src/cli/fast.ts', 'src/commands/run/command.ts', 'src/commands/run/get.ts']],
  ['orc watch', ['src/cli/fast.ts', 'src/commands/watch/command.ts', 'src/commands/watch/watch.ts']],
]) {
  const roots = sources.map(outputOf);
  if (roots.some((r) => !r)) {
    console.error(`build: cannot find the chunks of ${what} (${sources.join(', ')}); check build.mjs`);
    process.exit(1);
  }
  const heavy = [...loadedWith(['dist/main.js', ...roots]).eager].filter((p) => p === 'zod');
  if (heavy.length) {
    console.error(
      `build: ${what} loads zod when it starts; name its schemas (http.ts SchemaRef) and check its answers by hand (contract/shapes.ts)`,
    );
    process.exit(1);
  }
}
// `import { Orc } from 'orc-cli'` loads none of the heavy packages, terminal code least of all (chalk, ora,
// prompts, commander): a library's user pays for the client, not for orc's terminal.
{
  const library = loadedWith(['dist/index.js']);
  if (library.eager.size) {
    console.error(`build: importing orc-cli loads ${[...library.eager].join(', ')}; load it lazily (await import)`);
    process.exit(1);
  }
  const bytes = [...library.seen].reduce((n, f) => n + (outputs[f]?.bytes ?? 0), 0);
  console.error(
    `build: the library (import 'orc-cli') loads ${library.seen.size} file(s), ${(bytes / 1024).toFixed(1)} KiB, no package`,
  );
}
const entryBytes = [...seen].reduce((n, f) => n + (outputs[f]?.bytes ?? 0), 0);
console.error(
  `build: dist/ written; start-up loads ${seen.size} file(s), ${(entryBytes / 1024).toFixed(1)} KiB, plus ${[...eager].join(', ') || 'nothing external'}`,
);

await buildLibrary();

// The OpenAPI document of the service, shipped with the package (what `orc api --openapi` prints).
{
  const { spawnSync } = await import('node:child_process');
  const { mkdtempSync, writeFileSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  // and its 3.2 companion beside it, for tools that take a file and read 3.2's itemSchema of the event stream
  for (const [oas, file] of [
    ['3.1', 'dist/openapi.json'],
    ['3.2', 'dist/openapi-3.2.json'],
  ]) {
    const out = spawnSync(process.execPath, ['bin/orc.js', 'api', '--openapi', '--oas', oas], {
      encoding: 'utf8',
      env: { ...process.env, ORC_CONFIG_DIR: mkdtempSync(`${tmpdir()}/orc-build-`) },
    });
    if (out.status !== 0) {
      console.error(`build: orc api --openapi --oas ${oas} failed: ${out.stderr}`);
      process.exit(1);
    }
    writeFileSync(file, out.stdout);
  }
}

// The web console (src/console): its own bundle for the browser, into dist/console, which only the sandbox
// serves. No command loads it; preact and htm live inside it, so nothing of it is fetched from a CDN.
const page = await build({
  // main.ts imports its stylesheet: console.js and console.css come out side by side.
  entryPoints: { console: 'src/console/main.ts' },
  outdir: 'dist/console/assets',
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: ['chrome120', 'firefox120', 'safari17'],
  minify: true,
  sourcemap: 'linked',
  metafile: true,
  entryNames: '[name]',
  logLevel: 'warning',
});
mkdirSync('dist/console', { recursive: true });
copyFileSync('src/console/index.html', 'dist/console/index.html');
const pageBytes = Object.entries(page.metafile.outputs)
  .filter(([f]) => !f.endsWith('.map'))
  .reduce((n, [f]) => n + gzipSync(readFileSync(f)).length, 0);
console.error(`build: dist/console written; its script and style are ${(pageBytes / 1024).toFixed(1)} KiB gzipped`);
writeNotices(
  [...Object.keys(result.metafile.inputs), ...Object.keys(page.metafile.inputs)],
  'dist/THIRD-PARTY-NOTICES.txt',
);
