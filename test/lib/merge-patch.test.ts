// A value set at a dotted field as a merge patch (the console's "apply the suggestion"), and read back.
import { describe, expect, it } from 'vitest';
import { applyMergePatch, mergePatchAt, valueAt } from '../../src/lib/merge-patch.js';

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
