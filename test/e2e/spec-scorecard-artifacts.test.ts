// What a run produces, through the built orc as a user runs it: `spec get|edit`, `scorecard`, `artifacts
// list|pull`, with execa (no terminal) and in tmux (a terminal: the editor loop, the diff and its question,
// the live view of downloads, Ctrl-C).
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { execa } from 'execa';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { freshConfigDir, ORC_BIN, orc as orcProcess } from '../helpers/cli.js';
import { startFaultProxy, type FaultProxy } from '../helpers/fault-proxy.js';
import { driveToEnd, KEY, quickClock, startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { TmuxSession } from '../helpers/tmux.js';
import { needTool } from '../helpers/tools.js';
import { until } from '../helpers/until.js';

const withTmux = needTool('tmux', `the terminal tests in ${import.meta.filename.split('/').pop()}`);
const ci = Boolean(process.env.CI) && process.env.CI !== 'false';
/** A tmpfs in a private mount namespace (root, or a CI machine, which runs as root). */
const mountsTmpfs = (() => {
  const ok =
    spawnSync('unshare', ['-m', 'sh', '-c', 'mount -t tmpfs -o size=1m tmpfs /mnt'], { stdio: 'ignore' }).status === 0;
  if (!ok && !ci)
    process.stderr.write(
      'skipping the full-disk pull test: a tmpfs cannot be mounted here (it needs root, as CI has)\n',
    );
  return ok || ci;
})();
const FAKE_EDITOR = resolve(import.meta.dirname, '../helpers/fake-editor.mjs');

let sb: TestSandbox;
let proxy: FaultProxy;
let finished: string;
beforeAll(async () => {
  sb = await startTestSandbox({ stageMs: 40, ipaMib: 8, clock: quickClock() });
  proxy = await startFaultProxy(sb.url);
  finished = (await sb.createRun('A habit tracker for runners')).id;
  await driveToEnd(sb, finished);
  await sb.artifactsReady(finished);
}, 30_000);
afterAll(async () => {
  await proxy.close();
  await sb.close();
});

const orc = (args: string[], env: Record<string, string> = {}) =>
  orcProcess(args, { env: { ORC_BASE_URL: proxy.url, ...env } });
const orcIn = (args: string[], env: Record<string, string> = {}) =>
  TmuxSession.start([process.execPath, ORC_BIN, ...args], {
    env: { ORC_BASE_URL: proxy.url, ORC_CONFIG_DIR: freshConfigDir(), ...env },
    width: 120,
    height: 50,
  });
function editor(steps: unknown[]) {
  const dir = mkdtempSync(join(tmpdir(), 'orc-fake-editor-'));
  return {
    env: {
      EDITOR: `${process.execPath} ${FAKE_EDITOR}`,
      VISUAL: '',
      FAKE_EDITOR_DIR: dir,
      FAKE_EDITOR_STEPS: JSON.stringify(steps),
    },
    seen: (n: number) => readFileSync(join(dir, `seen-${n}`), 'utf8'),
  };
}
const ideaRun = async (pitch: string) =>
  (await sb.waitFor((await sb.createRun(pitch)).id, (r) => r.gate_pending === 'idea')).id as string;
const specOf = async (id: string) => (await sb.call('GET', `/v1/runs/${id}/spec`)).body;

describe('the built orc, without a terminal', () => {
  it('spec get, spec edit in $EDITOR, scorecard, artifacts list and pull, as a script would', async () => {
    const id = await ideaRun('A journal for climbers');
    const yaml = await orc(['spec', 'get', id]);
    expect(yaml.exitCode, yaml.stderr).toBe(0);
    expect(parseYaml(yaml.stdout)).toEqual(await specOf(id));
    const ed = editor([{ replace: ['^name: .*$', 'name: Crux'] }]);
    const edited = await orc(['spec', 'edit', id], ed.env);
    expect(edited.exitCode, edited.stderr).toBe(0);
    expect(edited.stderr).toContain('updated: name');
    expect((await specOf(id)).name).toBe('Crux');

    const card = await orc(['scorecard', finished, '--json']);
    expect(JSON.parse(card.stdout)).toEqual((await sb.call('GET', `/v1/runs/${finished}/scorecard`)).body);
    const list = await orc(['artifacts', 'list', finished]);
    expect(list.stdout.split('\n').every((l) => l.split('\t')[1] === 'ready')).toBe(true);

    const dir = mkdtempSync(join(tmpdir(), 'orc-pull-e2e-'));
    const pulled = await orc(['artifacts', 'pull', finished, '--dir', dir, '--json']);
    expect(pulled.exitCode, pulled.stderr).toBe(0);
    const doc = JSON.parse(pulled.stdout);
    expect(doc.files).toHaveLength(15); // 4 JSON, the ipa, 5 screens at 2 sizes
    for (const f of doc.files) expect(statSync(f.path).size).toBe(f.size);
  });

  it('Ctrl-C during a pull exits 130 and keeps the partial file, which the next pull resumes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'orc-pull-int-'));
    proxy.plan = (req) =>
      req.url.startsWith('/files/') ? { kind: 'cut-body', afterBytes: 2_000_000, stall: true } : { kind: 'pass' };
    const part = join(dir, '.orc-partial', 'ipa', 'HabitTracker.ipa');
    const proc = orcProcess(['artifacts', 'pull', finished, 'ipa', '--dir', dir], { env: { ORC_BASE_URL: proxy.url } });
    await until(() => existsSync(part) && statSync(part).size === 2_000_000, 'the partial file to hold the first 2 MB');
    proc.kill('SIGINT');
    const r = await proc;
    expect(r.exitCode).toBe(130);
    expect(r.stderr).toContain('partial files stay in .orc-partial/');
    expect(statSync(part).size).toBe(2_000_000);
    proxy.plan = () => ({ kind: 'pass' });
    proxy.seen.length = 0;
    const again = await orc(['artifacts', 'pull', finished, 'ipa', '--dir', dir, '--json']);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout).files[0].state).toBe('resumed');
    expect(proxy.seen.filter((s) => s.url.startsWith('/files/')).map((s) => s.headers.range)).toEqual([
      'bytes=2000000-',
    ]);
    expect(readdirSync(join(dir, 'ipa'))).toEqual(['HabitTracker.ipa']);
    expect(existsSync(join(dir, '.orc-partial'))).toBe(false);
  });

  it.runIf(mountsTmpfs)(
    'a disk that fills mid-pull: one line naming the folder (exit 1), the partial file kept, and the next pull resumes it',
    async () => {
      // A 3 MiB tmpfs in a mount namespace of its own: the 8 MiB ipa fills it. Then it is made larger and
      // the same command runs again, in the same namespace.
      const out = mkdtempSync(join(tmpdir(), 'orc-enospc-'));
      const disk = join(out, 'disk');
      const pull = [
        process.execPath,
        ORC_BIN,
        'artifacts',
        'pull',
        finished,
        '--dir',
        `${disk}/pulled`,
        '--concurrency',
        '1',
      ]
        .map((a) => `'${a}'`)
        .join(' ');
      const script = [
        `mount -t tmpfs -o size=3m tmpfs '${disk}' || exit 99`,
        `${pull} > '${out}/first.out' 2> '${out}/first.err'; echo $? > '${out}/first.code'`,
        `ls -l '${disk}/pulled/.orc-partial/ipa' > '${out}/partial' 2>&1`,
        `mount -o remount,size=64m '${disk}'`,
        `${pull} --json > '${out}/second.out' 2> '${out}/second.err'; echo $? > '${out}/second.code'`,
      ].join('\n');
      mkdirSync(disk);
      const r = await execa('unshare', ['-m', 'sh', '-c', script], {
        env: { ...process.env, ORC_BASE_URL: sb.url, ORC_CONFIG_DIR: freshConfigDir() },
        reject: false,
      });
      expect(r.exitCode, r.stderr).toBe(0);
      const read = (name: string) => readFileSync(join(out, name), 'utf8');
      expect(read('first.code').trim()).toBe('1');
      const err = read('first.err');
      expect(err).toContain(`orc: cannot write to ${disk}/pulled: the disk is full (ENOSPC)`);
      expect(err).toContain('Free some space and run the same command again');
      expect(err).not.toMatch(/\n\s+at /);
      expect(read('partial')).toMatch(/HabitTracker\.ipa/);
      expect(read('second.code').trim(), read('second.err')).toBe('0');
      const doc = JSON.parse(read('second.out'));
      expect(doc.files.find((f: any) => f.kind === 'ipa').state).toBe('resumed');
    },
    60_000,
  );

  it('a folder orc may not write to: one line naming it and the fix, exit 4, no stack', async () => {
    // Root writes anywhere; without the capability to override file modes (as any user is), a folder of
    // mode 0500 cannot be written, while the checkout (root's) still reads.
    const locked = mkdtempSync(join(tmpdir(), 'orc-eacces-'));
    chmodSync(locked, 0o500);
    const pull = [process.execPath, ORC_BIN, 'artifacts', 'pull', finished, '--dir', join(locked, 'out')];
    const [cmd, ...args] =
      process.getuid?.() === 0 ? ['setpriv', '--bounding-set', '-dac_override,-dac_read_search', ...pull] : pull;
    const r = await execa(cmd!, args, {
      env: { ...process.env, ORC_BASE_URL: sb.url, ORC_API_KEY: KEY, ORC_CONFIG_DIR: freshConfigDir() },
      reject: false,
    });
    expect(r.stderr).toContain(`orc: cannot write to ${join(locked, 'out')}: permission denied (EACCES)`);
    expect(r.stderr).toContain('Fix its permissions, or choose another folder with --dir.');
    expect(r.exitCode).toBe(4);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});

