// npm run docs: the README's copies of the help topics (exit codes, environment), made by the built orc
// from src/help/topics.ts and put between their `<!-- topic:NAME -->` … `<!-- /topic -->` markers.
// `--check` changes nothing and exits 1 if the README is not current (a test runs it).
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';

const readmeUrl = new URL('../README.md', import.meta.url);
const orc = new URL('../bin/orc.js', import.meta.url).pathname;
const before = readFileSync(readmeUrl, 'utf8');
const after = before.replace(/<!-- topic:([a-z-]+) -->\n[\s\S]*?<!-- \/topic -->/g, (_m, name) => {
  const md = execFileSync(process.execPath, [orc, 'help', name, '--markdown'], { encoding: 'utf8' });
  return `<!-- topic:${name} -->\n${md}<!-- /topic -->`;
});
if (process.argv.includes('--check')) {
  if (after !== before) {
    console.error('README.md is not current with src/help/topics.ts: run `npm run docs`');
    process.exit(1);
  }
} else writeFileSync(readmeUrl, after);
