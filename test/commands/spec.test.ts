// `orc spec get|edit` in process, against a sandbox on port 0 (behind a fault proxy for the service's refusals).
// The editor is test/helpers/fake-editor.mjs: it keeps what it was shown and makes the change it is told.
import { existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { runOrc } from '../helpers/run.js';
import { useProxiedSandbox } from '../helpers/proxied.js';
import { driveToEnd, quickClock } from '../helpers/sandbox.js';

const env = useProxiedSandbox({ stageMs: 50, clock: quickClock() });
const FAKE_EDITOR = resolve(import.meta.dirname, '../helpers/fake-editor.mjs');

const orc = (args: string[], o: { input?: string; env?: Record<string, string | undefined>; direct?: boolean } = {}) =>
  runOrc(args, {
    ...(o.input !== undefined ? { input: o.input } : {}),
    env: { ORC_BASE_URL: o.direct ? env.sb.url : env.proxy.url, ...o.env },
  });

/** An editor for one command: its steps, and the folder where it keeps what it was shown. */
function editor(steps: unknown[]): { env: Record<string, string>; seen: (n: number) => string; rounds: () => number } {
  const dir = mkdtempSync(join(tmpdir(), 'orc-fake-editor-'));
  return {
    env: { EDITOR: `node ${FAKE_EDITOR}`, VISUAL: '', FAKE_EDITOR_DIR: dir, FAKE_EDITOR_STEPS: JSON.stringify(steps) },
    seen: (n) => readFileSync(join(dir, `seen-${n}`), 'utf8'),
    rounds: () => readdirSync(dir).length,
  };
}

/** A run waiting at its idea gate, its spec still editable. */
async function ideaRun(pitch = 'A habit tracker for runners'): Promise<string> {
  const run = await env.sb.createRun(pitch);
  await env.sb.waitFor(run.id, (r) => r.gate_pending === 'idea');
  return run.id;
}
const specOf = async (id: string) => (await env.sb.call('GET', `/v1/runs/${id}/spec`)).body;
const patches = () => env.proxy.seen.filter((r) => r.method === 'PATCH');
const keptPath = (stderr: string) => /Your edit is kept in (\S+)/.exec(stderr)?.[1];

describe('orc spec get', () => {
  it('prints YAML by default, JSON with --format json, and exactly the spec with --json', async () => {
    const id = await ideaRun();
    const spec = await specOf(id);
    const yaml = await orc(['spec', 'get', id]);
    expect(yaml.exitCode, yaml.stderr).toBe(0);
    expect(yaml.stdout).toMatch(/^name: /m);
    expect(parseYaml(yaml.stdout)).toEqual(spec);
    const json = await orc(['spec', 'get', id, '--format', 'json']);
    expect(JSON.parse(json.stdout)).toEqual(spec);
    const doc = await orc(['spec', 'get', id, '--json']);
    expect(JSON.parse(doc.stdout)).toEqual(spec);
    expect(doc.stderr).toBe('');
  });

  it('names a bad --format (exit 2) and an unknown run (exit 3)', async () => {
    const bad = await orc(['spec', 'get', 'run_x', '--format', 'toml']);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain('--format');
    expect(bad.stdout).toBe('');
    const missing = await orc(['spec', 'get', 'run_doesnotexist']);
    expect(missing.exitCode).toBe(3);
    expect(missing.stderr).toContain('run_doesnotexist');
  });
});

describe('orc spec edit, in the editor', () => {
  it('opens the spec as YAML with a header and its JSON Schema, and sends only what changed', async () => {
    const id = await ideaRun();
    const before = await specOf(id);
    const ed = editor([{ replace: ['^name: .*$', 'name: Stride'] }]);
    const r = await orc(['spec', 'edit', id], { env: ed.env });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain(`spec of ${id} updated: name`);
    const shown = ed.seen(1);
    expect(shown).toContain(`# The App Spec of run ${id}`);
    expect(shown).toMatch(/^# .*cancel/im);
    const schemaLine = /^# yaml-language-server: \$schema=(file:\/\/\S+app-spec\.schema\.json)$/m.exec(shown);
    expect(schemaLine).not.toBeNull();
    expect(parseYaml(shown)).toEqual(before);
    expect(await specOf(id)).toEqual({ ...before, name: 'Stride' });
    // One PATCH, of the name alone; and the temporary folder is gone.
    expect(patches()).toHaveLength(1);
    expect(existsSync(new URL(schemaLine![1]!))).toBe(false);
  });

  it('--field opens at that field, marked with what the scorecard says to change and a value that passes', async () => {
    const run = await env.sb.createRun('A bird song log #lowscore');
    for (const gate of ['idea', 'brand']) {
      await env.sb.waitFor(run.id, (r) => r.gate_pending === gate);
      await env.sb.call('POST', `/v1/runs/${run.id}/gates/${gate}:approve`);
    }
    await env.sb.waitFor(run.id, (r) => r.gate_pending === 'final');
    const card = (await env.sb.call('GET', `/v1/runs/${run.id}/scorecard`)).body;
    const contrast = card.preflight.checks.find((c: { id: string }) => c.id === 'contrast');
    const before = await specOf(run.id);
    const ed = editor([{ replace: ['^  palette:\\n    - .*$', '  palette:\n    - "#1D2B3A"'] }]);
    const r = await orc(['spec', 'edit', run.id, '--field', 'brand.palette'], { env: ed.env });
    expect(r.exitCode, r.stderr).toBe(0);
    const lines = ed.seen(1).split('\n');
    // Right above the field: what to change there (the failing check's hint first), and the suggested value.
    const at = lines.indexOf('  palette:');
    const marked = lines.indexOf(`  # ↓ brand.palette: ${contrast.hint}`);
    expect(marked).toBeGreaterThan(0);
    expect(lines.slice(marked, at).every((l) => l.startsWith('  # '))).toBe(true);
    expect(lines[at - 1]).toBe(`  # suggested: ${JSON.stringify(contrast.suggestion)}`);
    expect(ed.seen(1)).toContain('# To change: brand.palette (marked ↓ below)');
    expect(parseYaml(ed.seen(1))).toEqual(before);
    const palette = [...before.brand.palette];
    palette[0] = '#1D2B3A';
    expect((await specOf(run.id)).brand.palette).toEqual(palette);
    expect(patches()).toHaveLength(1);

    // A field the scorecard says nothing of opens marked all the same; a slip of the name, or --field with
    // --set, is refused before anything is asked.
    const plain = editor([{}]);
    expect((await orc(['spec', 'edit', run.id, '--field', 'audience'], { env: plain.env })).exitCode).toBe(0);
    expect(plain.seen(1)).toMatch(/^# ↓ audience: change it here\naudience: /m);
    // JSON has no comments where a value stands: the mark is in the header.
    const category = card.preflight.checks.find((c: { id: string }) => c.id === 'category');
    const json = editor([{}]);
    const asJson = await orc(['spec', 'edit', run.id, '--field', 'category', '--format', 'json'], { env: json.env });
    expect(asJson.exitCode, asJson.stderr).toBe(0);
    expect(json.seen(1)).toContain(`// To change: category\n//   ${category.hint}\n//   suggested: "Utilities"\n`);
    const slip = await orc(['spec', 'edit', run.id, '--field', 'brnd.palette'], { env: plain.env });
    expect(slip.exitCode).toBe(2);
    expect(slip.stderr).toContain('did you mean brand?');
    const both = await orc(['spec', 'edit', run.id, '--field', 'name', '--set', 'name=X']);
    expect(both.exitCode).toBe(2);
    expect(both.stderr).toContain('--field');
    expect(patches()).toHaveLength(1);
  });

  it('sends a removed field as null, and opens JSON (with comments and $schema) with --format json', async () => {
    const id = await ideaRun();
    const ed = editor([{ replace: ['^  "tagline": .*\\n', ''] }]);
    const r = await orc(['spec', 'edit', id, '--format', 'json', '--json'], { env: ed.env });
    expect(r.exitCode, r.stderr).toBe(0);
    const shown = ed.seen(1);
    expect(shown).toMatch(/^\/\/ The App Spec of run /m);
    expect(shown).toMatch(/"\$schema": "file:\/\/\S+app-spec\.schema\.json"/);
    expect(r.stderr).toContain('updated: tagline');
    const after = JSON.parse(r.stdout);
    expect(after.tagline).toBeUndefined();
    expect(await specOf(id)).toEqual(after);
  });

  it('without a terminal, an invalid edit exits 2 naming the field, sends nothing, and keeps the edit', async () => {
    const id = await ideaRun();
    const before = await specOf(id);
    const ed = editor([{ replace: ['^platforms:\\n  - ios$', 'platforms:\n  - not-a-platform'] }]);
    const r = await orc(['spec', 'edit', id], { env: ed.env });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('platforms.0');
    expect(r.stderr).toContain('nothing was sent');
    const kept = keptPath(r.stderr);
    expect(kept).toBeDefined();
    expect(readFileSync(kept!, 'utf8')).toContain('not-a-platform');
    expect(patches()).toHaveLength(0);
    expect(await specOf(id)).toEqual(before);
  });

  it('a YAML error is named by line; a value of the wrong type by its path', async () => {
    const id = await ideaRun();
    const broken = await orc(['spec', 'edit', id], {
      env: editor([{ replace: ['^name: (.*)$', 'name: [unclosed'] }]).env,
    });
    expect(broken.exitCode).toBe(2);
    expect(broken.stderr).toMatch(/line \d+/);
    const typed = await orc(['spec', 'edit', id], {
      env: editor([{ replace: ['^features:$', 'features: 12\nold_features:'] }]).env,
    });
    expect(typed.exitCode).toBe(2);
    expect(typed.stderr).toContain('features:');
    expect(patches()).toHaveLength(0);
  });

  it('an unchanged or emptied file sends nothing and exits 0', async () => {
    const id = await ideaRun();
    const same = await orc(['spec', 'edit', id], { env: editor([{}]).env });
    expect(same.exitCode, same.stderr).toBe(0);
    expect(same.stderr).toContain('No changes');
    const emptied = await orc(['spec', 'edit', id], { env: editor([{ write: '' }]).env });
    expect(emptied.exitCode).toBe(0);
    expect(emptied.stderr).toContain('No changes');
    const commentsOnly = await orc(['spec', 'edit', id], { env: editor([{ write: '# nothing here\n\n' }]).env });
    expect(commentsOnly.exitCode).toBe(0);
    expect(patches()).toHaveLength(0);
  });

  it('an editor that fails sends nothing (exit 2); with no editor and no terminal it says how to edit', async () => {
    const id = await ideaRun();
    const crashed = await orc(['spec', 'edit', id], { env: editor([{ fail: true }]).env });
    expect(crashed.exitCode).toBe(2);
    expect(crashed.stderr).toContain('nothing was sent');
    const none = await orc(['spec', 'edit', id], { env: { EDITOR: '', VISUAL: '' } });
    expect(none.exitCode).toBe(2);
    expect(none.stderr).toMatch(/VISUAL or EDITOR/);
    expect(none.stderr).toContain('--set');
    expect(patches()).toHaveLength(0);
  });

  it('a field the service refuses exits 3 naming it, and the edit is kept', async () => {
    const id = await ideaRun();
    env.proxy.plan = (req) =>
      req.method === 'PATCH'
        ? {
            kind: 'answer',
            status: 400,
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({
              error: {
                type: 'invalid_request_error',
                code: 'invalid_value',
                message: 'that name is taken in the store',
                field: 'name',
              },
            }),
          }
        : { kind: 'pass' };
    const r = await orc(['spec', 'edit', id], { env: editor([{ replace: ['^name: .*$', 'name: Taken'] }]).env });
    expect(r.exitCode).toBe(3);
    expect(r.stderr).toContain('refused the spec at name: that name is taken in the store');
    expect(readFileSync(keptPath(r.stderr)!, 'utf8')).toContain('name: Taken');
  });
});

describe('orc spec edit, without an editor', () => {
  it('--set (dotted paths, JSON values) and --unset send the merge patch; --dry-run prints it and sends nothing', async () => {
    const id = await ideaRun();
    const before = await specOf(id);
    const args = [
      'spec',
      'edit',
      id,
      '--set',
      'name=Stride',
      '--set',
      'brand.palette.0=#112233',
      '--set',
      'features[1]=Streaks',
      '--set',
      'platforms=["ios"]',
      '--unset',
      'tagline',
    ];
    const dry = await orc([...args, '--dry-run']);
    expect(dry.exitCode, dry.stderr).toBe(0);
    const palette = ['#112233'];
    const features = [...before.features];
    features[1] = 'Streaks';
    expect(JSON.parse(dry.stdout)).toEqual({
      name: 'Stride',
      brand: { palette },
      features,
      platforms: ['ios'],
      tagline: null,
    });
    expect(patches()).toHaveLength(0);
    const sent = await orc([...args, '--json']);
    expect(sent.exitCode, sent.stderr).toBe(0);
    const { tagline: _gone, ...rest } = before;
    expect(await specOf(id)).toEqual({ ...rest, name: 'Stride', brand: { palette }, features, platforms: ['ios'] });
    expect(JSON.parse(sent.stdout)).toEqual(await specOf(id));
    expect(patches()).toHaveLength(1);
  });

  it('refuses before sending: a value the spec would not accept, a malformed --set, a path that is not there', async () => {
    const id = await ideaRun();
    const cases: Array<[string[], string]> = [
      [['--set', 'brand.palette.0=orange'], 'brand.palette.0'],
      [['--set', 'name'], '--set "name"'],
      [['--set', 'features.99=x'], 'not an index'],
      [['--unset', 'brand.nothing'], '--unset brand.nothing'],
      [['--set', 'monetization=free-ish'], 'monetization'],
      [['--set', 'name=Stride', '--unset', 'name'], 'name'],
    ];
    for (const [flags, named] of cases) {
      const r = await orc(['spec', 'edit', id, ...flags]);
      expect(r.exitCode, flags.join(' ')).toBe(2);
      expect(r.stderr, flags.join(' ')).toContain(named);
    }
    const dryAlone = await orc(['spec', 'edit', id, '--dry-run']);
    expect(dryAlone.exitCode).toBe(2);
    expect(dryAlone.stderr).toContain('--dry-run');
    expect(patches()).toHaveLength(0);
  });

  it('--file takes a merge patch from a file or stdin, and names what is wrong with it', async () => {
    const id = await ideaRun();
    const dir = mkdtempSync(join(tmpdir(), 'orc-patch-'));
    const file = join(dir, 'patch.json');
    writeFileSync(file, JSON.stringify({ name: 'FromFile', brand: { voice: 'Calm' } }));
    const fromFile = await orc(['spec', 'edit', id, '--file', file]);
    expect(fromFile.exitCode, fromFile.stderr).toBe(0);
    expect((await specOf(id)).brand.voice).toBe('Calm');
    const fromStdin = await orc(['spec', 'edit', id, '--file', '-'], { input: '{"name":"FromStdin"}' });
    expect(fromStdin.exitCode, fromStdin.stderr).toBe(0);
    expect((await specOf(id)).name).toBe('FromStdin');
    // YAML as well (a .yaml file, or stdin that does not open with `{`): ~ removes a field, as null does.
    expect(await specOf(id)).toHaveProperty('features');
    const yamlFile = join(dir, 'patch.yaml');
    writeFileSync(yamlFile, 'name: FromYaml\nbrand:\n  voice: Bold\nfeatures: ~\n');
    const fromYaml = await orc(['spec', 'edit', id, '--file', yamlFile]);
    expect(fromYaml.exitCode, fromYaml.stderr).toBe(0);
    expect(await specOf(id)).toMatchObject({ name: 'FromYaml', brand: { voice: 'Bold' } });
    expect(await specOf(id)).not.toHaveProperty('features');
    // A flow mapping is YAML too: in a .yaml file, and on stdin where it does not read as JSON.
    const flow = join(dir, 'flow.yaml');
    writeFileSync(flow, '{tagline: Know the sea}\n');
    expect((await orc(['spec', 'edit', id, '--file', flow])).exitCode).toBe(0);
    expect((await specOf(id)).tagline).toBe('Know the sea');
    expect((await orc(['spec', 'edit', id, '--file', '-'], { input: '{tagline: Know the tide}' })).exitCode).toBe(0);
    expect((await specOf(id)).tagline).toBe('Know the tide');
    const sent = patches().length;

    const bad: Array<[string, string]> = [
      ['{"name": ', 'not valid JSON'],
      ['["a"]', 'must be an object (JSON or YAML)'],
      ['name: A\nname: B\n', 'not valid YAML: Map keys must be unique at line 2'],
      [
        'a: &a [1]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n',
        'not valid YAML',
      ],
      ['__proto__: {x: 1}\n', '__proto__'],
      ['{"__proto__": {"x": 1}}', '__proto__'],
      [`${'{"a":'.repeat(80)}1${'}'.repeat(80)}`, 'deeper than 64'],
    ];
    for (const [text, said] of bad) {
      const r = await orc(['spec', 'edit', id, '--file', '-'], { input: text });
      expect(r.exitCode, text).toBe(2);
      expect(r.stderr, text).toContain('--file -');
      expect(r.stderr, text).toContain(said);
    }
    const missing = await orc(['spec', 'edit', id, '--file', join(dir, 'nope.json')]);
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toContain('no such file');
    expect(patches()).toHaveLength(sent);
  });

  it('a locked spec (the run ended) is exit 3 saying why, and nothing is sent', async () => {
    const canceled = await ideaRun();
    await env.sb.call('POST', `/v1/runs/${canceled}/cancel`);
    const r = await orc(['spec', 'edit', canceled, '--set', 'name=Late']);
    expect(r.exitCode).toBe(3);
    expect(r.stderr).toContain('locked: the run is canceled');
    const ended = (await env.sb.createRun('Accepted run')).id;
    await driveToEnd(env.sb, ended);
    const viaEditor = await orc(['spec', 'edit', ended], {
      env: editor([{ replace: ['^name: .*$', 'name: Late'] }]).env,
    });
    expect(viaEditor.exitCode).toBe(3);
    expect(viaEditor.stderr).toContain('locked: the run is accepted');
    expect(patches()).toHaveLength(0);
  });
});

describe('an edit orc refuses itself, the edit kept', () => {
  it('a YAML alias bomb is a problem (exit 2), not a crash; nothing is sent and the edit stays', async () => {
    const id = await ideaRun();
    const bomb = [
      'a: &a ["x","x","x","x","x","x","x","x","x"]',
      'b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]',
      'c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]',
      'd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]',
      'name: Boom',
      'e: [*d,*d,*d,*d,*d,*d,*d,*d,*d]',
    ].join('\n');
    const ed = editor([{ write: bomb }]);
    const before = patches().length;
    const r = await orc(['spec', 'edit', id], { env: ed.env });
    expect(r.exitCode, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/not valid YAML: .*alias/i);
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack
    expect(patches().length).toBe(before);
    expect(readFileSync(keptPath(r.stderr)!, 'utf8')).toContain('e: [*d');
  });

  it('an edit past the 1 MiB a request may carry is refused before sending; the edit stays', async () => {
    const id = await ideaRun();
    const ed = editor([{ pad: 3 * 1024 * 1024 }]);
    const before = patches().length;
    const r = await orc(['spec', 'edit', id], { env: ed.env });
    expect(r.exitCode, r.stderr).toBe(2);
    expect(r.stderr).toContain('the service takes at most 1 MiB');
    expect(patches().length).toBe(before);
    expect(keptPath(r.stderr)).toBeTruthy();
  });
});
