// The pure parts of `orc spec edit` and `orc artifacts pull`: patches, paths, diffs and file names.
import { describe, expect, it } from 'vitest';
import { safeFileName } from '../../src/artifacts/pull.js';
import { checkSpec, diffHunks, lineDiff, parseDocument, patchPaths, specPatch } from '../../src/app-spec/document.js';
import { parseAssignment, setPath, splitPath, unsetPath } from '../../src/app-spec/paths.js';

describe('the merge patch of an edit', () => {
  it('holds only what changed: removed keys as null, lists whole, nested objects as deep as the change', () => {
    const before = { name: 'A', tagline: 't', brand: { palette: ['#111111'], voice: 'calm' }, features: ['x', 'y'] };
    const after = { name: 'A', brand: { palette: ['#111111'], voice: 'warm' }, features: ['x'] };
    const patch = specPatch(before, after);
    expect(patch).toEqual({ tagline: null, brand: { voice: 'warm' }, features: ['x'] });
    expect(patchPaths(patch)).toEqual(['tagline', 'brand.voice', 'features']);
    expect(specPatch(before, structuredClone(before))).toEqual({});
  });

  it('diffs keys named like Object properties as the plain fields they are', () => {
    const before = { name: 'A', toString: 'x', constructor: { a: 1 }, brand: { hasOwnProperty: 'h', voice: 'v' } };
    const after = { name: 'A', brand: { voice: 'v' }, valueOf: { x: 1 } };
    const patch = specPatch(before, after);
    expect(patch).toEqual({ toString: null, constructor: null, brand: { hasOwnProperty: null }, valueOf: { x: 1 } });
    expect(Object.keys(patch)).toEqual(['toString', 'constructor', 'brand', 'valueOf']);
    expect(specPatch({ name: 'A' }, { name: 'A', constructor: { a: 1 }, isPrototypeOf: 'p' })).toEqual({
      constructor: { a: 1 },
      isPrototypeOf: 'p',
    });
  });

  it('reads an edited document: comments ignored, empty means cancel, an emptied field goes, duplicates refused', async () => {
    expect(await parseDocument('# only comments\n\n', 'yaml')).toEqual({ kind: 'empty' });
    expect(await parseDocument('// only comments\n', 'json')).toEqual({ kind: 'empty' });
    expect(await parseDocument('# c\nname: A\ntagline:\n', 'yaml')).toEqual({ kind: 'spec', spec: { name: 'A' } });
    const dup = await parseDocument('name: A\nname: B\n', 'yaml');
    expect(dup.kind).toBe('problem');
    const json = await parseDocument('// c\n{ "$schema": "file:///x", "name": "A" }\n', 'json');
    expect(json).toEqual({ kind: 'spec', spec: { name: 'A' } });
    expect(await parseDocument('# header\n#\n', 'yaml')).toEqual({ kind: 'empty' });
  });

  it('keeps a # line inside a block scalar: only comments go, and the YAML library says which lines are', async () => {
    const text =
      '# orc header\n#\nname: A # a comment\ndescription: |\n  # Heading\n  Some text.\n  # Another\n# trailing\n';
    const parsed = await parseDocument(text, 'yaml');
    expect(parsed).toEqual({ kind: 'spec', spec: { name: 'A', description: '# Heading\nSome text.\n# Another\n' } });
  });

  it('checks what the service would refuse', () => {
    expect(checkSpec({ name: 'A', brand: { palette: ['red'] } })).toMatchObject({ field: 'brand.palette.0' });
    expect(checkSpec({ tagline: 'no name' })).toEqual({ field: 'name', message: 'required' });
    expect(checkSpec(JSON.parse('{"name":"A","__proto__":{"x":1}}'))).toMatchObject({ field: '__proto__' });
  });
});

