// `npm run standalone`: orc as one executable file for Linux x64 that needs no Node installed, as gh and the
// Stripe CLI ship: Node's single executable applications (SEA). The code is bundled into one CommonJS script
// (what SEA runs on Node 24), with jq's WebAssembly and the web console as assets inside the file, then
// injected with postject into a copy of the Node binary that `npm install` put in node_modules (node@24,
// the official build, which carries SEA's fuse). Writes standalone/orc-linux-x64 and its licence notices.
//
// Needs dist/ (for the console's built page): run after `npm run build`, as the npm script does.
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { codeOptions, writeNotices } from './bundle-options.mjs';

if (process.platform !== 'linux' || process.arch !== 'x64') {
  console.error(`standalone: builds for Linux x64 only (this is ${process.platform} ${process.arch})`);
  process.exit(1);
}
const require = createRequire(import.meta.url);
const out = 'standalone';
const work = join(out, 'work');
rmSync(out, { recursive: true, force: true });
mkdirSync(work, { recursive: true });

const result = await build({
  ...codeOptions({ standalone: true }),
  entryPoints: ['src/standalone.ts'],
  outfile: join(work, 'orc.cjs'),
  format: 'cjs',
  target: 'node24',
  // import.meta.url, which ESM code reads, is the executable itself (esbuild's documented shim for CJS).
  inject: ['scripts/import-meta-url.js'],
  define: { ...codeOptions({ standalone: true }).define, 'import.meta.url': 'import_meta_url' },
});

// The assets: jq's WebAssembly, and the console's page as built into dist/console.
const assets = { 'jq.wasm': require.resolve('jq-wasm/jq.wasm') };
if (!existsSync('dist/console/index.html')) {
  console.error('standalone: dist/console is missing; run `npm run build` first');
  process.exit(1);
}
assets['console/index.html'] = 'dist/console/index.html';
for (const name of readdirSync('dist/console/assets'))
  if (!name.endsWith('.map')) assets[`console/assets/${name}`] = `dist/console/assets/${name}`;

const node = realpathSync(require.resolve('node/bin/node'));
const blob = join(work, 'orc.blob');
const config = join(work, 'sea-config.json');
writeFileSync(
  config,
  JSON.stringify(
    { main: join(work, 'orc.cjs'), output: blob, disableExperimentalSEAWarning: true, useCodeCache: true, assets },
    null,
    2,
  ),
);
const step = (cmd, args) => {
  // Quiet unless it fails: postject warns about ELF notes it does not need, on every build.
  const r = spawnSync(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
  if (r.status !== 0) {
    console.error(`${r.stdout}${r.stderr}standalone: ${cmd} ${args.join(' ')} failed (${r.status ?? r.signal})`);
    process.exit(1);
  }
};
// The blob is made by the very Node it goes into: its code cache must match that V8.
step(node, ['--experimental-sea-config', config]);
const exe = join(out, 'orc-linux-x64');
copyFileSync(node, exe);
chmodSync(exe, 0o755);
step(process.execPath, [
  require.resolve('postject/dist/cli.js'),
  '--overwrite',
  exe,
  'NODE_SEA_BLOB',
  blob,
  '--sentinel-fuse',
  'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2',
]);
writeNotices(
  [...Object.keys(result.metafile.inputs), 'node_modules/node/package.json'],
  join(out, 'orc-linux-x64.THIRD-PARTY-NOTICES.txt'),
);
rmSync(work, { recursive: true, force: true });
console.error(
  `standalone: ${exe} written, ${(statSync(exe).size / 1024 / 1024).toFixed(1)} MiB (Node ${spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim()} inside)`,
);
