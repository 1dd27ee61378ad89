// `orc scorecard` and `orc artifacts list|pull` in process, against a sandbox on port 0 behind a fault proxy
// (dropped connections, expired URLs), and a hand-written service for what the sandbox never sends
// (hostile file names, a file that does not match its digest).
import { createHash } from 'node:crypto';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACT_KINDS } from '../../src/contract/events.js';
import { useProxiedSandbox } from '../helpers/proxied.js';
import { FakeClock } from '../helpers/clock.js';
import { runOrc } from '../helpers/run.js';
import { driveToEnd, quickClock } from '../helpers/sandbox.js';
import { handServer, json, type HandServer } from '../helpers/server.js';

const env = useProxiedSandbox({ stageMs: 30, ipaMib: 3, clock: quickClock() });
const orc = (args: string[], o: { env?: Record<string, string | undefined>; tty?: boolean; base?: string } = {}) =>
  runOrc(args, {
    env: { ORC_BASE_URL: o.base ?? env.proxy.url, ...o.env },
    ...(o.tty ? { tty: { stdout: true, stderr: true } } : {}),
  });

const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');
const tempDir = () => mkdtempSync(join(tmpdir(), 'orc-pull-'));
const fileRequests = () => env.proxy.seen.filter((r) => r.url.startsWith('/files/'));
/** Every file under a folder, relative, sorted. */
function tree(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => join(d.parentPath, d.name).slice(dir.length + 1))
    .sort();
}

let done: string; // an accepted run: every artifact ready
let low: string; // an accepted run whose scorecard did not pass
let manifest: any[];
beforeAll(async () => {
  done = (await env.sb.createRun('A habit tracker for runners')).id;
  low = (await env.sb.createRun('A diary #lowscore')).id;
  await Promise.all([driveToEnd(env.sb, done), driveToEnd(env.sb, low)]);
  // The ipa's digest is computed as its stage completes, a moment after: wait until every kind is ready.
  manifest = await env.sb.artifactsReady(done);
}, 30_000);

