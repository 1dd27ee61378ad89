// What scripts and agents rely on, through the built orc against a real sandbox on a manual clock (runs
// move only when advanced): --jq, one JSON error on stderr under --json, and --max-wait (exit 7).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { http, idea, manualSandbox } from '../helpers/steer.js';
import { freshConfigDir, orc } from '../helpers/cli.js';

const manual = manualSandbox();
const at = (args: string[]) => orc(args, { env: { ORC_BASE_URL: manual.url } });

describe('--jq', () => {
  it('filters the JSON with jq itself; strings print raw; it implies --json', async () => {
    const id = (await http(manual.url, 'POST', '/v1/runs', idea('Filtered'))).body.id;
    const r = await at(['run', 'get', id, '--jq', '.status']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe('running');
    const list = await at(['run', 'list', '--jq', `map(select(.id == "${id}")) | .[] | "\\(.id) \\(.stage)"`]);
    expect(list.stdout).toBe(`${id} 01_intake`);
    const api = await at(['api', 'GET', `/v1/runs/${id}`, '--jq', '{id, mode}']);
    expect(JSON.parse(api.stdout)).toEqual({ id, mode: 'idea' });
  });

  it('piped, run list is tab-separated with the run’s name as its last field (issue 37); --jq sees no name', async () => {
    const id = (await http(manual.url, 'POST', '/v1/runs', idea('Named'))).body.id;
    await http(manual.url, 'PATCH', `/v1/runs/${id}/spec`, { name: 'Harbour Hours' });
    const r = await at(['run', 'list']);
    expect(r.exitCode, r.stderr).toBe(0);
    const row = r.stdout.split('\n').find((l) => l.startsWith(`${id}\t`));
    expect(row?.split('\t')).toEqual([id, 'running', '01_intake', '—', expect.any(String), 'Harbour Hours']);
    expect((await at(['run', 'list', '--jq', `.[] | select(.id == "${id}") | keys | index("name")`])).stdout).toBe(
      'null',
    );
  });

  it('a bad expression is exit 2 with jq’s message, before anything is sent', async () => {
    const before = (await http(manual.url, 'GET', '/v1/runs?limit=100')).body.data.length;
    const r = await at([
      'run',
      'create',
      '--pitch',
      'Never made',
      '--audience',
      'a',
      '--monetization',
      'free',
      '--jq',
      '.id |',
    ]);
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
    expect(JSON.parse(r.stderr).error).toMatchObject({ type: 'usage_error', field: '--jq', exit_code: 2 });
    expect(JSON.parse(r.stderr).error.message).toMatch(/^--jq: syntax error/);
    expect((await http(manual.url, 'GET', '/v1/runs?limit=100')).body.data.length).toBe(before);
  });
});

describe('a failure under --json', () => {
  it('is one JSON object on stderr with the code, the request id and the exit code; stdout stays empty', async () => {
    const r = await at(['run', 'get', 'run_missing', '--json']);
    expect(r.exitCode).toBe(3);
    expect(r.stdout).toBe('');
    const { error } = JSON.parse(r.stderr);
    expect(error).toMatchObject({ type: 'not_found_error', code: 'run_not_found', exit_code: 3 });
    expect(error.request_id).toMatch(/^req_/);
  });

  it('names the flag of a usage error, and commander’s own errors are JSON too', async () => {
    const bad = await at(['run', 'list', '--limit', '0', '--json']);
    expect(bad.exitCode).toBe(2);
    expect(JSON.parse(bad.stderr).error).toMatchObject({ type: 'usage_error', field: '--limit', exit_code: 2 });
    const unknown = await at(['run', 'lsit', '--json']);
    expect(unknown.exitCode).toBe(2);
    expect(JSON.parse(unknown.stderr).error).toMatchObject({ code: 'unknown_command', exit_code: 2 });
    expect(unknown.stdout).toBe('');
  });
});

describe('a dead address', () => {
  it('of a service not on loopback fails fast: three tries, 0.6 s of waiting in all (exit 1)', async () => {
    const { networkInterfaces } = await import('node:os');
    const ip = Object.values(networkInterfaces())
      .flat()
      .find((i) => i && i.family === 'IPv4' && !i.internal)?.address;
    if (!ip)
      return void process.stderr.write('skipping the dead-address test: this machine has no address but loopback\n');
    const r = await orc(['run', 'list', '--live', '--base-url', `https://${ip}:1`], {
      env: { ORC_API_KEY: 'sk_live_DeadAddress1234' },
    });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/connection refused/);
    // The waits orc says it takes: 0.2 s and 0.4 s, then it gives up (it was 4 retries, 6.6 s in all).
    expect(r.stderr.match(/retrying in [\d.]+ s/g)).toEqual(['retrying in 0.2 s', 'retrying in 0.4 s']);
  });
});

