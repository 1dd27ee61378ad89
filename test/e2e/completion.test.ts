// Shell completion, generated from the command table: the committed scripts are current, and each shell
// really completes commands, subcommands, flags and flag values with them.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { orc } from '../helpers/cli.js';
import { hasTool, needTool } from '../helpers/tools.js';

const dir = resolve(import.meta.dirname, '../../completions');
const files = { bash: 'orc.bash', zsh: '_orc', fish: 'orc.fish' } as const;

describe('orc completion', () => {
  it.each(Object.entries(files))('the committed %s script is what `orc completion` prints', async (shell, file) => {
    const r = await orc(['completion', shell]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout + '\n').toBe(readFileSync(resolve(dir, file), 'utf8'));
  });

  it('under --json gives the script in one document', async () => {
    const r = await orc(['completion', 'fish', '--json']);
    expect(JSON.parse(r.stdout)).toEqual({ shell: 'fish', script: readFileSync(resolve(dir, files.fish), 'utf8') });
  });

  it('refuses an unknown shell with exit 2', async () => {
    const r = await orc(['completion', 'tcsh']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('bash, zsh or fish');
  });

  const cases: Array<[string, string[]]> = [
    ['orc ru', ['run']],
    ['orc run cr', ['create']],
    ['orc run create --mon', ['--monetization']],
    ['orc run create --monetization fr', ['free', 'freemium']],
    ['orc watch run_1 --on-gate ', ['prompt', 'wait', 'exit']],
    ['orc --profile prod gate a', ['approve']],
    ['orc run list --status a', ['awaiting_approval', 'accepted']],
    ['orc webhook deliveries wh_1 --status ', ['pending', 'succeeded', 'failed']],
  ];

  it.each(cases)('bash completes %j', (line, expected) => {
    const script = `source ${JSON.stringify(resolve(dir, files.bash))}; read -ra COMP_WORDS <<< "$LINE"; [[ "$LINE" == *" " ]] && COMP_WORDS+=(""); COMP_CWORD=$((\${#COMP_WORDS[@]}-1)); _orc; printf '%s\\n' "\${COMPREPLY[@]}"`;
    const out = execFileSync('bash', ['-c', script], { env: { ...process.env, LINE: line }, encoding: 'utf8' });
    expect(out.split('\n').filter(Boolean).sort()).toEqual([...expected].sort());
  });

  it('has zsh and fish where CI runs', () => {
    if (process.env.CI && process.env.CI !== 'false') for (const tool of ['bash', 'zsh', 'fish']) expect(hasTool(tool), `${tool} must be installed in CI`).toBe(true);
  });

  it.runIf(needTool('zsh', 'the zsh completion tests')).each(cases)('zsh completes %j', (line, expected) => {
    // compadd is zsh's own; here it prints what it was given, and the prefix is matched as zsh would.
    const script = `compdef() { :; }; _files() { print FILES; }; compadd() { while [[ $1 != -- ]]; do shift; done; shift; print -rl -- "$@"; }
source ${JSON.stringify(resolve(dir, files.zsh))}
words=(\${(s: :)LINE}); [[ $LINE == *" " ]] && words+=(""); CURRENT=\${#words}; _orc`;
    const out = execFileSync('zsh', ['-c', script], { env: { ...process.env, LINE: line }, encoding: 'utf8' });
    const prefix = line.endsWith(' ') ? '' : line.split(' ').at(-1)!;
    expect(out.split('\n').filter((w) => w && w.startsWith(prefix)).sort()).toEqual([...expected].sort());
  });

  it.runIf(needTool('fish', 'the fish completion tests')).each(cases)('fish completes %j', (line, expected) => {
    const out = execFileSync('fish', ['-c', `source ${JSON.stringify(resolve(dir, files.fish))}; complete -C "$LINE"`], { env: { ...process.env, LINE: line }, encoding: 'utf8' });
    expect(out.split('\n').filter(Boolean).map((l) => l.split('\t')[0]).sort()).toEqual([...expected].sort());
  });
});