describe('orc scorecard', () => {
  it('draws the bars and the pre-flight table, failures first; piped, no escape codes; --json, the document', async () => {
    const card = (await env.sb.call('GET', `/v1/runs/${low}/scorecard`)).body;
    const r = await orc(['scorecard', low]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).not.toMatch(/\x1b/);
    expect(r.stdout).toMatch(new RegExp(`beauty\\s+[█░]{20} ${card.score.beauty}`));
    expect(r.stdout).toMatch(new RegExp(`harmony\\s+[█░]{20} ${card.score.harmony}`));
    expect(r.stdout).toContain(`${card.score.score}/${card.score.total}  did not pass`);
    expect(r.stdout).toMatch(/^Pre-flight failed$/m);
    const rows = r.stdout.split('\n').filter((l) => /^[✓!✗] (pass|warn|fail)/.test(l));
    expect(rows).toHaveLength(card.preflight.checks.length);
    const failing = card.preflight.checks.filter((c: any) => c.status === 'fail').length;
    expect(failing).toBeGreaterThan(0);
    expect(rows.slice(0, failing).every((l) => l.startsWith('✗ fail'))).toBe(true);
    expect(rows.slice(failing).some((l) => l.startsWith('✗'))).toBe(false);

    const colour = await orc(['scorecard', done], { tty: true });
    expect(colour.stdout).toMatch(/\x1b\[/);
    expect(colour.stdout).toContain('passed');
    const doc = await orc(['scorecard', low, '--json']);
    expect(JSON.parse(doc.stdout)).toEqual(card);
  });

  it('not scored yet: exit 3 saying so and naming the current stage', async () => {
    const early = (await env.sb.createRun('Not scored yet')).id;
    const at = await env.sb.waitFor(early, (r) => r.gate_pending === 'idea');
    const r = await orc(['scorecard', early]);
    expect(r.exitCode).toBe(3);
    expect(r.stderr).toContain('has not been scored yet');
    expect(r.stderr).toContain(`stage ${at.stage}`);
    expect(r.stdout).toBe('');
  });
});

describe('orc artifacts list', () => {
  it('piped: a line per kind with full sizes and digests; at a terminal, short ones; --json, the manifest', async () => {
    const piped = await orc(['artifacts', 'list', done]);
    expect(piped.exitCode, piped.stderr).toBe(0);
    const lines = piped.stdout.split('\n').map((l) => l.split('\t'));
    expect(lines.map((l) => l[0])).toEqual([...ARTIFACT_KINDS]);
    const ipa = manifest.find((a) => a.kind === 'ipa');
    expect(lines.find((l) => l[0] === 'ipa')).toEqual(['ipa', 'ready', String(ipa.size), '1', ipa.sha256]);
    // A JSON kind has no files (its content comes inline): a dash, not 0.
    const metadata = manifest.find((a) => a.kind === 'metadata');
    expect(lines.find((l) => l[0] === 'metadata')).toEqual([
      'metadata',
      'ready',
      String(metadata.size),
      '—',
      metadata.sha256,
    ]);
    const tty = await orc(['artifacts', 'list', done], { tty: true });
    expect(tty.stdout).toMatch(/KIND\s+STATUS\s+SIZE\s+FILES\s+SHA256/);
    expect(tty.stdout).toContain(ipa.sha256.slice(0, 12));
    expect(tty.stdout).not.toContain(ipa.sha256);
    expect(tty.stdout).toMatch(/3\.0 MiB/);
    const doc = await orc(['artifacts', 'list', done, '--json']);
    expect(JSON.parse(doc.stdout)).toEqual(manifest);
  });
});

describe('orc artifacts pull', () => {
  it('pulls every kind into ./<run>/, checked by digest, with no key on a signed URL; a second pull downloads nothing', async () => {
    const cwd = tempDir();
    const r = await runInDir(cwd, ['artifacts', 'pull', done]);
    expect(r.exitCode, r.stderr).toBe(0);
    const dir = join(cwd, done);
    const screenshots = (await env.sb.call('GET', `/v1/runs/${done}/artifacts/screenshots`)).body.files;
    const ipa = (await env.sb.call('GET', `/v1/runs/${done}/artifacts/ipa`)).body.files;
    expect(tree(dir)).toEqual(
      [
        ...['metadata', 'preflight', 'scorecard', 'spec'].map((k) => `${k}.json`),
        ...ipa.map((f: any) => `ipa/${f.name}`),
        ...screenshots.map((f: any) => `screenshots/${f.name}`),
      ].sort(),
    );
    for (const f of [
      ...ipa.map((f: any) => ({ ...f, kind: 'ipa' })),
      ...screenshots.map((f: any) => ({ ...f, kind: 'screenshots' })),
    ]) {
      expect(sha256(readFileSync(join(dir, f.kind, f.name)))).toBe(f.sha256);
    }
    for (const kind of ['metadata', 'preflight', 'scorecard', 'spec']) {
      const text = readFileSync(join(dir, `${kind}.json`), 'utf8');
      expect(text).toBe(
        `${JSON.stringify((await env.sb.call('GET', `/v1/runs/${done}/artifacts/${kind}`)).body.content, null, 2)}\n`,
      );
    }
    // Piped: a line per file (state, path, size, sha256).
    const lines = r.stdout.split('\n').map((l) => l.split('\t'));
    expect(lines).toHaveLength(4 + ipa.length + screenshots.length);
    expect(lines).toContainEqual(['downloaded', join(done, 'ipa', ipa[0].name), String(ipa[0].size), ipa[0].sha256]);
    expect(fileRequests().length).toBe(ipa.length + screenshots.length);
    expect(fileRequests().every((req) => req.headers.authorization === undefined)).toBe(true);
    expect(
      env.proxy.seen
        .filter((req) => req.url.startsWith('/v1/'))
        .every((req) => req.headers.authorization?.startsWith('Bearer ')),
    ).toBe(true);

    env.proxy.seen.length = 0;
    const again = await runInDir(cwd, ['artifacts', 'pull', done, '--json']);
    expect(again.exitCode, again.stderr).toBe(0);
    const doc = JSON.parse(again.stdout);
    expect(doc.dir).toBe(dir);
    expect(doc.files).toHaveLength(4 + ipa.length + screenshots.length);
    expect(doc.files.every((f: any) => f.state === 'present')).toBe(true);
    expect(doc.files.find((f: any) => f.kind === 'ipa')).toEqual({
      kind: 'ipa',
      name: ipa[0].name,
      path: join(dir, 'ipa', ipa[0].name),
      size: ipa[0].size,
      sha256: ipa[0].sha256,
      state: 'present',
    });
    expect(doc).toMatchObject({ run: done, pending: [], failed: [] });
    expect(fileRequests()).toHaveLength(0);
  });

  it('the engine alone (no one listening to its progress, as the MCP tool calls it) pulls the same files', async () => {
    const { pullArtifacts } = await import('../../src/artifacts/pull.js');
    const { createApi } = await import('../../src/api/index.js');
    const { systemClock } = await import('../../src/lib/clock.js');
    const { KEY } = await import('../helpers/sandbox.js');
    const api = createApi({ baseUrl: env.sb.url, apiKey: KEY, userAgent: 'test' });
    const out = await pullArtifacts(api, done, {
      kinds: ['screenshots', 'ipa'],
      dir: tempDir(),
      concurrency: 2,
      signal: new AbortController().signal,
      clock: systemClock,
    });
    expect(out.failed).toEqual([]);
    expect(out.files.map((f) => f.state)).toEqual(out.files.map(() => 'downloaded'));
    for (const f of out.files) expect(sha256(readFileSync(f.path))).toBe(f.sha256);
  });

  it('named kinds only, into --dir; an unknown kind is exit 2 listing the six, before any request', async () => {
    const dir = tempDir();
    const r = await orc(['artifacts', 'pull', done, 'metadata', 'ipa', '--dir', dir, '--json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(tree(dir)).toEqual(['ipa/HabitTracker.ipa', 'metadata.json']);
    env.proxy.seen.length = 0;
    const bad = await orc(['artifacts', 'pull', done, 'ipa', 'apk', '--dir', dir]);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain('"apk"');
    for (const kind of ARTIFACT_KINDS) expect(bad.stderr).toContain(kind);
    expect(env.proxy.seen).toHaveLength(0);
  });

  it('with no kinds named, pulls what is ready and lists the pending kinds; a named kind not ready is exit 3', async () => {
    const early = (await env.sb.createRun('Half made')).id;
    await env.sb.waitFor(early, (r) => r.gate_pending === 'idea');
    const state = (await env.sb.call('GET', `/v1/runs/${early}/artifacts`)).body.data;
    const ready = state.filter((a: any) => a.status === 'ready').map((a: any) => a.kind);
    const pending = state.filter((a: any) => a.status !== 'ready').map((a: any) => a.kind);
    expect(pending).toContain('ipa');
    const dir = tempDir();
    const r = await orc(['artifacts', 'pull', early, '--dir', dir, '--json']);
    expect(r.exitCode, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.pending).toEqual(pending);
    expect(doc.files.map((f: any) => f.kind)).toEqual(ready);
    expect(r.stderr).toContain(`Not ready yet, not pulled: ${pending.join(', ')}`);
    const named = await orc(['artifacts', 'pull', early, 'ipa', '--dir', join(dir, 'named')]);
    expect(named.exitCode).toBe(3);
    expect(named.stderr).toContain('ipa (pending)');
    expect(existsSync(join(dir, 'named', 'ipa'))).toBe(false);
  });

  it('resumes a connection dropped mid-file with Range, in the same pull', async () => {
    const dir = tempDir();
    const ipa = manifest.find((a) => a.kind === 'ipa');
    let cut = false;
    env.proxy.plan = (req) => {
      if (req.url.startsWith('/files/') && !cut) {
        cut = true;
        return { kind: 'cut-body', afterBytes: 1_000_000 };
      }
      return { kind: 'pass' };
    };
    const r = await orc(['artifacts', 'pull', done, 'ipa', '--dir', dir, '--json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).files[0].state).toBe('resumed');
    expect(sha256(readFileSync(join(dir, 'ipa', 'HabitTracker.ipa')))).toBe(ipa.sha256);
    const [first, second] = fileRequests();
    expect(first!.headers.range).toBeUndefined();
    const from = Number(/^bytes=(\d+)-$/.exec(String(second!.headers.range))?.[1]);
    expect(from).toBeGreaterThan(0);
    expect(from).toBeLessThanOrEqual(1_000_000);
    expect(r.stderr).toContain(`resuming from byte ${from}`);
  });

  it('against a service that cuts every body short and ignores Range, gives up after its attempts (a start from zero is one)', async () => {
    const dir = tempDir();
    env.proxy.plan = (req) =>
      req.url.startsWith('/files/') ? { kind: 'cut-body', afterBytes: 100_000, ignoreRange: true } : { kind: 'pass' };
    const r = await runOrc(['artifacts', 'pull', done, 'ipa', '--dir', dir], {
      env: { ORC_BASE_URL: env.proxy.url },
      clock: new FakeClock({ autoMs: 5_000 }),
    });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain('ipa/HabitTracker.ipa: the download kept failing');
    expect(fileRequests().length).toBeLessThanOrEqual(14);
    expect(existsSync(join(dir, 'ipa', 'HabitTracker.ipa'))).toBe(false);
  }, 30_000);

  it('a later pull resumes from the partial file in .orc-partial/, which is removed once the file is in place', async () => {
    const whole = readFileSync(join(await pulledIpaDir(), 'ipa', 'HabitTracker.ipa'));
    const dir = tempDir();
    mkdirSync(join(dir, '.orc-partial', 'ipa'), { recursive: true });
    writeFileSync(join(dir, '.orc-partial', 'ipa', 'HabitTracker.ipa'), whole.subarray(0, 123_456));
    env.proxy.seen.length = 0;
    const r = await orc(['artifacts', 'pull', done, 'ipa', '--dir', dir, '--json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).files[0].state).toBe('resumed');
    expect(fileRequests().map((req) => req.headers.range)).toEqual(['bytes=123456-']);
    expect(readFileSync(join(dir, 'ipa', 'HabitTracker.ipa')).equals(whole)).toBe(true);
    expect(existsSync(join(dir, '.orc-partial'))).toBe(false);
  });

  it('an expired signed URL is fetched anew and the download goes on', async () => {
    const dir = tempDir();
    let expired = 0;
    env.proxy.plan = (req) => {
      if (req.url.startsWith('/files/') && expired++ === 0) {
        return {
          kind: 'answer',
          status: 403,
          headers: { 'content-type': 'application/json', 'x-request-id': 'req_exp' },
          body: JSON.stringify({
            error: { type: 'authentication_error', code: 'signed_url_expired', message: 'this signed URL has expired' },
          }),
        };
      }
      return { kind: 'pass' };
    };
    const r = await orc(['artifacts', 'pull', done, 'ipa', '--dir', dir]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain('the signed URL expired; continuing with a fresh one');
    expect(env.proxy.seen.filter((req) => req.url.endsWith('/artifacts/ipa'))).toHaveLength(2);
    expect(sha256(readFileSync(join(dir, 'ipa', 'HabitTracker.ipa')))).toBe(
      manifest.find((a) => a.kind === 'ipa').sha256,
    );
  });
});

describe('orc artifacts pull never removes or follows what it did not write', () => {
  it("a folder of the user's where a file would go is left whole: that file is refused (exit 1, named), the rest is pulled", async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'ipa', 'HabitTracker.ipa', 'mywork'), { recursive: true });
    writeFileSync(join(dir, 'ipa', 'HabitTracker.ipa', 'mywork', 'notes.txt'), 'mine');
    const r = await orc(['artifacts', 'pull', done, 'ipa', 'spec', '--dir', dir, '--json']);
    expect(r.exitCode).toBe(1);
    expect(readFileSync(join(dir, 'ipa', 'HabitTracker.ipa', 'mywork', 'notes.txt'), 'utf8')).toBe('mine');
    const doc = JSON.parse(r.stdout);
    expect(doc.files.map((f: any) => f.kind)).toEqual(['spec']);
    expect(doc.failed).toEqual([
      expect.objectContaining({
        kind: 'ipa',
        name: 'HabitTracker.ipa',
        error: expect.stringContaining('a folder of yours stands at'),
      }),
    ]);
    expect(r.stderr).toContain('1 file could not be pulled: ipa/HabitTracker.ipa');
    // Nothing was fetched for a file that could not be placed.
    expect(existsSync(join(dir, '.orc-partial'))).toBe(false);
  });

  it('a link where a JSON kind is written, or where its partial goes, is never written through', async () => {
    const dir = tempDir();
    const victim = join(tempDir(), 'victim.txt');
    writeFileSync(victim, 'precious');
    symlinkSync(victim, join(dir, 'spec.json.part'));
    mkdirSync(join(dir, '.orc-partial'));
    symlinkSync(victim, join(dir, '.orc-partial', 'spec.json'));
    const r = await orc(['artifacts', 'pull', done, 'spec', 'scorecard', '--dir', dir]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(readFileSync(victim, 'utf8')).toBe('precious');
    const spec = (await env.sb.call('GET', `/v1/runs/${done}/spec`)).body;
    expect(JSON.parse(readFileSync(join(dir, 'spec.json'), 'utf8'))).toEqual(spec.spec ?? spec);
    expect(lstatSync(join(dir, 'spec.json')).isFile()).toBe(true);
    // A link standing at the file itself is the user's: refused, left pointing where it pointed.
    const dir2 = tempDir();
    symlinkSync(victim, join(dir2, 'scorecard.json'));
    const again = await orc(['artifacts', 'pull', done, 'scorecard', '--dir', dir2]);
    expect(again.exitCode).toBe(1);
    expect(again.stderr).toContain('a link of yours stands at');
    expect(readlinkSync(join(dir2, 'scorecard.json'))).toBe(victim);
    expect(readFileSync(victim, 'utf8')).toBe('precious');
  });

  it('a --dir that cannot be written is one line naming the folder and the fix, exit 4, and never a hang', async () => {
    const file = join(tempDir(), 'a-file');
    writeFileSync(file, 'x');
    const cases: Array<[string, RegExp]> = [
      [join(file, 'sub'), /cannot write to .*a-file\/sub: a part of the path is a file, not a folder \(ENOTDIR\)/],
      [file, /cannot write to .*a-file: a file stands where a folder should be \(EEXIST\)/],
      ['/proc/x', /cannot write to \/proc\/x: it cannot be created there \(ENOENT\)/],
      ['/sys/x', /cannot write to \/sys\/x: not permitted \(EPERM\)/],
    ];
    for (const [dir, message] of cases) {
      const r = await orc(['artifacts', 'pull', done, 'spec', '--dir', dir]);
      expect(r.exitCode, dir).toBe(4);
      expect(r.stderr).toMatch(message);
      expect(r.stderr).toContain('--dir');
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
    // A partial folder that is not orc's (a link) stops the pull before anything is written.
    const dir = tempDir();
    symlinkSync(tempDir(), join(dir, '.orc-partial'));
    const r = await orc(['artifacts', 'pull', done, 'spec', '--dir', dir]);
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toContain('.orc-partial is not a folder of orc');
    expect(existsSync(join(dir, 'spec.json'))).toBe(false);
  });
});

describe('orc artifacts pull, against a service that misbehaves', () => {
  const KEY = 'sk_test_handwritten_0123456789';
  const good = Buffer.from('a good file\n');
  const files: Record<string, Buffer> = {};
  let fake: HandServer;
  let names: string[] = [];
  let lying = false;
  /** What the file URLs send instead of the declared file, by name. */
  let sent: Record<string, Buffer> = {};
  let sentBytes = 0;
  let inFlight = 0;
  let mostInFlight = 0;
  beforeAll(async () => {
    fake = await handServer((req, res) => {
      const url = new URL(req.url!, 'http://x');
      if (url.pathname === '/v1/runs/run_none/artifacts') {
        return json(res, 200, {
          data: ARTIFACT_KINDS.map((kind) => ({
            kind,
            status: 'pending',
            content_type: 'image/png',
            size: null,
            sha256: null,
            files: 0,
            updated_at: '2026-01-01T00:00:00Z',
          })),
        });
      }
      if (url.pathname === '/v1/runs/run_hand/artifacts') {
        return json(res, 200, {
          data: ARTIFACT_KINDS.map((kind) => ({
            kind,
            status: kind === 'screenshots' ? 'ready' : 'pending',
            content_type: 'image/png',
            size: null,
            sha256: null,
            files: names.length,
            updated_at: '2026-01-01T00:00:00Z',
          })),
        });
      }
      if (url.pathname === '/v1/runs/run_hand/artifacts/screenshots') {
        return json(res, 200, {
          kind: 'screenshots',
          files: names.map((name, i) => {
            files[String(i)] = sent[name] ?? good;
            // What is sent is what is declared, except a body too large to be a fair file (declared as the good one).
            const declared = (sent[name]?.length ?? 0) <= 1 << 20 ? (sent[name] ?? good) : good;
            return {
              name,
              content_type: 'image/png',
              size: declared.length,
              sha256: lying ? sha256('something else') : sha256(declared),
              url: `${fake.url}/files/${i}`,
              expires_at: '2099-01-01T00:00:00Z',
            };
          }),
        });
      }
      if (url.pathname.startsWith('/files/')) {
        inFlight++;
        mostInFlight = Math.max(mostInFlight, inFlight);
        res.on('close', () => inFlight--);
        const body = files[url.pathname.slice(7)]!;
        if (body.length > 1 << 20) {
          // A file far larger than declared, sent as it is made, counting what went out.
          res.writeHead(200, { 'content-type': 'image/png' });
          const chunk = Buffer.alloc(64 << 10, 7);
          const pump = () => {
            while (!res.destroyed && sentBytes < body.length) {
              sentBytes += chunk.length;
              if (!res.write(chunk)) return void res.once('drain', pump);
            }
            res.end();
          };
          return pump();
        }
        res.writeHead(200, { 'content-type': 'image/png', 'content-length': String(body.length) });
        return void setTimeout(() => res.end(body), 40);
      }
      json(res, 404, { error: { type: 'not_found_error', code: 'resource_missing', message: 'no such thing' } });
    });
  });
  afterAll(() => fake.close());
  const pullFrom = (dir: string, extra: string[] = []) =>
    orc(['artifacts', 'pull', 'run_hand', '--dir', dir, ...extra], { base: fake.url, env: { ORC_API_KEY: KEY } });

  it('with nothing ready, creates nothing: no folder is left behind', async () => {
    const dir = join(tempDir(), 'pulled');
    const r = await orc(['artifacts', 'pull', 'run_none', '--dir', dir, '--json'], {
      base: fake.url,
      env: { ORC_API_KEY: KEY },
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ files: [], pending: [...ARTIFACT_KINDS] });
    expect(existsSync(dir)).toBe(false);
  });

  it('never trusts a file name as a path: `..` and empty names refused, separators and controls neutralised, dotted names kept', async () => {
    names = [
      '..',
      '',
      '../escape.png',
      '/etc/passwd',
      'a/b.png',
      'c\\d.png',
      'bell\x07.png',
      '.hidden.png',
      'a..b.png',
    ];
    const root = tempDir();
    const dir = join(root, 'out');
    const r = await pullFrom(dir, ['--json']);
    expect(r.exitCode).toBe(1);
    // (The BEL never reaches the name: text from the service loses its control characters where it enters orc.)
    expect(tree(root)).toEqual([
      'out/screenshots/.._escape.png',
      'out/screenshots/.hidden.png',
      'out/screenshots/_etc_passwd',
      'out/screenshots/a..b.png',
      'out/screenshots/a_b.png',
      'out/screenshots/bell.png',
      'out/screenshots/c_d.png',
    ]);
    const doc = JSON.parse(r.stdout);
    expect(doc.failed.map((f: any) => f.name)).toEqual(['..', '']);
    expect(r.stderr).not.toMatch(/\x07/);
    expect(r.stderr).toContain('2 files could not be pulled');
    // The key went to the API, never to a file URL.
    const seen = fake.seen.map((req) => [req.url!, req.headers.authorization]);
    expect(seen.filter(([u]) => u!.startsWith('/v1/')).every(([, a]) => a === `Bearer ${KEY}`)).toBe(true);
    expect(seen.filter(([u]) => u!.startsWith('/files/')).every(([, a]) => a === undefined)).toBe(true);
  });

  it('downloads --concurrency files at a time (default 4)', async () => {
    names = Array.from({ length: 9 }, (_, i) => `shot-${i}.png`);
    for (const [flags, most] of [
      [[], 4],
      [['--concurrency', '2'], 2],
      [['--concurrency', '1'], 1],
    ] as const) {
      mostInFlight = 0;
      const r = await pullFrom(tempDir(), [...flags]);
      expect(r.exitCode, r.stderr).toBe(0);
      expect(mostInFlight, flags.join(' ')).toBe(most);
    }
    const bad = await pullFrom(tempDir(), ['--concurrency', '0']);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain('--concurrency');
  });

  it('a file whose digest does not match is an error naming it (exit 1), and is not kept', async () => {
    names = ['shot.png'];
    lying = true;
    const dir = tempDir();
    const r = await pullFrom(dir);
    lying = false;
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain('screenshots/shot.png: the sha256 of the download');
    expect(r.stderr).toContain('does not match the manifest');
    expect(tree(dir)).toEqual([]);
  });

  it("files `a` and `a.part` of one kind are both pulled whole: no file of the service is another one's partial", async () => {
    names = ['a.part', 'a'];
    sent = { a: Buffer.from('A'.repeat(5000)), 'a.part': Buffer.from('B'.repeat(3000)) };
    const dir = tempDir();
    const r = await pullFrom(dir, ['--json', '--concurrency', '1']);
    sent = {};
    expect(r.exitCode, r.stderr).toBe(0);
    expect(readFileSync(join(dir, 'screenshots', 'a'), 'utf8')).toBe('A'.repeat(5000));
    expect(readFileSync(join(dir, 'screenshots', 'a.part'), 'utf8')).toBe('B'.repeat(3000));
    expect(tree(dir)).toEqual(['screenshots/a', 'screenshots/a.part']);
  });

  it('a download never grows past its declared size: the file fails early, named, and nothing is kept', async () => {
    names = ['huge.png', 'fine.png'];
    sent = { 'huge.png': Buffer.alloc(64 << 20) };
    sentBytes = 0;
    const dir = tempDir();
    const r = await pullFrom(dir, ['--json', '--concurrency', '1']);
    sent = {};
    expect(r.exitCode).toBe(1);
    const doc = JSON.parse(r.stdout);
    expect(doc.failed).toEqual([
      expect.objectContaining({
        name: 'huge.png',
        error: `screenshots/huge.png: the service sent more than the ${good.length} bytes the manifest declares; the file was not kept`,
      }),
    ]);
    expect(doc.files.map((f: any) => f.name)).toEqual(['fine.png']);
    expect(tree(dir)).toEqual(['screenshots/fine.png']);
    // The connection was dropped at once, not read to its end.
    expect(sentBytes).toBeLessThan(16 << 20);
  });
});

async function runInDir(cwd: string, args: string[]) {
  const before = process.cwd();
  process.chdir(cwd);
  try {
    return await orc(args);
  } finally {
    process.chdir(before);
  }
}

let ipaDir: string | undefined;
async function pulledIpaDir(): Promise<string> {
  if (ipaDir) return ipaDir;
  const dir = tempDir();
  const r = await orc(['artifacts', 'pull', done, 'ipa', '--dir', dir]);
  if (r.exitCode !== 0) throw new Error(r.stderr);
  return (ipaDir = dir);
}
