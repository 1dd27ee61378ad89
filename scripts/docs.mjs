// npm run docs: the generated tables of the README and docs/ (the command list, exit codes, JSON shapes,
// environment), made by the built orc from the command definitions and src/commands/topics.ts and put between their
// `<!-- topic:NAME -->` … `<!-- /topic -->` markers. `--check` changes nothing and exits 1 if a file is not
// current (a test runs it).
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';

const FILES = ['README.md', 'docs/guide.md', 'docs/configuration.md'];
const orc = new URL('../bin/orc.js', import.meta.url).pathname;
const made = new Map();
const topic = (name) => {
  if (!made.has(name))
    made.set(name, execFileSync(process.execPath, [orc, 'help', name, '--markdown'], { encoding: 'utf8' }));
  return made.get(name);
};
let stale = [];
for (const file of FILES) {
  const url = new URL(`../${file}`, import.meta.url);
  const before = readFileSync(url, 'utf8');
  const after = before.replace(
    /<!-- topic:([a-z-]+) -->\n[\s\S]*?<!-- \/topic -->/g,
    (_m, name) => `<!-- topic:${name} -->\n${topic(name)}<!-- /topic -->`,
  );
  if (after === before) continue;
  if (process.argv.includes('--check')) stale.push(file);
  else writeFileSync(url, after);
}
if (stale.length) {
  console.error(
    `not current with the command definitions and src/commands/topics.ts: ${stale.join(', ')}; run \`npm run docs\``,
  );
  process.exit(1);
}
