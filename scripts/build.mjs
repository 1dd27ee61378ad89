// Builds dist/ with esbuild: one small entry, every command and heavy library in chunks loaded on demand.
// Fails if a heavy library slips into what the entry loads at start-up.
import { build } from 'esbuild';
import { readFileSync, rmSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });
const result = await build({
  entryPoints: { main: 'src/main.ts' },
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node22.12',
  packages: 'external',
  chunkNames: 'chunks/[name]-[hash]',
  sourcemap: 'linked',
  metafile: true,
  define: { __ORC_VERSION__: JSON.stringify(pkg.version) },
  logLevel: 'warning',
});

// What `orc` loads before any command runs: the entry and its static imports, transitively.
const HEAVY = ['zod', 'undici', 'ora', '@inquirer/prompts', 'conf', 'execa', 'chalk', 'eventsource-parser', 'node:sqlite'];
const outputs = result.metafile.outputs;
const seen = new Set();
const queue = ['dist/main.js'];
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
}
const leaked = [...eager].filter((p) => HEAVY.some((h) => p === h || p.startsWith(`${h}/`)));
if (leaked.length) {
  console.error(`build: the entry loads ${leaked.join(', ')} at start-up; load it lazily (await import) instead`);
  process.exit(1);
}
const entryBytes = [...seen].reduce((n, f) => n + (outputs[f]?.bytes ?? 0), 0);
console.error(`build: dist/ written; start-up loads ${seen.size} file(s), ${(entryBytes / 1024).toFixed(1)} KiB, plus ${[...eager].join(', ') || 'nothing external'}`);
