// App Spec merge patches and locking, the scorecard, artifacts and their signed, expiring, Range-capable URLs.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ArtifactManifest, Scorecard } from '../../src/contract/schemas.js';
import { SANDBOX_DEFAULTS } from '../../src/sandbox/server.js';
import { FakeClock } from '../helpers/clock.js';
import { driveToEnd, startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
let done: any; // an accepted run, shared by the artifact tests
// The sandbox's clock: waits under 9 s (the pipeline's ticks) pass at once; a URL's lifetime is moved past.
const clock = new FakeClock({ autoMs: 9_000 });
beforeAll(async () => {
  // The ipa at its real size (the test sandboxes' is small): 'a zip of realistic size' below proves it works.
  sb = await startTestSandbox({ signedUrlTtl: 2, clock, ipaMib: SANDBOX_DEFAULTS.ipaMib });
  done = await driveToEnd(sb, (await sb.createRun('A trail running log for ultra runners')).id);
});
afterAll(() => sb.close());

const patch = (id: string, body: unknown, type = 'application/merge-patch+json') =>
  sb.call('PATCH', `/v1/runs/${id}/spec`, body, { 'content-type': type });
const raw = async (url: string, headers: Record<string, string> = {}) => {
  const res = await fetch(url, { headers });
  return { res, bytes: Buffer.from(await res.arrayBuffer()) };
};

describe('App Spec', () => {
  it('is generated from the pitch and merged with RFC 7396 patches', async () => {
    const run = await sb.createRun('A budgeting app for students');
    await sb.waitFor(run.id, (r) => r.gate_pending === 'idea');
    const spec = (await sb.call('GET', `/v1/runs/${run.id}/spec`)).body;
    expect(spec).toMatchObject({
      name: 'Budgeting Students',
      audience: 'runners',
      monetization: 'freemium',
      platforms: ['ios', 'android'],
    });
    const res = await patch(run.id, {
      tagline: 'Money, sorted',
      platforms: ['ios'],
      features: null,
      extra: { keep: true },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      name: 'Budgeting Students',
      tagline: 'Money, sorted',
      platforms: ['ios'],
      extra: { keep: true },
    });
    expect(res.body).not.toHaveProperty('features');
    expect((await sb.call('GET', `/v1/runs/${run.id}/spec`)).body).toEqual(res.body);
    const json = await patch(run.id, { category: 'Finance' }, 'application/json');
    expect(json.status).toBe(200);
    const text = await patch(run.id, { category: 'Finance' }, 'text/plain');
    expect(text.status).toBe(415);
  });

  it('refuses a patch that leaves an invalid spec, naming the dotted path', async () => {
    const run = await sb.createRun('A stargazing guide');
    const bad = await patch(run.id, { brand: { palette: ['#123456', 'blue'] } });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'invalid_value', field: 'brand.palette.1' });
    const noName = await patch(run.id, { name: null });
    expect(noName.body.error).toMatchObject({ code: 'missing_field', field: 'name' });
    const untitled = await patch(run.id, { screens: [{ id: 'home' }] });
    expect(untitled.body.error).toMatchObject({ code: 'missing_field', field: 'screens.0.title' });
    const keywords = await patch(run.id, { keywords: 'run, train' });
    expect(keywords.body.error).toMatchObject({ code: 'invalid_value', field: 'keywords' });
    const notObject = await patch(run.id, [1, 2]);
    expect(notObject.status).toBe(400);
    const after = (await sb.call('GET', `/v1/runs/${run.id}/spec`)).body;
    expect(after.name).toBe('Stargazing Guide');
  });

  it('is locked once the final gate is approved, and on a canceled run', async () => {
    const locked = await patch(done.id, { tagline: 'too late' });
    expect(locked.status).toBe(409);
    expect(locked.body.error).toMatchObject({ type: 'conflict_error', code: 'spec_locked' });
    const run = await sb.createRun('A parking timer');
    await sb.call('POST', `/v1/runs/${run.id}/cancel`);
    expect((await patch(run.id, { tagline: 'x' })).body.error.code).toBe('spec_locked');
  });
});

