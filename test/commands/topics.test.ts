// `orc help` and its topics: listed, printed as text or JSON, complete (every variable orc reads, every
// exit code it uses, the sandbox's magic words), and the README's copies current.
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT, EXIT_CODES } from '../../src/exit/errors.js';
import { ENVIRONMENT, MAGIC_WORDS, TOPICS } from '../../src/commands/topics.js';
import { magicWords } from '../../src/sandbox/generate.js';
import { runOrc } from '../helpers/run.js';

const ROOT = resolve(import.meta.dirname, '../..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile() && /\.(ts|js|mjs)$/.test(d.name))
    .map((d) => join(d.parentPath, d.name));
}

describe('orc help', () => {
  it('lists the commands and the topics', async () => {
    const r = await runOrc(['help']);
    expect(r.exitCode).toBe(0);
    for (const noun of [
      'run',
      'watch',
      'gate',
      'spec',
      'scorecard',
      'artifacts',
      'webhook',
      'api',
      'profile',
      'sandbox',
    ])
      expect(r.stdout).toMatch(new RegExp(`^  ${noun}\\b`, 'm'));
    for (const t of TOPICS) expect(r.stdout).toContain(`orc help ${t.name}`);
  });

  it('prints each topic as text, and as JSON with --json', async () => {
    for (const t of TOPICS) {
      const text = await runOrc(['help', t.name]);
      expect(text.exitCode, t.name).toBe(0);
      expect(text.stdout.length, t.name).toBeGreaterThan(100);
      const json = await runOrc(['help', t.name, '--json']);
      expect(JSON.parse(json.stdout), t.name).toEqual(JSON.parse(JSON.stringify(await t.data())));
    }
    const codes = await runOrc(['help', 'exit-codes']);
    for (const c of EXIT_CODES) expect(codes.stdout).toMatch(new RegExp(`^\\s*${c.code}  ${c.meaning}$`, 'm'));
    const sandbox = await runOrc(['help', 'sandbox']);
    expect(sandbox.stdout).toMatch(/--stage-ms <ms>\s+how long one pipeline stage takes \(default 4000\)/);
    expect(sandbox.stdout).toContain('#lowscore');
    // Where the rules meet a person: the scorecard's field and hint, and the flag that opens the spec there
    // (a flag `spec edit` has: its help names it).
    expect(sandbox.stdout).toContain('with its field, hint and a suggested value');
    expect(sandbox.stdout).toContain('orc spec edit <run> --field <path>');
    expect((await runOrc(['spec', 'edit', '--help'])).stdout).toMatch(/--field <dotted\.path>/);
  });

  it('a group without its verb shows its help on stderr and exits 2, with no stray line; asked for, help is exit 0', async () => {
    for (const argv of [[], ['run'], ['gate'], ['sandbox', 'fault']]) {
      const r = await runOrc(argv);
      expect(r.exitCode, argv.join(' ')).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain(`Usage: orc ${argv.map((w) => `${w} `).join('')}[options] [command]`);
      expect(r.stderr).not.toContain('outputHelp');
      expect(r.stderr).not.toMatch(/^orc:/m);
    }
    for (const argv of [['--help'], ['run', '--help'], ['help', 'gate']]) {
      const r = await runOrc(argv);
      expect(r.exitCode, argv.join(' ')).toBe(0);
      expect(r.stdout).toContain('Usage: orc');
      expect(r.stderr).toBe('');
    }
  });

  it('under --json a group without its verb is one JSON error on stderr naming the commands it takes', async () => {
    const r = await runOrc(['gate', '--json']);
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
    const error = JSON.parse(r.stderr).error;
    expect(error).toMatchObject({ type: 'usage_error', code: 'missing_command', exit_code: 2 });
    expect(error.message).toBe('`orc gate` needs a command: list, approve, reject');
    const bare = JSON.parse((await runOrc(['--json'])).stderr).error;
    expect(bare.message).toMatch(/^`orc` needs a command: run, /);
  });

  it('names every environment variable orc reads', () => {
    const read = new Set<string>();
    for (const file of [...sourceFiles(join(ROOT, 'src')), join(ROOT, 'bin/orc.js')]) {
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(/\benv(?:\?\.|\.)([A-Z_][A-Z0-9_]+)|\benv\[['"]([A-Z_][A-Z0-9_]+)['"]\]/g))
        read.add((m[1] ?? m[2])!);
    }
    expect(read.size).toBeGreaterThan(10);
    const named = new Set(ENVIRONMENT.map((e) => e.name));
    expect([...read].filter((v) => !named.has(v))).toEqual([]);
  });

  it('names every exit code orc uses, and the sandbox magic words it knows', () => {
    expect(EXIT_CODES.map((c) => c.code).sort((a, b) => a - b)).toEqual(Object.values(EXIT).sort((a, b) => a - b));
    for (const m of MAGIC_WORDS) expect(Object.values(magicWords(`A pitch ${m.word}`)).filter(Boolean)).toHaveLength(1);
  });

  it('every command that runs says what --json prints, in its help and in orc help json', async () => {
    const { leafCommands } = await import('../../src/commands/topics.js');
    const all = await leafCommands();
    expect(all.length).toBeGreaterThan(30);
    for (const c of all) expect(c.json, c.path).toMatch(/\S/);
    const help = await runOrc(['artifacts', 'pull', '--help']);
    expect(help.stdout).toContain(`With --json: ${all.find((c) => c.path === 'artifacts pull')!.json}`);
    const json = JSON.parse((await runOrc(['help', 'json', '--json'])).stdout);
    expect(json.map((j: { command: string }) => j.command)).toEqual(all.map((c) => c.path));
  });

  it("the README's and docs' tables (commands, exit codes, JSON shapes, environment) are made from their one source (npm run docs)", () => {
    expect(() =>
      execFileSync(process.execPath, [join(ROOT, 'scripts/docs.mjs'), '--check'], { encoding: 'utf8', stdio: 'pipe' }),
    ).not.toThrow();
  });
});

describe('help for agents', () => {
  it('adds the non-interactive flags and exit codes when an agent runs orc; nothing else changes', async () => {
    const plain = await runOrc(['watch', '--help']);
    const agent = await runOrc(['watch', '--help'], { env: { CLAUDECODE: '1' } });
    expect(agent.exitCode).toBe(0);
    expect(agent.stdout).toContain('For agents (Claude Code seen)');
    expect(agent.stdout).toContain('--max-wait 10m');
    expect(agent.stdout).toContain('6 gate pending');
    expect(plain.stdout).not.toContain('For agents');
    expect(agent.stdout.startsWith(plain.stdout.trimEnd())).toBe(true); // the same help, then the section
    const top = await runOrc(['--help'], { env: { ORC_AGENT: '1' } });
    expect(top.stdout).toContain('For agents (ORC_AGENT seen)');
    // Outside help nothing differs.
    const v = await runOrc(['completion', 'bash'], { env: { CLAUDECODE: '1' } });
    expect(v.stdout).toBe((await runOrc(['completion', 'bash'])).stdout);
  });
});