describe.runIf(withTmux)('the built orc at a terminal', () => {
  it('spec edit: an invalid edit reopens with the error on top and the text kept; the diff is shown and asked', async () => {
    const id = await ideaRun('A recipe box');
    const ed = editor([
      { replace: ['^platforms:\\n  - ios$', 'platforms:\n  - not-a-platform'] },
      { replace: ['^  - not-a-platform\\n  - android$', '  - ios\n  - android\nname_note: kept'] },
    ]);
    const term = orcIn(['spec', 'edit', id], ed.env);
    try {
      await term.waitFor('Send this change to run');
      const screen = term.screen();
      expect(screen).toContain('+ name_note: kept');
      term.type('y');
      term.send('Enter');
      expect(await term.exitCode()).toBe(0);
      expect(term.screen()).toContain(`spec of ${id} updated: name_note`);
    } finally {
      term.kill();
    }
    const second = ed.seen(2);
    expect(second).toContain('This edit was not sent');
    expect(second).toMatch(/✗ platforms\.0: /);
    expect(second).toContain('- not-a-platform');
    expect((await specOf(id)).name_note).toBe('kept');
  }, 40_000);

  it('spec edit: saving the file again unchanged after an error gives up (exit 2), sends nothing, keeps the edit', async () => {
    const id = await ideaRun('A bird log');
    const before = await specOf(id);
    const ed = editor([{ replace: ['^platforms:\\n  - ios$', 'platforms:\n  - not-a-platform'] }, {}]);
    const term = orcIn(['spec', 'edit', id], ed.env);
    try {
      expect(await term.exitCode()).toBe(2);
      const screen = term.screen();
      expect(screen).toContain('the edited spec is not valid: platforms.0');
      const kept = /Your edit is kept in (\S+)/.exec(screen)![1]!;
      expect(readFileSync(kept, 'utf8')).toContain('- not-a-platform');
    } finally {
      term.kill();
    }
    expect(await specOf(id)).toEqual(before);
  }, 40_000);

  it('spec edit: a field the service refuses reopens the editor with its reason and the text kept', async () => {
    const id = await ideaRun('A plant waterer');
    let refused = false;
    proxy.plan = (req) => {
      if (req.method === 'PATCH' && !refused) {
        refused = true;
        return {
          kind: 'answer',
          status: 400,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            error: {
              type: 'invalid_request_error',
              code: 'invalid_value',
              message: 'that name is taken',
              field: 'name',
            },
          }),
        };
      }
      return { kind: 'pass' };
    };
    const ed = editor([{ replace: ['^name: .*$', 'name: Fern'] }, { replace: ['^name: Fern$', 'name: Fernly'] }]);
    const term = orcIn(['spec', 'edit', id, '--yes'], ed.env);
    try {
      expect(await term.exitCode()).toBe(0);
    } finally {
      term.kill();
      proxy.plan = () => ({ kind: 'pass' });
    }
    expect(ed.seen(2)).toContain('✗ name: that name is taken');
    expect(ed.seen(2)).toMatch(/^name: Fern$/m);
    expect((await specOf(id)).name).toBe('Fernly');
  }, 40_000);

  it('the gate prompt\'s "edit the spec" is the same edit: YAML, the diff, the question', async () => {
    const id = await ideaRun('A tide table');
    const ed = editor([{ replace: ['^tagline: .*$', 'tagline: Know the sea'] }]);
    const term = orcIn(['watch', id, '--no-bell'], ed.env);
    try {
      await term.waitFor('Gate idea: your decision');
      for (let i = 0; i < 3; i++) term.send('Down');
      term.send('Enter');
      await term.waitFor('Send this change to run');
      expect(term.screen()).toContain('+ tagline: Know the sea');
      term.type('y');
      term.send('Enter');
      await term.waitFor('✓ spec updated: tagline');
      expect(ed.seen(1)).toMatch(/^# yaml-language-server: \$schema=/);
      expect((await specOf(id)).tagline).toBe('Know the sea');
      term.send('C-c');
      await term.exitCode();
    } finally {
      term.kill();
    }
  }, 40_000);

  it('the final gate\'s failing checks with field and hint; "edit the spec at" a field, then Reject reworks', async () => {
    const id = (await sb.createRun('A star chart #lowscore')).id;
    for (const gate of ['idea', 'brand']) {
      await sb.waitFor(id, (r) => r.gate_pending === gate);
      await sb.call('POST', `/v1/runs/${id}/gates/${gate}:approve`);
    }
    await sb.waitFor(id, (r) => r.gate_pending === 'final');
    const ed = editor([{ replace: ['^  palette:\\n    - .*$', '  palette:\n    - "#1D2B3A"'] }]);
    const term = orcIn(['watch', id, '--no-bell'], ed.env);
    try {
      await term.waitFor('Gate final: your decision');
      const screen = term.screen();
      expect(screen).toMatch(/✗ fail\s+Text contrast at WCAG AA[\s\S]*field\s+brand\.palette\n\s+hint\s+darken/);
      expect(screen).toContain('Apply the suggested values (name, category, brand.palette), then decide');
      // Leave it pending (the doubt puts it first), approve anyway, reject twice, edit, then the fields.
      for (let i = 0; i < 7; i++) term.send('Down');
      term.send('Enter'); // Edit the spec at brand.palette
      await term.waitFor('Send this change to run');
      expect(ed.seen(1)).toMatch(/^ {2}# ↓ brand\.palette: darken the first colour/m);
      term.type('y');
      term.send('Enter');
      await term.waitFor('Reject with notes to run the stages after');
      term.send('Enter'); // the cursor waits on Reject
      await term.waitFor('Notes for the rejection');
      term.type('Darker text');
      term.send('Enter');
      await term.waitFor('rejected gate final');
      await term.waitFor(/rejected gate final[\s\S]*awaits your decision[\s\S]*Gate final: your decision/);
      expect(term.screen().split('rejected gate final').at(-1)).toMatch(/✓ pass\s+Text contrast at WCAG AA/);
      term.send('C-c');
      await term.exitCode();
    } finally {
      term.kill();
    }
    expect((await specOf(id)).brand.palette[0]).toBe('#1D2B3A');
  }, 40_000);

  it('artifacts pull: one live view of the downloads, then Ctrl-C exits 130 with the cursor back and the .part kept', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'orc-pull-tty-'));
    proxy.plan = (req) =>
      req.url.includes('.ipa') ? { kind: 'cut-body', afterBytes: 3_000_000, stall: true } : { kind: 'pass' };
    const term = orcIn(['artifacts', 'pull', finished, '--dir', dir]);
    try {
      await term.waitFor(/ipa\/HabitTracker\.ipa\s+2\.9 MiB \/ 8\.0 MiB\s+3\d%/);
      const screen = await term.waitFor(/total\s+14 done, 1 downloading/);
      expect(screen).toMatch(/✓ .*screenshots\/\S+\.png\s+\S+ KiB\s+downloaded/);
      expect(screen).toContain('ETA');
      term.send('C-c');
      expect(await term.exitCode()).toBe(130);
      expect(term.cursorVisible()).toBe(true);
    } finally {
      term.kill();
      proxy.plan = () => ({ kind: 'pass' });
    }
    expect(statSync(join(dir, '.orc-partial', 'ipa', 'HabitTracker.ipa')).size).toBe(3_000_000);
  }, 40_000);
});