describe('scorecard', () => {
  it('is 404 scorecard_not_ready before scoring', async () => {
    const run = await sb.createRun('A dog walking rota');
    const res = await sb.call('GET', `/v1/runs/${run.id}/scorecard`);
    expect(res.status).toBe(404);
    expect(res.body.error).toMatchObject({ type: 'not_found_error', code: 'scorecard_not_ready' });
  });

  it('is deterministic for the same pitch, within its ranges, and fails with #lowscore', async () => {
    const a = Scorecard.parse((await sb.call('GET', `/v1/runs/${done.id}/scorecard`)).body);
    const again = await driveToEnd(sb, (await sb.createRun('A trail running log for ultra runners')).id);
    const b = (await sb.call('GET', `/v1/runs/${again.id}/scorecard`)).body;
    expect(b).toEqual(a);
    expect(a.score.total).toBe(100);
    for (const v of [a.score.beauty, a.score.harmony])
      expect(v).toBeGreaterThanOrEqual(0), expect(v).toBeLessThanOrEqual(100);
    expect(a.passed).toBe(true);
    const low = await driveToEnd(sb, (await sb.createRun('A flashlight #lowscore')).id);
    const card = Scorecard.parse((await sb.call('GET', `/v1/runs/${low.id}/scorecard`)).body);
    expect(card.passed).toBe(false);
    expect(card.score.score).toBeLessThan(70);
    expect(card.preflight.checks.some((c) => c.status === 'fail')).toBe(true);
  });

  it("is the spec's: the same spec scores the same under another seed, and an edit to it changes the score", async () => {
    const other = await startTestSandbox({ seed: 42 });
    try {
      const spec = (await sb.call('GET', `/v1/runs/${done.id}/spec`)).body;
      const again = await other.call('POST', '/v1/runs', { mode: 'ship', source: spec });
      expect(again.status, again.text).toBe(201);
      await driveToEnd(other, again.body.id);
      const mine = (await sb.call('GET', `/v1/runs/${done.id}/scorecard`)).body;
      expect((await other.call('GET', `/v1/runs/${again.body.id}/scorecard`)).body).toEqual(mine);
      const edited = await other.call('POST', '/v1/runs', {
        mode: 'ship',
        source: { ...spec, brand: { ...spec.brand, palette: ['#8FA3B8', '#DDE3EA'] } },
      });
      await driveToEnd(other, edited.body.id);
      const card = (await other.call('GET', `/v1/runs/${edited.body.id}/scorecard`)).body;
      expect(card.score.beauty).toBeLessThan(mine.score.beauty);
      expect(card.preflight.checks.find((c: { id: string }) => c.id === 'contrast').status).toBe('fail');
    } finally {
      await other.close();
    }
  });
});

describe('the gate loop', () => {
  /** The merge patch that sets a check's suggestion at its dotted field. */
  const patchOf = (c: { field: string; suggestion: unknown }) =>
    c.field
      .split('.')
      .reverse()
      .reduce<unknown>((value, key) => ({ [key]: value }), c.suggestion);
  const atFinal = (id: string) => sb.waitFor(id, (r) => r.gate_pending === 'final' || r.status !== 'running');

  it('a rejected final with a fixed palette comes back with new screenshots, new scores and a new pre-flight', async () => {
    const run = await sb.createRun('A plant watering diary #lowscore');
    for (const gate of ['idea', 'brand']) {
      await sb.waitFor(run.id, (r) => r.gate_pending === gate);
      await sb.call('POST', `/v1/runs/${run.id}/gates/${gate}:approve`);
    }
    await atFinal(run.id);
    const before = (await sb.call('GET', `/v1/runs/${run.id}/scorecard`)).body;
    await sb.artifactsReady(run.id);
    const shotsBefore = (await sb.call('GET', `/v1/runs/${run.id}/artifacts/screenshots`)).body.files;
    const failing = before.preflight.checks.filter((c: { status: string }) => c.status === 'fail');
    expect(failing.map((c: { id: string }) => c.id)).toEqual(['name', 'category', 'contrast']);
    for (const c of failing) {
      expect(c.hint).toContain(c.field.split('.')[0]);
      const r = await patch(run.id, patchOf(c));
      expect(r.status, r.text).toBe(200);
    }
    const rejected = await sb.call('POST', `/v1/runs/${run.id}/gates/final:reject`, { notes: 'fixed from the hints' });
    expect(rejected.status).toBe(200);
    await atFinal(run.id);
    const after = (await sb.call('GET', `/v1/runs/${run.id}/scorecard`)).body;
    expect(after.preflight.passed).toBe(true);
    expect(after.passed).toBe(true);
    expect(after.score.score).toBeGreaterThan(before.score.score);
    await sb.artifactsReady(run.id);
    const shotsAfter = (await sb.call('GET', `/v1/runs/${run.id}/artifacts/screenshots`)).body.files;
    expect(shotsAfter.map((f: { sha256: string }) => f.sha256)).not.toEqual(
      shotsBefore.map((f: { sha256: string }) => f.sha256),
    );
    const end = await driveToEnd(sb, run.id);
    expect(end.status).toBe('accepted');
  });
});

