// --notify and --on-gate-exec in process: which channel the environment chooses, what a notifier is given, and
// a watch at a (pretend) terminal telling of a gate and of the end, against a sandbox on a manual clock.
import { chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chooseChannel, notify } from '../../../src/commands/watch/nudge.js';
import { startSandbox, type TestSandbox } from '../../../src/sdk/testing.js';
import { runOrc } from '../../helpers/run.js';
import { until } from '../../helpers/until.js';

const IDEA = { pitch: 'A habit tracker for runners', audience: 'runners', monetization: 'freemium' } as const;

/** A folder for PATH holding a `notify-send` (and an `osascript`) that write their arguments, one a line. */
function fakeNotifiers(): { dir: string; argv: string } {
  const dir = mkdtempSync(join(tmpdir(), 'orc-notifier-'));
  const argv = join(dir, 'argv');
  for (const name of ['notify-send', 'osascript']) {
    const script = join(dir, name);
    writeFileSync(script, `#!/bin/sh\nprintf '%s\\n' "$@" > '${argv}'\n`);
    chmodSync(script, 0o755);
  }
  return { dir, argv };
}

describe('the channel --notify chooses from the environment', () => {
  const { dir } = fakeNotifiers();
  const linux = (env: NodeJS.ProcessEnv, bell = true) => chooseChannel({ PATH: '/nowhere', ...env }, 'linux', bell);

  it('the terminal sequence where the terminal shows it: OSC 9 (iTerm2, WezTerm, kitty), OSC 777 (foot, Windows Terminal)', () => {
    expect(linux({ TERM_PROGRAM: 'iTerm.app' })).toEqual({ kind: 'osc9' });
    expect(linux({ TERM_PROGRAM: 'WezTerm' })).toEqual({ kind: 'osc9' });
    expect(linux({ TERM: 'xterm-kitty', KITTY_WINDOW_ID: '1' })).toEqual({ kind: 'osc9' });
    expect(linux({ TERM: 'foot' })).toEqual({ kind: 'osc777' });
    expect(linux({ WT_SESSION: 'b0c1' })).toEqual({ kind: 'osc777' });
  });

  it('inside tmux no sequence (it would be swallowed): the desktop notifier, where there is a display', () => {
    const inTmux = { TMUX: '/tmp/tmux-1/default,1,0', TERM_PROGRAM: 'iTerm.app', PATH: dir };
    expect(linux({ ...inTmux, DISPLAY: ':0' })).toEqual({ kind: 'notify-send', path: join(dir, 'notify-send') });
    expect(linux({ ...inTmux, DBUS_SESSION_BUS_ADDRESS: 'unix:path=/run/bus' })).toMatchObject({ kind: 'notify-send' });
    // no display nor session bus: notify-send would fail; the bell
    expect(linux(inTmux)).toEqual({ kind: 'bell' });
    expect(chooseChannel({ PATH: dir }, 'darwin', true)).toEqual({ kind: 'osascript', path: join(dir, 'osascript') });
  });

  it('else the bell, and nothing at all with --no-bell', () => {
    expect(linux({ TERM: 'xterm-256color', DISPLAY: ':0' })).toEqual({ kind: 'bell' });
    expect(linux({ TERM: 'xterm-256color' }, false)).toBeNull();
  });

  it('a notifier gets the text as one argument: one line, no controls, at most 200 characters', async () => {
    const { dir, argv } = fakeNotifiers();
    const failed: string[] = [];
    const text = `run_1 A \u001b]0;evil\u0007name\nwith a newline — gate idea waits ${'x'.repeat(300)}`;
    notify({ kind: 'notify-send', path: join(dir, 'notify-send') }, text, process.stderr, (w) => failed.push(w));
    await until(() => existsSync(argv) && readFileSync(argv, 'utf8').endsWith('\n'), 'the fake notify-send ran');
    const args = readFileSync(argv, 'utf8').split('\n').slice(0, -1);
    expect(args.slice(0, 2)).toEqual(['--app-name=orc', 'orc']);
    expect(args).toHaveLength(3);
    expect(args[2]).toMatch(/^run_1 A name with a newline — gate idea waits x+…$/);
    expect(args[2]!.length).toBe(200);
    expect(failed).toEqual([]);
  });
});

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startSandbox({ clock: 'manual', stageMs: 3_600_000 });
});
afterAll(() => sb.stop());

const env = (more: Record<string, string | undefined> = {}) => ({
  ORC_BASE_URL: sb.url,
  ORC_API_KEY: sb.apiKey,
  TMUX: undefined,
  TERM_PROGRAM: undefined,
  ...more,
});
const atTerminal = { stdout: true, stderr: true };