describe('--max-wait', () => {
  it('returns with exit 7 when the time runs out first, the run’s state the last line under --json; the run goes on', async () => {
    const id = (await http(manual.url, 'POST', '/v1/runs', idea('Slow'))).body.id;
    // (how soon after the second it returns: `npm run bench -- timings`)
    const r = await at(['watch', id, '--max-wait', '1', '--json']);
    expect(r.exitCode, r.stderr).toBe(7);
    const last = JSON.parse(r.stdout.trim().split('\n').at(-1)!);
    expect(last).toMatchObject({
      type: 'orc.max_wait',
      run_id: id,
      max_wait_s: 1,
      run: { id, status: 'running', stage: '01_intake' },
    });
    expect(r.stderr).toContain(`orc watch ${id} --max-wait`);
    expect((await http(manual.url, 'GET', `/v1/runs/${id}`)).body.status).toBe('running');
  });

  it('returns at a gate with exit 6, and at the end with the run’s outcome, whichever comes first', async () => {
    const gated = (await http(manual.url, 'POST', '/v1/runs', idea('Gated'))).body.id;
    await http(manual.url, 'POST', '/_sandbox/clock/advance', { run: gated, to: 'gate:idea' });
    const atGate = await at(['watch', gated, '--max-wait', '60', '--json']);
    expect(atGate.exitCode, atGate.stderr).toBe(6);
    const done = (await http(manual.url, 'POST', '/v1/runs', idea('Done'))).body.id;
    await http(manual.url, 'POST', '/_sandbox/clock/advance', { run: done, to: 'end' });
    expect((await at(['watch', done, '--max-wait', '60'])).exitCode).toBe(0);
  });

  it('bounds run create --watch too: one run made, exit 7', async () => {
    const before = (await http(manual.url, 'GET', '/v1/runs?limit=100')).body.data.length;
    const r = await at([
      'run',
      'create',
      '--pitch',
      'Bounded',
      '--audience',
      'a',
      '--monetization',
      'free',
      '--watch',
      '--max-wait',
      '1',
      '--jq',
      'select(.type == "orc.max_wait") | .run.status',
    ]);
    expect(r.exitCode, r.stderr).toBe(7);
    expect(r.stdout).toBe('running');
    expect((await http(manual.url, 'GET', '/v1/runs?limit=100')).body.data.length).toBe(before + 1);
  });
});

