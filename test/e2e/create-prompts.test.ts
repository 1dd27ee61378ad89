// `orc run create`, `orc profile add` and `orc profile remove` at a real terminal (tmux): missing idea fields are asked for, on stderr, with the
// monetization values offered; stdout keeps only the run.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { freshConfigDir, ORC_BIN } from '../helpers/cli.js';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { TmuxSession } from '../helpers/tmux.js';
import { needTool } from '../helpers/tools.js';

const withTmux = needTool('tmux', `the terminal tests in ${import.meta.filename.split('/').pop()}`);

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startTestSandbox({ stageMs: 30_000 });
});
afterAll(() => sb.close());

it.runIf(withTmux)('asks for the pitch, the audience and the monetization, then creates the run', async () => {
  const term = TmuxSession.start([process.execPath, ORC_BIN, 'run', 'create'], {
    env: { ORC_BASE_URL: sb.url, ORC_CONFIG_DIR: freshConfigDir() },
  });
  try {
    await term.waitFor('Pitch: what is the app?');
    term.type('A quiet timer for focused work');
    term.send('Enter');
    await term.waitFor('Audience: who is it for?');
    term.type('students');
    term.send('Enter');
    const menu = await term.waitFor('Monetization');
    for (const value of ['free', 'paid', 'freemium', 'subscription']) expect(menu).toContain(value);
    term.send('Down');
    term.send('Enter');
    expect(await term.exitCode()).toBe(0);
    const screen = term.screen();
    expect(screen).toMatch(/id\s+run_\S+/);
    const id = /id\s+(run_\S+)/.exec(screen)![1]!;
    const spec = await sb.call('GET', `/v1/runs/${id}/spec`);
    expect(spec.body).toMatchObject({ audience: 'students', monetization: 'paid' });
    expect(spec.body.tagline).toContain('A quiet timer');
  } finally {
    term.kill();
  }
});

it.runIf(withTmux)('Ctrl-D at a prompt ends with exit 130, a line saying so, and no Node warning', async () => {
  const term = TmuxSession.start([process.execPath, ORC_BIN, 'run', 'create'], {
    env: { ORC_BASE_URL: sb.url, ORC_CONFIG_DIR: freshConfigDir() },
  });
  try {
    await term.waitFor('Pitch: what is the app?');
    term.send('C-d');
    expect(await term.exitCode()).toBe(130);
    const screen = term.screen();
    expect(screen).toMatch(/orc: (input ended|interrupted)/);
    expect(screen).not.toMatch(/Warning|unsettled top-level await|\n\s+at /);
  } finally {
    term.kill();
  }
});

it.runIf(withTmux)('profile remove asks first at a terminal: no keeps the profile, yes removes it', async () => {
  const configDir = freshConfigDir();
  const { execa } = await import('execa');
  const add = await execa(process.execPath, [ORC_BIN, 'profile', 'add', 'old', '--base-url', sb.url, '--with-key'], {
    env: { ORC_CONFIG_DIR: configDir },
    input: 'sk_test_orc_sandbox_local',
    reject: false,
  });
  expect(add.exitCode, add.stderr).toBe(0);
  const names = async () =>
    JSON.parse(
      (await execa(process.execPath, [ORC_BIN, 'profile', 'list', '--json'], { env: { ORC_CONFIG_DIR: configDir } }))
        .stdout,
    ).map((p: { name: string }) => p.name);
  for (const [answer, exit, kept] of [
    ['n', 130, true],
    ['y', 0, false],
  ] as const) {
    const term = TmuxSession.start([process.execPath, ORC_BIN, 'profile', 'remove', 'old'], {
      env: { ORC_CONFIG_DIR: configDir },
    });
    try {
      await term.waitFor('Remove profile old with its test key?');
      term.type(answer);
      term.send('Enter');
      expect(await term.exitCode()).toBe(exit);
      expect((await names()).includes('old')).toBe(kept);
    } finally {
      term.kill();
    }
  }
});

it.runIf(withTmux)(
  'profile add: a test key pasted at the live-key prompt is said and asked again; the test key given first is kept',
  async () => {
    const configDir = freshConfigDir();
    const term = TmuxSession.start(
      [process.execPath, ORC_BIN, 'profile', 'add', 'prod', '--base-url', 'https://api.example.com'],
      { env: { ORC_CONFIG_DIR: configDir, ORC_NO_KEYCHAIN: '1' } },
    );
    try {
      await term.waitFor('Test key (sk_test_');
      term.type('sk_test_FirstKey1234');
      term.send('Enter');
      await term.waitFor('Live key (sk_live_');
      term.type('sk_test_PastedByMistake9');
      term.send('Enter');
      await term.waitFor('that is a test key: a live key starts sk_live_');
      // The mistaken text is cleared by the prompt's own editing keys, then the live key typed.
      for (let i = 0; i < 30; i++) term.send('BSpace');
      term.type('sk_live_RealKey5678');
      term.send('Enter');
      expect(await term.exitCode()).toBe(0);
    } finally {
      term.kill();
    }
    const { execa } = await import('execa');
    const shown = JSON.parse(
      (
        await execa(process.execPath, [ORC_BIN, 'profile', 'show', 'prod', '--json'], {
          env: { ORC_CONFIG_DIR: configDir },
        })
      ).stdout,
    );
    expect(shown).toMatchObject({ test_key: 'sk_test_…1234', live_key: 'sk_live_…5678' });
  },
);