/** The run stepped to `gate` once the watch has begun (it names the run: at a terminal on stdout, piped on
 * stderr): a gate already pending when a watch begins is no news, notified or hooked. */
async function gateOnceWatched(said: () => string, runId: string, gate: string): Promise<void> {
  const name = (await sb.client.spec.retrieve(runId)).name;
  await until(() => said().includes(name), `the watch to name ${runId}`, { seen: said });
  await sb.advance({ run: runId, to: `gate:${gate}` });
}

describe('orc watch --notify', () => {
  it('at an iTerm2 terminal, OSC 9 when the gate opens (id and name) and when the run ends', async () => {
    const run = await sb.client.runs.create({ mode: 'idea', idea: IDEA });
    const watch = runOrc(['watch', run.id, '--notify', '--on-gate', 'wait'], {
      env: env({ TERM_PROGRAM: 'iTerm.app' }),
      tty: atTerminal,
    });
    await gateOnceWatched(watch.stdout, run.id, 'idea');
    const gateSeq = new RegExp(`\u001b\\]9;${run.id} (\\S[^\u0007]*) — gate idea waits\u0007`);
    await until(() => gateSeq.test(watch.stderr()), 'the OSC 9 of the idea gate', { seen: watch.stderr });
    expect(gateSeq.exec(watch.stderr())![1]).not.toBe('');
    await sb.advance({ run: run.id, to: 'end' });
    const done = await watch;
    expect(done.exitCode, done.stderr).toBe(0);
    expect(done.stderr).toMatch(new RegExp(`\u001b\\]9;${run.id} [^\u0007]+ accepted\u0007`));
    // the notification instead of the bell, not both: a BEL only as each sequence's end
    expect(done.stderr.split('\u0007').length - 1).toBe(2);
  });

  it('a run that had ended before the watch began is no news: its replayed end notifies nothing', async () => {
    const run = await sb.client.runs.create({ mode: 'idea', idea: IDEA });
    await sb.advance({ run: run.id, to: 'end' });
    const done = await runOrc(['watch', run.id, '--notify'], {
      env: env({ TERM_PROGRAM: 'iTerm.app' }),
      tty: atTerminal,
    });
    expect(done.exitCode, done.stderr).toBe(0);
    expect(done.stderr).not.toContain('\u001b]9;');
  });

  it('watching several runs (WezTerm): OSC 9 for the gate and the end of each run', async () => {
    const a = await sb.client.runs.create({ mode: 'idea', idea: { ...IDEA, pitch: 'Tide clock A' } });
    const b = await sb.client.runs.create({ mode: 'idea', idea: { ...IDEA, pitch: 'Surf log B' } });
    const watch = runOrc(['watch', a.id, b.id, '--notify', '--on-gate', 'wait'], {
      env: env({ TERM_PROGRAM: 'WezTerm' }),
      tty: atTerminal,
    });
    await gateOnceWatched(watch.stdout, a.id, 'idea');
    await gateOnceWatched(watch.stdout, b.id, 'brand');
    const told = (id: string, what: string) => new RegExp(`\u001b\\]9;${id} [^\u0007]+ ${what}\u0007`);
    await until(
      () =>
        told(a.id, '— gate idea waits').test(watch.stderr()) && told(b.id, '— gate brand waits').test(watch.stderr()),
      'both gates told',
      { seen: watch.stderr },
    );
    await sb.advance({ run: a.id, to: 'end' });
    await sb.advance({ run: b.id, to: 'end' });
    const done = await watch;
    expect(done.exitCode, done.stderr).toBe(0);
    expect(done.stderr).toMatch(told(a.id, 'accepted'));
    expect(done.stderr).toMatch(told(b.id, 'accepted'));
  });

  it('not at a terminal, or under --json: says once that nothing will be notified, and the watch goes on', async () => {
    const run = await sb.client.runs.create({ mode: 'idea', idea: IDEA });
    await sb.advance({ run: run.id, to: 'end' });
    const piped = await runOrc(['watch', run.id, '--notify'], { env: env({ TERM_PROGRAM: 'iTerm.app' }) });
    expect(piped.exitCode).toBe(0);
    expect(piped.stderr.split('nothing will be notified').length - 1).toBe(1);
    expect(piped.stderr).toContain('nothing will be notified when not at a terminal');
    expect(piped.stderr).not.toMatch(/\u001b\]9;|\u0007/);
    const json = await runOrc(['watch', run.id, '--notify', '--json'], {
      env: env({ TERM_PROGRAM: 'iTerm.app' }),
      tty: atTerminal,
    });
    expect(json.exitCode).toBe(0);
    expect(json.stderr).toContain('nothing will be notified under --json');
    expect(json.stderr).not.toContain('\u001b]9;');
    for (const line of json.stdout.split('\n').filter(Boolean)) JSON.parse(line);
  });

  it('where nothing can notify (--no-bell, no notifier, no such terminal): says so once and goes on', async () => {
    const run = await sb.client.runs.create({ mode: 'idea', idea: IDEA });
    await sb.advance({ run: run.id, to: 'end' });
    const done = await runOrc(['watch', run.id, '--notify', '--no-bell'], {
      env: env({ PATH: '/nowhere', TERM: 'xterm-256color' }),
      tty: atTerminal,
    });
    expect(done.exitCode).toBe(0);
    expect(done.stderr.split('nothing here can notify').length - 1).toBe(1);
  });
});

