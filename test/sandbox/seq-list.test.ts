// A webhook's deliveries as seqs in one typed array: appended in order, the expired let go from the front (but
// those still in play), pages read by position: what a page of a webhook's deliveries finds its place in.
import { expect, it } from 'vitest';
import { SeqList } from '../../src/sandbox/seq-list.js';

const all = (list: SeqList) => Array.from({ length: list.length }, (_, i) => list.at(i));

it('keeps every seq appended, in order, however far it grows', () => {
  const list = new SeqList();
  for (let seq = 1; seq <= 1000; seq++) list.push(seq * 3);
  expect(list.length).toBe(1000);
  expect(list.at(0)).toBe(3);
  expect(list.at(999)).toBe(3000);
  expect(list.at(1000)).toBeUndefined();
  expect(list.at(-1)).toBeUndefined();
});

it('lets go of the seqs below a point, but those kept, which stay in front in order', () => {
  const list = new SeqList();
  for (let seq = 1; seq <= 40; seq++) list.push(seq);
  const pending = new Set([3, 7, 19]);
  list.dropBelow(21, (seq) => pending.has(seq));
  expect(all(list)).toEqual([3, 7, 19, ...Array.from({ length: 20 }, (_, i) => 21 + i)]);
  // again, past the kept ones too once they are done; and nothing below a point already passed
  pending.clear();
  list.dropBelow(25, () => false);
  expect(all(list)).toEqual(Array.from({ length: 16 }, (_, i) => 25 + i));
  list.dropBelow(10, () => false);
  expect(list.length).toBe(16);
});

it('appends after letting go, reusing what it held, and empties cleanly', () => {
  const list = new SeqList();
  let next = 1;
  // a steady state: as many let go as appended (a cap), round after round
  for (let round = 0; round < 50; round++) {
    for (let i = 0; i < 100; i++) list.push(next++);
    list.dropBelow(next - 150, () => false);
    expect(list.length).toBe(Math.min(150, next - 1));
    expect(list.at(list.length - 1)).toBe(next - 1);
    expect(list.at(0)).toBe(Math.max(1, next - 150));
  }
  list.dropBelow(next, () => false);
  expect(list.length).toBe(0);
  list.push(next);
  expect(all(list)).toEqual([next]);
});
