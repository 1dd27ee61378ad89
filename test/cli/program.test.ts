// How orc reads a command line, before anything is sent: one table of cases, with a column for whether a
// terminal is there (as gh's tests do: what a person may be asked, a script must be told).
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { allCommands } from '../../src/commands/index.js';
import { NOUNS } from '../../src/commands/index.js';
import { runOrc } from '../helpers/run.js';
import { handServer, type HandServer } from '../helpers/server.js';

let server: HandServer;
beforeAll(async () => {
  server = await handServer((_req, res) => res.end('{}'));
});
afterAll(() => server.close());

type Case = [argv: string[], tty: boolean, exit: number, says: string];
const cases: Case[] = [
  [['run', 'create'], false, 2, 'missing --pitch, --audience, --monetization'],
  [['run', 'create', '--mode', 'draft'], false, 2, '--mode must be one of idea, ship'],
  [
    ['run', 'create', '--monetization', 'gold', '--pitch', 'p', '--audience', 'a'],
    true,
    2,
    '--monetization must be one of free, paid',
  ],
  [['run', 'list', '--limit', '0'], false, 2, '--limit must be a whole number from 1 up'],
  [['run', 'list', '--limit', 'ten'], true, 2, '--limit must be a whole number'],
  [['run', 'list', '--all', '--limit', '5'], false, 2, '--all and --limit do not go together'],
  [['run', 'list', '--limit=5', '--all', '--json'], false, 2, '"field":"--limit"'],
  [['run', 'list', '--status', 'paused'], false, 2, '--status must be one of running, awaiting_approval'],
  [['run', 'get'], false, 2, "missing required argument 'run'"],
  [['run', 'get', ''], false, 2, '<run>: the id "" must not be empty'],
  [['run', 'get', '..'], false, 2, '<run>: the id ".." must not be ".."'],
  [['run', 'get', 'a/b'], true, 2, 'must not contain /'],
  [['run', 'get', 'run_\u0007'], false, 2, 'must not contain control characters'],
  [['gate', 'approve', 'run_1', '.'], false, 2, '<gate>: the id "." must not be "."'],
  [['gate', 'reject', 'run_1', 'idea'], false, 2, 'rejecting needs notes: --notes'],
  [['gate', 'reject', 'run_1', 'idea', '--notes', '  '], true, 2, 'nothing was sent'],
  [
    ['gate', 'approve', 'run_1', 'idea', '--notes', 'a', '--notes-file', 'b'],
    false,
    2,
    '--notes and --notes-file do not go together',
  ],
  [['watch', 'run_1', '--on-gate', 'maybe'], false, 2, '--on-gate must be one of prompt, wait, exit'],
  [['watch', 'run_1', '--on-gate', 'prompt'], false, 2, '--on-gate prompt needs a terminal'],
  [['watch', 'run_1', '--approve', 'idea,launch'], true, 2, '--approve: unknown value "launch"'],
  [['watch', 'run_1', '--until-gate', '--on-gate', 'wait'], true, 2, '--until-gate stops at the first pending gate'],
  [['run', 'list', '--timeout', '0'], false, 2, '--timeout must be a number of seconds from 1'],
  [['run', 'lsit'], false, 2, 'did you mean list?'],
  [['gate', 'aprove'], true, 2, 'did you mean approve?'],
  [['rnu'], false, 2, 'did you mean run?'],
  [['api'], false, 2, 'missing <path>: `orc api [METHOD] <path>` (GET when the method is left out)'],
  [['run', 'list', '--stauts', 'running'], false, 2, "unknown option '--stauts'; did you mean --status?"],
  [['run', 'list', '--limt', '5'], true, 2, "unknown option '--limt'; did you mean --limit?"],
  [['run', 'list', '--limt=5'], false, 2, 'did you mean --limit?'],
  [['run', 'list', '--jsno'], false, 2, "unknown option '--jsno'; did you mean --json?"],
  [['sandbox', 'start', '--port', '70000'], false, 2, '--port must be a whole number from 0 to 65535'],
  [
    ['sandbox', 'start', '--signed-url-ttl', '9999999999999'],
    false,
    2,
    '--signed-url-ttl must be a whole number from 1 to 315360000',
  ],
  [
    ['sandbox', 'start', '--stage-ms', '34560000000'],
    false,
    2,
    '--stage-ms must be a whole number from 1 to 31536000000',
  ],
  [['sandbox', 'start', '--api-key', 'sk_live_abcdef'], false, 2, 'the sandbox takes a test key'],
  [['sandbox', 'start', '--memory', '--data-dir', '/tmp/x'], false, 2, '--memory and --data-dir do not go together'],
  [['completion', 'tcsh'], false, 2, '<shell> must be bash, zsh or fish'],
  [['profile', 'add', 'bad name!'], false, 2, 'profile name'],
];