describe('orc watch --on-gate-exec', () => {
  it('runs the command once for the gate that opens (not the ones replayed), the event on stdin and in env', async () => {
    const run = await sb.client.runs.create({ mode: 'idea', idea: IDEA });
    await sb.advance({ run: run.id, to: 'gate:idea' });
    await sb.client.gates.approve(run.id, 'idea');
    const out = join(mkdtempSync(join(tmpdir(), 'orc-hook-')), 'seen');
    const hook = `{ cat; echo "$ORC_RUN_ID|$ORC_GATE|$ORC_HINT"; } >> '${out}'`;
    const watch = runOrc(['watch', run.id, '--on-gate', 'exit', '--on-gate-exec', hook], { env: env() });
    await gateOnceWatched(watch.stderr, run.id, 'brand');
    const done = await watch;
    expect(done.exitCode, done.stderr).toBe(6);
    // the watch ended at the gate only once the hook had ended
    const [json, envLine, ...rest] = readFileSync(out, 'utf8').split('\n');
    expect(rest).toEqual(['']);
    expect(JSON.parse(json!)).toMatchObject({
      run_id: run.id,
      gate: 'brand',
      name: expect.any(String),
      opened_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      hint: `orc gate approve ${run.id} brand`,
    });
    expect(envLine).toBe(`${run.id}|brand|orc gate approve ${run.id} brand`);
  });

  it('a gate already pending when the watch begins is no news: no hook, no notification; its next opening is', async () => {
    const run = await sb.client.runs.create({ mode: 'idea', idea: IDEA });
    await sb.advance({ run: run.id, to: 'gate:idea' });
    const out = join(mkdtempSync(join(tmpdir(), 'orc-hook-')), 'seen');
    const watch = runOrc(
      ['watch', run.id, '--on-gate', 'wait', '--notify', '--on-gate-exec', `echo "$ORC_GATE" >> '${out}'`],
      { env: env({ TERM_PROGRAM: 'iTerm.app' }), tty: atTerminal },
    );
    const name = (await sb.client.spec.retrieve(run.id)).name;
    await until(() => watch.stdout().includes(name), 'the watch to name the run', { seen: watch.stdout });
    await sb.client.gates.reject(run.id, 'idea', { notes: 'Warmer, please' });
    await sb.advance({ run: run.id, to: 'gate:idea' }); // the idea gate again: news
    await until(() => existsSync(out), 'the hook of the gate opened again', { seen: watch.stderr });
    await sb.advance({ run: run.id, to: 'end' });
    const done = await watch;
    expect(done.exitCode, done.stderr).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe('idea\n'); // once: the second opening
    expect(done.stderr.match(/\u001b\]9;[^\u0007]+ — gate idea waits\u0007/g)).toHaveLength(1);
  });

  it('a hook that fails (exit 3) or hangs (killed at ORC_HOOK_TIMEOUT_MS) is said on stderr; the watch goes on', async () => {
    const run = await sb.client.runs.create({ mode: 'idea', idea: IDEA });
    const hook = 'if [ "$ORC_GATE" = idea ]; then echo no webhook >&2; exit 3; fi; exec sleep 600';
    const watch = runOrc(['watch', run.id, '--on-gate', 'wait', '--on-gate-exec', hook], {
      env: env({ ORC_HOOK_TIMEOUT_MS: '300' }),
    });
    await gateOnceWatched(watch.stderr, run.id, 'idea');
    await until(() => watch.stderr().includes('failed (exit 3: no webhook)'), 'the failing hook said', {
      seen: watch.stderr,
    });
    await sb.client.gates.approve(run.id, 'idea');
    await sb.advance({ run: run.id, to: 'gate:brand' });
    await until(() => watch.stderr().includes('gate brand failed (still running after 0.3 s, killed)'), 'the hang', {
      seen: watch.stderr,
    });
    await sb.advance({ run: run.id, to: 'end' });
    const done = await watch;
    expect(done.exitCode, done.stderr).toBe(0);
  });
});
