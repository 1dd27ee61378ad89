// orc as a library, proven from the packed tarball as a user gets it (issue 36): installed into four empty
// projects (ESM and CommonJS, strict TypeScript and plain JavaScript), where a user's suites run under vitest,
// node:test and jest and stop by themselves, the declarations compile (and a wrong call does not), the docs'
// examples compile and run, and importing the client loads no terminal code. dist/ is the one `npm test`
// built (as for test/e2e): this packs it, it does not build it.
import { execa } from 'execa';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/install.js';
import { makeProjects, type Projects, tool, userRun, writeDocExamples } from './projects.js';

let projects: Projects;
beforeAll(async () => {
  projects = await makeProjects();
}, 120_000);

describe('the declarations, in a strict TypeScript project', () => {
  it.each([
    ['ESM', 'esm-ts', 'index.d.ts'],
    ['CommonJS', 'cjs-ts', 'index.d.cts'],
  ] as const)(
    '%s: a correct use compiles, each wrong call is a type error, nothing declared is missing',
    async (_, name, types) => {
      // tsconfig: strict, module nodenext, skipLibCheck false (a declaration naming a package that is not
      // installed fails here); wrong.ts compiles only if each of its @ts-expect-error lines is an error.
      const r = await userRun(projects[name], [tool('typescript', 'bin/tsc'), '-p', '.', '--listFiles']);
      expect(r.exitCode, r.all).toBe(0);
      // The types the project's module system takes from "exports", not the other's.
      expect(r.stdout).toContain(`node_modules/orc-cli/dist/types/sdk/${types}`);
      expect(r.stdout).toContain(`node_modules/orc-cli/dist/types/sdk/${types.replace('index', 'testing')}`);
    },
  );
});

// Each run gets 60 s to exit by itself (userRun): the tests allow for that.
describe("a user's suites stop by themselves", { timeout: 90_000 }, () => {
  it('vitest (ESM TypeScript): passes, the walk to accepted on a manual clock, nothing left hanging', async () => {
    const r = await userRun(projects['esm-ts'], [
      tool('vitest', 'vitest.mjs'),
      'run',
      '--reporter=default',
      '--reporter=hanging-process',
      '--testTimeout=60000',
      '--hookTimeout=60000',
    ]);
    expect(r.exitCode, r.all).toBe(0);
    expect(r.all).toMatch(/Tests\s+2 passed/);
    expect(r.all).not.toMatch(/prevents Vitest from exiting|close timed out|handles? (are|is) keeping/i);
  });

  it.each([
    ['ESM', 'esm-js', 'walk.test.mjs'],
    ['CommonJS', 'cjs-js', 'walk.test.cjs'],
  ] as const)('node --test (%s JavaScript): passes and exits with no --test-force-exit', async (_, name, file) => {
    const r = await userRun(projects[name], ['--test', '--test-reporter=tap', file]);
    expect(r.exitCode, r.all).toBe(0);
    expect(r.stdout).toMatch(/^# pass 2$/m);
  });

  it('jest --detectOpenHandles (CommonJS JavaScript): passes and exits with no open handle reported', async () => {
    // A walk with its sandbox takes longer than jest's 5 s default on a busy machine: a suite like this sets more.
    const r = await userRun(projects['cjs-js'], [
      tool('jest', 'bin/jest.js'),
      '--detectOpenHandles',
      '--ci',
      '--testTimeout=60000',
    ]);
    expect(r.exitCode, r.all).toBe(0);
    expect(r.all).toMatch(/Tests:\s+2 passed, 2 total/);
    expect(r.all).not.toMatch(/open handle|did not exit/i);
  });
});

it('every example in docs/sdk compiles under tsc --strict and runs to its end under node', async () => {
  const dir = projects['esm-ts'];
  const examples = writeDocExamples(dir);
  expect(examples.length, 'docs/sdk has no ```ts example or ```js example block to run').toBeGreaterThan(0);
  const compiled = await userRun(dir, [tool('typescript', 'bin/tsc'), '-p', 'tsconfig.examples.json']);
  expect(compiled.exitCode, compiled.all).toBe(0);
  for (const example of examples) {
    const r = await userRun(dir, [join('out', example.file.replace(/^examples\//, '').replace(/\.ts$/, '.js'))]);
    expect(r.exitCode, `${example.where}\n${r.all}`).toBe(0);
  }
}, 120_000);

it('importing the client loads no terminal code (chalk, ora, prompts, commander)', async () => {
  const r = await userRun(projects['esm-js'], ['loaded.mjs']);
  expect(r.exitCode, r.all).toBe(0);
  const meta = JSON.parse(readFileSync(join(ROOT, 'node_modules/.cache/orc-build-meta.json'), 'utf8')) as {
    outputs: Record<string, { inputs: Record<string, unknown> }>;
  };
  const files = (JSON.parse(r.stdout) as string[])
    .map((url) => /\/node_modules\/orc-cli\/(dist\/.*)$/.exec(url)?.[1])
    .filter((f): f is string => f !== undefined);
  expect(files).toContain('dist/index.js');
  const inputs = files.flatMap((f) => {
    // The metafile of the build that made this dist/ names what each chunk holds.
    expect(meta.outputs[f], `${f} is not in node_modules/.cache/orc-build-meta.json (another build's?)`).toBeDefined();
    return Object.keys(meta.outputs[f]!.inputs);
  });
  const packages = new Set(inputs.flatMap((i) => /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(i)?.[1] ?? []));
  for (const terminal of ['chalk', 'ora', '@inquirer/prompts', '@inquirer/core', 'commander', 'string-width'])
    expect(packages, `importing orc-cli loads ${terminal}`).not.toContain(terminal);
  expect(inputs.filter((i) => /^src\/(ui|cli|commands)\//.test(i))).toEqual([]);
});