describe('command lines refused before anything is sent', () => {
  it.each(cases)('%j (terminal: %s) → exit %i: %s', async (argv, tty, exit, says) => {
    const before = server.seen.length;
    const r = await runOrc(argv, { env: { ORC_BASE_URL: server.url }, tty: { stdin: tty, stdout: tty, stderr: tty } });
    expect(r.exitCode, r.stderr).toBe(exit);
    expect(r.stderr).toContain(says);
    expect(r.stdout).toBe('');
    expect(server.seen.length).toBe(before);
  });
});

describe('help and version', () => {
  it('every subcommand has examples, and its --help shows the global flags', async () => {
    for (const noun of await allCommands()) {
      for (const c of [noun, ...(noun.subcommands ?? [])]) {
        const argv = c === noun ? [noun.name, '--help'] : [noun.name, c.name, '--help'];
        const r = await runOrc(argv);
        expect(r.exitCode, argv.join(' ')).toBe(0);
        expect(r.stdout, argv.join(' ')).toMatch(/Examples:\n  \$ .*orc /);
        expect(r.stdout, argv.join(' ')).toMatch(/Global Options:[\s\S]*--json[\s\S]*--timeout <seconds>/);
      }
    }
  });

  it('orc help gate approve is the help of gate approve', async () => {
    const a = await runOrc(['help', 'gate', 'approve']);
    const b = await runOrc(['gate', 'approve', '--help']);
    expect(a.exitCode).toBe(0);
    expect(a.stdout).toBe(b.stdout);
    expect(a.stdout).toContain('Usage: orc gate approve [options] [run] [gate]');
  });

  it('orc --version --json prints JSON; the nouns table agrees with each noun', async () => {
    const r = await runOrc(['--version', '--json']);
    expect(JSON.parse(r.stdout)).toEqual({ version: expect.stringMatching(/^\d+\.\d+\.\d+/) });
    const specs = await allCommands();
    expect(NOUNS.map((n) => [n.name, n.summary])).toEqual(specs.map((s) => [s.name, s.summary]));
  });
});

describe('--jq within bounds', () => {
  const viaJq = (expression: string) =>
    runOrc(['api', '/v1/anything', '--jq', expression], { env: { ORC_BASE_URL: server.url } });

  it('stops an endless output (repeat) and says so in one line, exit 2, nothing printed', async () => {
    const r = await viaJq('repeat(1)');
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
    // --jq implies --json: the failure is the one JSON line on stderr.
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(JSON.parse(r.stderr).error).toMatchObject({
      type: 'usage_error',
      field: '--jq',
      exit_code: 2,
      message: '--jq: the output passed 1,000,000 values or 64 MiB; jq was stopped and nothing was printed',
    });
  }, 120_000);

  it('says jq ran out of memory for [range(1e9)], with no bare Aborted() from its runtime', async () => {
    const stray = vi.spyOn(console, 'error');
    try {
      const r = await viaJq('[range(1e9)]');
      expect(r.exitCode).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(JSON.parse(r.stderr).error.message).toMatch(
        /^--jq: jq ran out of memory \(it has 256 MiB\); nothing was printed/,
      );
      expect(stray).not.toHaveBeenCalled();
    } finally {
      stray.mockRestore();
    }
  }, 120_000);

  it('leaves ordinary expressions as they were, a trailing comment and definitions too', async () => {
    expect((await viaJq('{a: 1, b: "x"} | .b # the b')).stdout.trimEnd()).toBe('x');
    expect((await viaJq('def two: 2; [1, two] | .[]')).stdout.trimEnd()).toBe('1\n2');
    expect(JSON.parse((await viaJq('.a) | (.b')).stderr).error.message).toMatch(/^--jq: syntax error/);
    expect(JSON.parse((await viaJq('.id |')).stderr).error.message).toBe(
      '--jq: syntax error, unexpected end of the expression',
    );
    expect((await viaJq('error("mine")')).stderr).toContain('--jq: mine');
  });
});
