#!/usr/bin/env node
// Launcher: refuse an old Node in one line, turn on the compile cache, then load the build.
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 12)) {
  process.stderr.write(`orc: needs Node.js 22.12 or newer; this is Node.js ${process.versions.node}.\n`);
  process.exit(1);
}
const { enableCompileCache } = await import('node:module');
enableCompileCache?.();
const { main } = await import('../dist/main.js');
await main(process.argv.slice(2));