describe('orc logs', () => {
  it('--failed: the failing stage’s lines, then the error; --json ends with the run.failed event', async () => {
    const t = await http(manual.url, 'POST', '/_sandbox/trigger', {
      kind: 'run.failed',
      stage: '06_qa',
      error: 'qa_failed: crash on launch',
    });
    const id = t.body.run.id;
    const r = await at(['logs', id, '--failed']);
    expect(r.exitCode, r.stderr).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines.slice(0, -1).every((l) => l.includes('  06_qa  '))).toBe(true);
    expect(lines.length).toBeGreaterThan(1);
    expect(lines.at(-1)).toBe('failed at 06_qa: qa_failed: crash on launch');
    const json = (await at(['logs', id, '--failed', '--json'])).stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(json.at(-1)).toMatchObject({ type: 'run.failed', data: { stage: '06_qa', error: { code: 'qa_failed' } } });
    expect(
      json.slice(0, -1).every((l: { type: string; stage: string }) => l.type === 'log' && l.stage === '06_qa'),
    ).toBe(true);
    // A watch that sees it end says what to do next.
    const w = await at(['watch', id]);
    expect(w.exitCode).toBe(5);
    expect(w.stderr).toContain(`next: \`orc logs ${id} --failed\``);
  });

  it('every line by stage, warnings and errors marked; a run still moving prints its history and stops', async () => {
    const id = (await http(manual.url, 'POST', '/v1/runs', idea('Logged'))).body.id;
    await http(manual.url, 'POST', '/_sandbox/clock/advance', { run: id, to: '03_brand' });
    const all = await at(['logs', id]);
    expect(all.exitCode, all.stderr).toBe(0);
    const stages = new Set(
      all.stdout
        .trim()
        .split('\n')
        .map((l) => l.split(/\s{2,}/)[1]),
    );
    expect([...stages]).toEqual(['01_intake', '02_concept']);
    const one = await at(['logs', id, '--stage', '02_concept', '--json']);
    const lines = one.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.length).toBeGreaterThan(0);
    expect(
      lines.every(
        (l: { stage: string; level: string }) =>
          l.stage === '02_concept' && ['info', 'warn', 'error'].includes(l.level),
      ),
    ).toBe(true);
    // A build with a warning: marked WARN.
    const built = (await http(manual.url, 'POST', '/v1/runs', idea('Built'))).body.id;
    await http(manual.url, 'POST', '/_sandbox/clock/advance', { run: built, to: '06_qa' });
    expect((await at(['logs', built, '--stage', '05_build'])).stdout).toMatch(/ {2}05_build {2}WARN {3}warning: /);
    // A stage the ended run never had is a mistake, not an empty answer.
    const ended = (await http(manual.url, 'POST', '/_sandbox/trigger', { kind: 'run.accepted' })).body.run.id;
    const nope = await at(['logs', ended, '--stage', '99_nope']);
    expect(nope.exitCode).toBe(2);
    expect(nope.stderr).toMatch(/--stage 99_nope.*05_build/);
  });

  it('--stage a run never reaches: exit 2 naming --stage and its stages; one still ahead: not yet', async () => {
    const id = (await http(manual.url, 'POST', '/v1/runs', idea('Staged'))).body.id;
    await http(manual.url, 'POST', '/_sandbox/clock/advance', { run: id, to: '03_brand' });
    const ahead = await at(['logs', id, '--stage', '05_build']);
    expect(ahead.exitCode, ahead.stderr).toBe(0);
    expect(ahead.stderr).toContain('no log lines in stage 05_build yet');
    const ended = (await http(manual.url, 'POST', '/v1/runs', idea('Ended'))).body.id;
    await http(manual.url, 'POST', '/_sandbox/clock/advance', { run: ended, to: 'end' });
    const nope = await at(['logs', ended, '--stage', '99_nope', '--json']);
    expect(nope.exitCode).toBe(2);
    expect(nope.stdout).toBe('');
    const { error } = JSON.parse(nope.stderr);
    expect(error).toMatchObject({ type: 'usage_error', field: '--stage', exit_code: 2 });
    const said = `^--stage 99_nope: ${ended} never reached that stage \\(it is accepted\\); its stages: 01_.*09_`;
    expect(error.message).toMatch(new RegExp(said));
    // A stage the run has passed without it, while it still moves: it will never come either.
    const passed = await at(['logs', id, '--stage', '01_nope']);
    expect(passed.exitCode).toBe(2);
    expect(passed.stderr).toContain('--stage 01_nope');
  });

  it('--follow prints lines as they come and returns when the run ends', async () => {
    const id = (await http(manual.url, 'POST', '/v1/runs', idea('Followed'))).body.id;
    const following = at(['logs', id, '--follow']);
    let seen = '';
    following.stdout!.on('data', (c: Buffer) => (seen += c.toString()));
    await http(manual.url, 'POST', '/_sandbox/clock/advance', { run: id, to: 'end' });
    const r = await following;
    expect(r.exitCode, r.stderr).toBe(0);
    expect(seen).toContain('09_review');
  });
});

describe('scripts that change the config at once', () => {
  it('ten `orc profile add` processes at once keep all ten profiles, and leave no lock behind', async () => {
    const configDir = freshConfigDir();
    const names = Array.from({ length: 10 }, (_, i) => `ci${i}`);
    const runs = await Promise.all(
      names.map((name) =>
        orc(['profile', 'add', name, '--base-url', `https://${name}.example.com`, '--with-key'], {
          configDir,
          input: 'sk_test_ConcurrentAdd1234\n',
          env: { ORC_NO_KEYCHAIN: '1' },
        }),
      ),
    );
    for (const r of runs) expect(r.exitCode, r.stderr).toBe(0);
    const stored = JSON.parse(readFileSync(join(configDir, 'config.json'), 'utf8'));
    expect(Object.keys(stored.profiles).sort()).toEqual(names);
    expect(readdirSync(configDir).filter((f) => f.endsWith('.lock'))).toEqual([]);
  });
});