describe('artifacts', () => {
  it('lists six kinds, pending until their stage is done', async () => {
    const run = await sb.createRun('A sourdough starter tracker');
    const m = ArtifactManifest.parse((await sb.call('GET', `/v1/runs/${run.id}/artifacts`)).body);
    expect(m.data.map((a) => a.kind).sort()).toEqual([
      'ipa',
      'metadata',
      'preflight',
      'scorecard',
      'screenshots',
      'spec',
    ]);
    expect(m.data.every((a) => a.status === 'pending' && a.size === null && a.sha256 === null)).toBe(true);
    const notReady = await sb.call('GET', `/v1/runs/${run.id}/artifacts/ipa`);
    expect(notReady.status).toBe(409);
    expect(notReady.body.error.code).toBe('artifact_not_ready');
    const unknown = await sb.call('GET', `/v1/runs/${run.id}/artifacts/apk`);
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatchObject({ code: 'unknown_kind', field: 'kind' });
  });

  it('serves the JSON kinds inline, matching the manifest', async () => {
    const m = (await sb.call('GET', `/v1/runs/${done.id}/artifacts`)).body.data;
    for (const kind of ['spec', 'metadata', 'scorecard', 'preflight']) {
      const res = await sb.call('GET', `/v1/runs/${done.id}/artifacts/${kind}`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ kind, content_type: 'application/json' });
      const entry = m.find((e: any) => e.kind === kind);
      expect(entry.status).toBe('ready');
      expect(entry.sha256).toBe(createHash('sha256').update(JSON.stringify(res.body.content)).digest('hex'));
    }
    expect((await sb.call('GET', `/v1/runs/${done.id}/artifacts/scorecard`)).body.content).toEqual(
      (await sb.call('GET', `/v1/runs/${done.id}/scorecard`)).body,
    );
  });

  it('serves screenshots as real PNGs and the ipa as a zip of realistic size, checksums matching', async () => {
    const shots = (await sb.call('GET', `/v1/runs/${done.id}/artifacts/screenshots`)).body;
    expect(shots.files.length).toBeGreaterThanOrEqual(6);
    // every screen of the spec at 6.9" and at 6.5", in the spec's order
    const screens = (await sb.call('GET', `/v1/runs/${done.id}/spec`)).body.screens;
    expect(shots.files.map((f: any) => f.name)).toEqual(
      screens.flatMap((s: any, i: number) =>
        [6.9, 6.5].map((d) => `${String(i + 1).padStart(2, '0')}_${s.id}_${d}in.png`),
      ),
    );
    for (const f of shots.files) {
      expect(f.url.startsWith(`${sb.url}/files/`)).toBe(true);
      const { res, bytes } = await raw(f.url); // no Authorization: signed URLs need none
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('image/png');
      expect(bytes.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
      expect(bytes.subarray(12, 16).toString()).toBe('IHDR');
      const size = f.name.endsWith('_6.9in.png') ? [1320, 2868] : [1242, 2688];
      expect([bytes.readUInt32BE(16), bytes.readUInt32BE(20)]).toEqual(size);
      expect(bytes.length).toBe(f.size);
      expect(createHash('sha256').update(bytes).digest('hex')).toBe(f.sha256);
    }
    const ipa = (await sb.call('GET', `/v1/runs/${done.id}/artifacts/ipa`)).body.files[0];
    expect(ipa.name).toMatch(/\.ipa$/);
    expect(ipa.size).toBeGreaterThan(10 * 1024 * 1024);
    const { bytes } = await raw(ipa.url);
    expect(bytes.subarray(0, 4)).toEqual(Buffer.from('PK\x03\x04', 'latin1'));
    expect(bytes.includes(Buffer.from('Payload/'))).toBe(true);
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(ipa.sha256);
    const entry = (await sb.call('GET', `/v1/runs/${done.id}/artifacts`)).body.data.find((e: any) => e.kind === 'ipa');
    expect(entry).toMatchObject({ status: 'ready', size: ipa.size, sha256: ipa.sha256, files: 1 });
  });

  it('streams a file to a slow client without piling up listeners on its answer', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    try {
      await sb.artifactsReady(done.id);
      const answer = await sb.call('GET', `/v1/runs/${done.id}/artifacts/ipa`);
      const ipa = answer.body.files[0];
      const { request } = await import('node:http');
      // A client that reads a little at a time: the server waits for 'drain' hundreds of times.
      const size = await new Promise<number>((resolve, reject) => {
        request(ipa.url, (res) => {
          let got = 0;
          res.on('data', (c: Buffer) => {
            got += c.length;
            res.pause();
            setImmediate(() => res.resume());
          });
          res.on('end', () => resolve(got));
          res.on('error', reject);
        })
          .on('error', reject)
          .end();
      });
      expect(size).toBe(ipa.size);
      await new Promise((r) => setImmediate(r));
      expect(warnings).not.toContain('MaxListenersExceededWarning');
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('honours Range, and refuses an unsatisfiable one with 416', async () => {
    const ipa = (await sb.call('GET', `/v1/runs/${done.id}/artifacts/ipa`)).body.files[0];
    const { bytes: whole } = await raw(ipa.url);
    const part = await raw(ipa.url, { range: 'bytes=100-1123' });
    expect(part.res.status).toBe(206);
    expect(part.res.headers.get('content-range')).toBe(`bytes 100-1123/${ipa.size}`);
    expect(part.res.headers.get('x-request-id')).toMatch(/^req_/);
    expect(part.bytes).toEqual(whole.subarray(100, 1124));
    const tail = await raw(ipa.url, { range: 'bytes=-16' });
    expect(tail.bytes).toEqual(whole.subarray(whole.length - 16));
    const open = await raw(ipa.url, { range: `bytes=${ipa.size - 10}-` });
    expect(open.bytes.length).toBe(10);
    const bad = await raw(ipa.url, { range: `bytes=${ipa.size}-` });
    expect(bad.res.status).toBe(416);
    expect(bad.res.headers.get('content-range')).toBe(`bytes */${ipa.size}`);
    expect(bad.res.headers.get('x-request-id')).toMatch(/^req_/);
  });

  it('honours If-Range (a stale validator gets the whole file) and answers If-None-Match with 304', async () => {
    const ipa = (await sb.call('GET', `/v1/runs/${done.id}/artifacts/ipa`)).body.files[0];
    const { res: first, bytes: whole } = await raw(ipa.url);
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[0-9a-f]+"$/);
    // The validator is this file's: the piece asked for.
    const fresh = await raw(ipa.url, { range: 'bytes=100-199', 'if-range': etag });
    expect(fresh.res.status).toBe(206);
    expect(fresh.bytes).toEqual(whole.subarray(100, 200));
    // A stale one (another file's tag, a weak tag, a date): the whole file, never a piece of it.
    for (const stale of ['"0123abcd"', `W/${etag}`, 'Wed, 21 Oct 2015 07:28:00 GMT']) {
      const full = await raw(ipa.url, { range: 'bytes=100-199', 'if-range': stale });
      expect(full.res.status, stale).toBe(200);
      expect(full.res.headers.get('content-range')).toBeNull();
      expect(full.bytes.length).toBe(ipa.size);
    }
    // If-None-Match: the current tag (in a list, or weak, or *) is 304 with no body; another tag, the file.
    for (const same of [etag, `"0123abcd", ${etag}`, `W/${etag}`, '*']) {
      const cached = await raw(ipa.url, { 'if-none-match': same });
      expect(cached.res.status, same).toBe(304);
      expect(cached.res.headers.get('etag')).toBe(etag);
      expect(cached.bytes.length).toBe(0);
    }
    expect((await raw(ipa.url, { 'if-none-match': '"0123abcd"' })).res.status).toBe(200);
  });

  it('refuses a tampered URL and, after its lifetime, an expired one', async () => {
    const f = (await sb.call('GET', `/v1/runs/${done.id}/artifacts/screenshots`)).body.files[0];
    const tampered = await raw(
      f.url.replace(/signature=([0-9a-f])/, (_: string, c: string) => `signature=${c === '0' ? '1' : '0'}`),
    );
    expect(tampered.res.status).toBe(403);
    expect(JSON.parse(tampered.bytes.toString()).error).toMatchObject({
      type: 'permission_error',
      code: 'signed_url_invalid',
    });
    const otherFile = await raw(
      f.url.replace(/\/files\/([^/]+)\/screenshots\/[^?]+/, '/files/$1/screenshots/99_evil.png'),
    );
    expect(otherFile.res.status).toBe(403);
    // It lives at least its full lifetime (2 s here), rounded up to a whole second.
    const left = Date.parse(f.expires_at) - clock.now();
    expect(left).toBeGreaterThan(1800);
    expect(left).toBeLessThanOrEqual(3000);
    clock.advance(left - 1);
    const stillGood = await raw(f.url);
    expect(stillGood.res.status).toBe(200);
    clock.advance(1001);
    const expired = await raw(f.url);
    expect(expired.res.status).toBe(403);
    expect(JSON.parse(expired.bytes.toString()).error.code).toBe('signed_url_expired');
  });
});

describe('screenshots drawn from the spec', () => {
  const shotsOf = async (s: TestSandbox, id: string) => {
    const files = (await s.call('GET', `/v1/runs/${id}/artifacts/screenshots`)).body.files;
    for (const f of files) expect(sha256(await raw(f.url)), f.name).toBe(f.sha256);
    return files.map((f: any) => [f.name, f.sha256]);
  };
  const sha256 = ({ bytes }: { bytes: Buffer }) => createHash('sha256').update(bytes).digest('hex');

  it('keep the bytes they were described with when the spec is edited after design', async () => {
    const run = await sb.createRun('A tide table for surfers');
    for (const gate of ['idea', 'brand']) {
      await sb.waitFor(run.id, (r) => r.gate_pending === gate);
      expect((await sb.call('POST', `/v1/runs/${run.id}/gates/${gate}:approve`)).status).toBe(200);
    }
    await sb.waitFor(run.id, (r) => r.gate_pending === 'final');
    await sb.artifactsReady(run.id);
    const before = await shotsOf(sb, run.id);
    const spec = (await sb.call('GET', `/v1/runs/${run.id}/spec`)).body;
    const edited = await patch(run.id, {
      name: 'Renamed',
      features: ['Something else'],
      brand: { palette: ['#000000', '#FFFFFF'] },
      screens: spec.screens.map((s: any) => ({ ...s, title: `${s.title} edited` })),
    });
    expect(edited.status, edited.text).toBe(200);
    expect(await shotsOf(sb, run.id)).toEqual(before);
  });

  it('of a record from before (screens kept as ids, described by the old drawing) are described again and served', async () => {
    const snap = sb.store.snapshot();
    const rec = structuredClone(snap.runs.find((r) => r.run.id === done.id)!);
    const kept = rec.artifactInputs.screenshots as any;
    rec.artifactInputs.screenshots = { palette: kept.palette, screens: kept.screens.map((s: any) => s.id) };
    rec.artifactMeta!.screenshots = {
      at: rec.artifactMeta!.screenshots!.at,
      files: [{ name: '01_old.png', content_type: 'image/png', size: 1, sha256: '0'.repeat(64) }],
    };
    const old = await startTestSandbox({
      importSnapshot: { runs: [rec], events: { [done.id]: snap.events[done.id]! }, webhooks: [], deliveries: [] },
    });
    try {
      await old.artifactsReady(done.id);
      const files = await shotsOf(old, done.id);
      expect(files.map(([name]: string[]) => name)).toEqual(
        (await shotsOf(sb, done.id)).map(([name]: string[]) => name),
      );
    } finally {
      await old.close();
    }
  });
});

describe('submission needs the build', () => {
  it('a run is accepted only once its ipa and screenshots are ready, however large the ipa and short the stages', async () => {
    const sb = await startTestSandbox({ stageMs: 5, ipaMib: 96 });
    try {
      const run = await sb.createRun('A big build');
      const ended = await driveToEnd(sb, run.id);
      expect(ended.status).toBe('accepted');
      // At the moment the run is accepted, the build is there to pull.
      const ipa = await sb.call('GET', `/v1/runs/${run.id}/artifacts/ipa`);
      expect(ipa.status, ipa.text).toBe(200);
      expect(ipa.body.files[0].size).toBeGreaterThan(96 * 1024 * 1024);
      expect((await sb.call('GET', `/v1/runs/${run.id}/artifacts/screenshots`)).status).toBe(200);
    } finally {
      await sb.close();
    }
  }, 60_000);
});
