// A user's empty projects for test/package: the packed tarball installed into each (ESM and CommonJS, strict
// TypeScript and plain JavaScript, from test/package/projects), the dev tools linked in, the docs' examples.
import { execa } from 'execa';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { ROOT, packTarball, userEnv } from '../helpers/install.js';

const FIXTURES = join(import.meta.dirname, 'projects');
const NAMES = ['esm-ts', 'cjs-ts', 'esm-js', 'cjs-js'] as const;
export type Projects = Record<(typeof NAMES)[number], string>;

// What the users' suites and the docs' examples import besides orc-cli: devDependencies of this repository.
const TOOLS = [
  'typescript',
  'vitest',
  'jest',
  '@types/node',
  'express',
  '@types/express',
  'fastify',
  'hono',
  '@hono/node-server',
];

/** The tarball of this checkout's dist/, installed into each empty project (in parallel: npm mostly waits). */
export async function makeProjects(): Promise<Projects> {
  const base = mkdtempSync(join(tmpdir(), 'orc-user-'));
  const tarball = await packTarball(base);
  const dirs = await Promise.all(NAMES.map((name) => makeProject(join(base, name), name, tarball)));
  return Object.fromEntries(NAMES.map((name, i) => [name, dirs[i]])) as Projects;
}

async function makeProject(dir: string, name: string, tarball: string): Promise<string> {
  cpSync(join(FIXTURES, name), dir, { recursive: true });
  // The user's code both TypeScript projects compile; the suite both JavaScript projects run.
  for (const file of readdirSync(join(FIXTURES, 'shared')))
    if (file.endsWith(name.endsWith('-ts') ? '.ts' : '.cjs')) cpSync(join(FIXTURES, 'shared', file), join(dir, file));
  // As a user installs it, from the tarball alone: the package has no dependencies (everything is bundled),
  // and the keychain's native module is optional.
  await execa('npm', ['install', tarball, '--offline', '--omit=optional', '--no-audit', '--no-fund'], { cwd: dir });
  // The dev tools are not installed from the network for each run: each package folder of the repository's
  // node_modules is linked into the project's (after the install, which would remove what it did not put
  // there), and their bins are run by absolute path (tool()).
  for (const name of TOOLS) {
    const target = join(dir, 'node_modules', name);
    mkdirSync(dirname(target), { recursive: true });
    symlinkSync(toolFolder(name), target, 'dir');
  }
  return dir;
}

function toolFolder(name: string): string {
  const folder = join(ROOT, 'node_modules', name);
  if (!existsSync(folder)) throw new Error(`${name} is not installed: it is a devDependency (npm ci)`);
  return folder;
}

/** A tool's script (`typescript`, `bin/tsc`) by absolute path, for userRun. */
export const tool = (name: string, script: string) => join(toolFolder(name), script);

/**
 * `node <args>` in the project, in a user's environment (none of the test runner's: a nested vitest must not
 * think it is a worker). A process that has not exited after 60 s is killed, and the output says so: a
 * runner kept alive by an open handle fails here rather than hanging the suite.
 */
export async function userRun(
  dir: string,
  args: string[],
): Promise<{ exitCode?: number; stdout: string; all: string }> {
  const env = { ...userEnv(`${dirname(process.execPath)}:/usr/bin:/bin`), TMPDIR: tmpdir(), NO_COLOR: '1' };
  const r = await execa(process.execPath, args, {
    cwd: dir,
    env,
    extendEnv: false,
    all: true,
    reject: false,
    timeout: 60_000,
  });
  const all = `${r.all ?? ''}${r.timedOut ? '\n(still running after 60 s: killed)' : ''}`;
  return { exitCode: r.exitCode, stdout: String(r.stdout), all };
}

export interface DocExample {
  /** Where it is written, in the project (examples/…). */
  file: string;
  /** Where it came from: docs/sdk/page.md:line. */
  where: string;
}

/** Every ```ts example and ```js example block of docs/sdk/*.md, written into the project's examples/. */
export function writeDocExamples(dir: string): DocExample[] {
  const docs = join(ROOT, 'docs', 'sdk');
  if (!existsSync(docs)) return [];
  const examples: DocExample[] = [];
  mkdirSync(join(dir, 'examples'), { recursive: true });
  for (const page of readdirSync(docs)
    .filter((f) => f.endsWith('.md'))
    .sort()) {
    const text = readFileSync(join(docs, page), 'utf8');
    for (const m of text.matchAll(/^```(ts|js) example[^\n]*\n([\s\S]*?)^```[ \t]*$/gm)) {
      const line = text.slice(0, m.index).split('\n').length;
      const file = `examples/${basename(page, '.md')}-${line}.${m[1]}`;
      writeFileSync(join(dir, file), m[2]!);
      examples.push({ file, where: `docs/sdk/${page}:${line}` });
    }
  }
  return examples;
}
