// Issue 37's pieces through the built orc (and orc logs' new flags), as a script uses them, against a real sandbox on a manual clock:
// a decision that carries a spec change (and one refused, deciding nothing), the difference of two specs as a
// merge patch, and a second try from a run's spec.
import { describe, expect, it } from 'vitest';
import { http, idea, manualSandbox } from '../helpers/steer.js';
import { orc } from '../helpers/cli.js';

const manual = manualSandbox();
const at = (args: string[]) => orc(args, { env: { ORC_BASE_URL: manual.url } });

async function atIdeaGate(pitch: string): Promise<string> {
  const id = (await http(manual.url, 'POST', '/v1/runs', idea(pitch))).body.id;
  await http(manual.url, 'POST', '/_sandbox/clock/advance', { run: id, to: 'gate:idea' });
  return id;
}
const ideaGate = async (id: string) => (await http(manual.url, 'GET', `/v1/runs/${id}/gates`)).body.data[0];

describe('orc gate approve --set, orc spec diff, orc run retry', () => {
  it('a decision changes the spec first; the diff of two runs is that change; a retry starts from it', async () => {
    const [a, b] = [await atIdeaGate('Twice told'), await atIdeaGate('Twice told')];
    // One pitch, one spec: the two start the same.
    expect(JSON.parse((await at(['spec', 'diff', a, b, '--json'])).stdout)).toEqual({});

    const approved = await at(['gate', 'approve', a, 'idea', '--set', 'tagline=Run every day', '--json']);
    expect(approved.exitCode, approved.stderr).toBe(0);
    expect(JSON.parse(approved.stdout)).toMatchObject({ gate: { state: 'approved' }, spec_changed: ['tagline'] });
    expect((await ideaGate(a)).notes).toBe('set tagline');

    // What b lacks of a is the change just made, and only that.
    const diff = await at(['spec', 'diff', b, a, '--json']);
    expect(diff.exitCode, diff.stderr).toBe(0);
    expect(JSON.parse(diff.stdout)).toEqual({ tagline: 'Run every day' });

    const retried = await at(['run', 'retry', a, '--set', 'keywords=["running"]', '--json']);
    expect(retried.exitCode, retried.stderr).toBe(0);
    const run = JSON.parse(retried.stdout);
    expect(run).toMatchObject({ mode: 'ship', retry_of: a });
    const spec = (await http(manual.url, 'GET', `/v1/runs/${run.id}/spec`)).body;
    expect(spec).toMatchObject({ tagline: 'Run every day', keywords: ['running'] });
  });

  it('a change the spec refuses decides nothing: exit 2 naming the field, the gate still pending', async () => {
    const id = await atIdeaGate('Refused change');
    const r = await at(['gate', 'approve', id, 'idea', '--set', 'taglin=Typo', '--json']);
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
    expect(JSON.parse(r.stderr).error.message).toContain('tagline');
    expect((await ideaGate(id)).state).toBe('pending');
  });
});

describe('orc logs --grep --since --tail', () => {
  it('chooses lines as a script asks (NDJSON), and refuses a duration that is not one (exit 2, field named)', async () => {
    const id = (await http(manual.url, 'POST', '/v1/runs', idea('Searched'))).body.id;
    await http(manual.url, 'POST', '/_sandbox/clock/advance', { run: id, to: 'end' });
    const all = (await at(['logs', id, '--json'])).stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const r = await at(['logs', id, '--grep', 'complete', '--since', '30d', '--tail', '2', '--json']);
    expect(r.exitCode, r.stderr).toBe(0);
    const chosen = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(chosen).toEqual(all.filter((l) => /complete/.test(l.message)).slice(-2));
    expect(chosen).toHaveLength(2);
    const bad = await at(['logs', id, '--since', 'soon', '--json']);
    expect(bad.exitCode).toBe(2);
    expect(bad.stdout).toBe('');
    expect(JSON.parse(bad.stderr).error).toMatchObject({ field: '--since', exit_code: 2 });
  });
});
