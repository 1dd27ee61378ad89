// The sandbox's runs at scale: every run's list fields in memory, whole records read from the database when
// asked, the last thousand of the runs moving kept (an ended run's is read again when asked); a record read inside a transaction (the database then shows that
// transaction's own writes) is never kept, so memory holds only what committed.
import { expect, it } from 'vitest';
import { RunTable, type RunRecord } from '../../src/sandbox/store.js';

const record = (id: string, seq: number, status = 'running') => ({ seq, run: { id, status } }) as unknown as RunRecord;

it('reads a whole record from the database once, keeps the last thousand, and lists from memory alone', () => {
  const db = new Map<string, RunRecord>();
  const reads: string[] = [];
  const table = new RunTable(
    (id) => (reads.push(id), db.get(id)),
    () => true,
  );
  for (let i = 1; i <= 1500; i++) {
    db.set(`run_${i}`, record(`run_${i}`, i));
    table.index(`run_${i}`, i, db.get(`run_${i}`)!.run);
  }
  expect(table.size).toBe(1500);
  expect(table.view('run_7')).toEqual({ seq: 7, run: { id: 'run_7', status: 'running' } });
  expect(reads).toEqual([]); // lists and pages need no record
  expect(table.get('run_7')).toBe(db.get('run_7'));
  expect(table.get('run_7')).toBe(db.get('run_7'));
  expect(reads).toEqual(['run_7']);
  for (let i = 1; i <= 1500; i++) table.get(`run_${i}`);
  reads.length = 0;
  table.get('run_1'); // let go: the thousand kept are the last read
  table.get('run_1500');
  expect(reads).toEqual(['run_1']);
  expect(table.get('run_nope')).toBeUndefined();
  expect(table.idsWhere(['running'])).toHaveLength(1500);
});

it('does not keep a record read inside a transaction', () => {
  const db = new Map([['run_1', record('run_1', 1)]]);
  let inTransaction = true;
  let reads = 0;
  const table = new RunTable(
    () => (reads++, db.get('run_1')),
    () => !inTransaction,
  );
  table.index('run_1', 1, db.get('run_1')!.run);
  table.get('run_1');
  table.get('run_1');
  expect(reads).toBe(2);
  inTransaction = false;
  table.get('run_1');
  table.get('run_1');
  expect(reads).toBe(3);
});

it("keeps the records of the runs moving, not of the runs that ended: an ended run's is read when asked", () => {
  const db = new Map([
    ['run_1', record('run_1', 1)],
    ['run_2', record('run_2', 2, 'accepted')],
  ]);
  const reads: string[] = [];
  const table = new RunTable(
    (id) => (reads.push(id), db.get(id)),
    () => true,
  );
  table.set('run_1', db.get('run_1')!);
  table.index('run_2', 2, db.get('run_2')!.run);
  table.get('run_2');
  table.get('run_2');
  expect(reads).toEqual(['run_2', 'run_2']);
  // the moving run ends: its record is let go with its last change
  const ended = record('run_1', 1, 'canceled');
  db.set('run_1', ended);
  table.set('run_1', ended);
  expect(table.get('run_1')).toBe(ended);
  expect(reads).toEqual(['run_2', 'run_2', 'run_1']);
  expect(table.view('run_1')!.run.status).toBe('canceled');
});
