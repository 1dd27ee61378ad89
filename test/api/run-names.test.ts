// Runs' names for the views: the App Spec's name (else its tagline or description, shortened), read once per
// run and a bounded number at a time; a run whose spec cannot be read is shown by its id alone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApi } from '../../src/api/index.js';
import { RunNames } from '../../src/api/run-names.js';
import { RUN_NAME_MAX, runNameOf } from '../../src/contract/run-name.js';
import { KEY, startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startTestSandbox({ stageMs: 3_600_000 });
});
afterAll(() => sb.close());

describe('runNameOf', () => {
  it('takes the name, else the tagline, else the description, on one line and cut at a word', () => {
    expect(runNameOf({ name: 'Tide Table', tagline: 'Know the sea' })).toBe('Tide Table');
    expect(runNameOf({ name: '  ', tagline: 'Know\nthe   sea' })).toBe('Know the sea');
    const long = runNameOf({ description: 'A tide table for sailors who cross the bay at dawn and dusk' })!;
    expect(long).toBe('A tide table for sailors who…');
    expect([...long].length).toBeLessThanOrEqual(RUN_NAME_MAX);
    expect(runNameOf({ name: 'x'.repeat(40) })).toBe(`${'x'.repeat(RUN_NAME_MAX - 1)}…`);
    for (const nothing of [null, 'Tide', {}, { name: 42 }]) expect(runNameOf(nothing)).toBeNull();
  });
});

describe('RunNames', () => {
  it('names each run from its spec, at most six reads in flight, each run read once', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 14; i++) ids.push((await sb.createRun(`Tide table number ${i}`)).id);
    const api = createApi({ baseUrl: sb.url, apiKey: KEY, userAgent: 'test' });
    const read = api.spec.retrieve.bind(api.spec);
    let inFlight = 0;
    let most = 0;
    let reads = 0;
    api.spec.retrieve = async (id: string) => {
      reads++;
      most = Math.max(most, ++inFlight);
      try {
        return await read(id);
      } finally {
        inFlight--;
      }
    };
    const names = new RunNames(api);
    const specs = await Promise.all(ids.map(async (id) => (await sb.call('GET', `/v1/runs/${id}/spec`)).body));
    const got = await names.of([...ids, ...ids]);
    expect([...got.keys()]).toEqual(ids);
    expect(ids.map((id) => got.get(id))).toEqual(specs.map((s) => s.name));
    expect(most).toBe(6);
    expect(reads).toBe(ids.length);
    expect(names.peek(ids[0]!)).toBe(specs[0].name);
    // After an edit the name is read again.
    await sb.call('PATCH', `/v1/runs/${ids[0]}/spec`, { name: 'Harbour Hours' });
    expect(await names.one(ids[0]!)).toBe(specs[0].name);
    names.forget(ids[0]!);
    expect(names.peek(ids[0]!)).toBeUndefined();
    expect(await names.one(ids[0]!)).toBe('Harbour Hours');
  });

  it('a read that failed is tried again when asked; a read begun before forget() settles nothing', async () => {
    const id = (await sb.createRun('Tide table for retries')).id;
    const api = createApi({ baseUrl: sb.url, apiKey: KEY, userAgent: 'test' });
    const read = api.spec.retrieve.bind(api.spec);
    let fail = true;
    let hold: (() => void) | undefined;
    api.spec.retrieve = async (runId: string) => {
      if (fail) throw new Error('the service was down a moment');
      if (hold) await new Promise<void>((go) => (hold = go));
      return read(runId);
    };
    const names = new RunNames(api);
    expect(await names.one(id)).toBeNull();
    expect(names.peek(id)).toBeNull();
    fail = false;
    const name = (await sb.call('GET', `/v1/runs/${id}/spec`)).body.name;
    expect(await names.one(id)).toBe(name); // not the failure, remembered
    // A read in flight when the name is forgotten (a decision renamed the app) cannot put the old name back.
    names.forget(id);
    hold = () => {};
    const stale = names.one(id);
    names.forget(id);
    await sb.call('PATCH', `/v1/runs/${id}/spec`, { name: 'Harbour Hours' });
    hold();
    await stale;
    expect(names.peek(id)).toBeUndefined();
    hold = undefined;
    expect(await names.one(id)).toBe('Harbour Hours');
  });

  it('a run whose spec cannot be read has no name, and the view goes on', async () => {
    const api = createApi({ baseUrl: sb.url, apiKey: KEY, userAgent: 'test' });
    const names = new RunNames(api);
    expect(await names.one('run_doesnotexist0000000')).toBeNull();
  });
});
