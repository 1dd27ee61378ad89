// JSON Merge Patch (RFC 7396) computed from two specs and read leaf by leaf (`orc spec diff`, edits); a value set
// at a dotted field as a merge patch (the console's "apply the suggestion"), and read back.
import { describe, expect, it } from 'vitest';
import {
  applyMergePatch,
  diffMergePatch,
  mergePatchAt,
  mergePatchChanges,
  valueAt,
} from '../../src/lib/merge-patch.js';

const spec = {
  name: 'Meal Planner – Your Everyday Companion App',
  brand: { palette: ['#8FA3B8', '#DDE3EA'], typeface: 'Inter' },
  screens: [
    { id: 'home', title: 'Home' },
    { id: 'list', title: 'List' },
  ],
};

describe('mergePatchAt', () => {
  it('nests objects on the way, so the rest of the spec stays as it is', () => {
    const patch = mergePatchAt(spec, ['brand', 'palette'], ['#1D528B', '#F4F5F6']);
    expect(patch).toEqual({ brand: { palette: ['#1D528B', '#F4F5F6'] } });
    const after = applyMergePatch(spec, patch) as typeof spec;
    expect(after.brand).toEqual({ palette: ['#1D528B', '#F4F5F6'], typeface: 'Inter' });
    expect(after.name).toBe(spec.name);
  });

  it('sends a list on the way whole, with only its item changed (a merge patch replaces lists)', () => {
    const patch = mergePatchAt(spec, ['screens', '1', 'purpose'], 'Everything in one place');
    expect(patch).toEqual({
      screens: [
        { id: 'home', title: 'Home' },
        { id: 'list', title: 'List', purpose: 'Everything in one place' },
      ],
    });
    expect(spec.screens[1]).toEqual({ id: 'list', title: 'List' }); // the spec itself untouched
  });

  it('makes the objects a field needs where the spec has none', () => {
    expect(mergePatchAt({}, ['brand', 'voice'], 'calm')).toEqual({ brand: { voice: 'calm' } });
  });
});

describe('valueAt', () => {
  it('reads a dotted field, into lists by index; undefined where nothing is, inherited keys included', () => {
    expect(valueAt(spec, ['brand', 'palette'])).toEqual(['#8FA3B8', '#DDE3EA']);
    expect(valueAt(spec, ['screens', '0', 'title'])).toBe('Home');
    expect(valueAt(spec, ['brand', 'voice'])).toBeUndefined();
    expect(valueAt(spec, ['name', 'length'])).toBeUndefined();
    expect(valueAt(spec, ['constructor'])).toBeUndefined();
  });
});

describe('diffMergePatch', () => {
  const before = { name: 'A', tagline: 't', brand: { palette: ['#000000'], voice: 'calm' }, features: ['x'] };
  const after = {
    name: 'B',
    brand: { palette: ['#000000'], voice: 'bold', typeface: 'Inter' },
    features: ['x', 'y'],
    extra: 1,
  };

  it('gives the patch that turns one spec into another: applied to the first, it gives the second', () => {
    const patch = diffMergePatch(before, after);
    expect(patch).toEqual({
      tagline: null,
      name: 'B',
      brand: { voice: 'bold', typeface: 'Inter' },
      features: ['x', 'y'],
      extra: 1,
    });
    expect(applyMergePatch(before, patch)).toEqual(after);
    expect(diffMergePatch(before, structuredClone(before))).toEqual({});
  });

  it('replaces a list whole, even for one changed item', () => {
    const a = { screens: [{ id: 'home', title: 'Home' }, { id: 'list' }] };
    const b = { screens: [{ id: 'home', title: 'Start' }, { id: 'list' }] };
    expect(diffMergePatch(a, b)).toEqual({ screens: b.screens });
    expect(diffMergePatch({ features: ['x', 'y'] }, { features: ['x'] })).toEqual({ features: ['x'] });
  });

  it('says a removal deep in an object as null at its place, the rest of the object untouched', () => {
    const a = { brand: { palette: ['#000000'], voice: 'calm' }, source: { repo_url: 'u', ref: 'main' } };
    const b = { brand: { palette: ['#000000'] }, source: { repo_url: 'u' } };
    const patch = diffMergePatch(a, b);
    expect(patch).toEqual({ brand: { voice: null }, source: { ref: null } });
    expect(applyMergePatch(a, patch)).toEqual(b);
    expect(diffMergePatch(a, { name: 'x' })).toEqual({ brand: null, source: null, name: 'x' });
  });
});

describe('mergePatchChanges', () => {
  it('reads a patch leaf by leaf by dotted path: added, removed (with what was there), changed', () => {
    const before = { name: 'A', tagline: 't', brand: { palette: ['#000000'], voice: 'calm' } };
    const after = {
      name: 'B',
      brand: { palette: ['#111111'], voice: 'calm', typeface: 'Inter' },
      source: { ref: 'v1' },
    };
    expect(mergePatchChanges(before, diffMergePatch(before, after))).toEqual([
      { op: '-', path: 'tagline', before: 't' },
      { op: '~', path: 'name', before: 'A', after: 'B' },
      { op: '~', path: 'brand.palette', before: ['#000000'], after: ['#111111'] },
      { op: '+', path: 'brand.typeface', after: 'Inter' },
      { op: '+', path: 'source', after: { ref: 'v1' } },
    ]);
    expect(mergePatchChanges(before, {})).toEqual([]);
  });

  it('a null for a field that is not there changes nothing; an object put over a value replaces it', () => {
    expect(mergePatchChanges({ a: 1 }, { b: null })).toEqual([]);
    expect(mergePatchChanges({ a: 1 }, { a: { b: 2, c: null } })).toEqual([
      { op: '~', path: 'a', before: 1, after: { b: 2 } },
    ]);
  });
});