describe('--set and --unset paths', () => {
  it('parses values as JSON when they are JSON, else as text; brackets index lists', () => {
    expect(parseAssignment('name=Stride')).toEqual({ path: ['name'], value: 'Stride' });
    expect(parseAssignment('a.b=12')).toEqual({ path: ['a', 'b'], value: 12 });
    expect(parseAssignment('features=["a","b"]')).toEqual({ path: ['features'], value: ['a', 'b'] });
    expect(parseAssignment('tagline=a=b')).toEqual({ path: ['tagline'], value: 'a=b' });
    expect(splitPath('brand.palette[2]', '--set')).toEqual(['brand', 'palette', '2']);
    expect(() => splitPath('a..b', '--set')).toThrow(/no empty part/);
    expect(() => parseAssignment('=x')).toThrow(/path=value/);
  });

  it('sets through missing objects and lists, appends at a list end only, and never touches a prototype', () => {
    const spec: Record<string, unknown> = { features: ['a'] };
    setPath(spec, ['brand', 'palette', '0'], '#111111', '--set');
    setPath(spec, ['features', '1'], 'b', '--set');
    expect(spec).toEqual({ features: ['a', 'b'], brand: { palette: ['#111111'] } });
    expect(() => setPath(spec, ['features', '5'], 'x', '--set features.5=x')).toThrow(/not an index/);
    setPath(spec, ['__proto__', 'polluted'], 1, '--set');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    unsetPath(spec, ['features', '0'], '--unset features.0');
    expect(spec.features).toEqual(['b']);
    expect(() => unsetPath(spec, ['nope'], '--unset nope')).toThrow('--unset nope: the spec has no nope');
  });
});

describe('the diff shown before sending', () => {
  it('marks changed lines with context, and stays linear for a huge spec', () => {
    const a = 'name: A\nx: 1\ny: 2\nz: 3\nw: 4\nv: 5\n';
    const b = 'name: B\nx: 1\ny: 2\nz: 3\nw: 4\nv: 6\n';
    expect(diffHunks(lineDiff(a, b), 1)).toEqual([
      { op: '-', line: 'name: A' },
      { op: '+', line: 'name: B' },
      { op: ' ', line: 'x: 1' },
      { op: '…', line: '' },
      { op: ' ', line: 'w: 4' },
      { op: '-', line: 'v: 5' },
      { op: '+', line: 'v: 6' },
    ]);
    const big = Array.from({ length: 50_000 }, (_, i) => `- feature ${i}`).join('\n');
    const bigger = Array.from({ length: 50_000 }, (_, i) => `- feature ${i % 2 ? i : -i}`).join('\n');
    const diff = lineDiff(big, bigger);
    expect(diff.filter((d) => d.op === '+')).toHaveLength(diff.filter((d) => d.op === '-').length);
  });
});

describe('file names from the service', () => {
  it('keeps ordinary names (dots too), neutralises separators and controls, refuses what cannot be a name', () => {
    expect(safeFileName('01_home.png')).toBe('01_home.png');
    expect(safeFileName('.hidden.png')).toBe('.hidden.png');
    expect(safeFileName('a..b.png')).toBe('a..b.png');
    expect(safeFileName('../x.png')).toBe('.._x.png');
    expect(safeFileName('/etc/passwd')).toBe('_etc_passwd');
    expect(safeFileName('a\\b')).toBe('a_b');
    expect(safeFileName('bell\x07\x1b[2J.png')).toBe('bell__[2J.png');
    for (const bad of ['', '.', '..', 'x'.repeat(256)]) expect(safeFileName(bad)).toBeNull();
  });
});

describe('the lock on a spec', () => {
  const apiWith = (status: string, final: string) =>
    ({
      runs: { retrieve: async () => ({ status }) },
      gates: {
        list: async () => [
          { name: 'idea', state: 'approved' },
          { name: 'final', state: final },
        ],
      },
    }) as never;
  it('says why: the run ended, or its final gate was approved while it still runs', async () => {
    const { lockReason } = await import('../../src/commands/spec/editor-loop.js');
    expect(await lockReason(apiWith('awaiting_approval', 'pending'), 'run_1')).toBeNull();
    expect(await lockReason(apiWith('running', 'approved'), 'run_1')).toMatch(/final gate was approved/);
    expect(await lockReason(apiWith('failed', 'pending'), 'run_1')).toBe('the run is failed');
  });
});
