// Wrong calls a user might write: each must be a type error. An expected error that does not come is an
// error of its own (TS2578), so this file compiles only if every one of them is caught.
import type { Orc } from 'orc-cli';
import type { TestSandbox } from 'orc-cli/testing';

export async function wrong(orc: Orc, sandbox: TestSandbox): Promise<void> {
  // @ts-expect-error a misspelled gate
  await orc.gates.approve('run_1', 'brnad');
  // @ts-expect-error an idea without its pitch
  await orc.runs.create({ mode: 'idea', idea: { audience: 'students', monetization: 'free' } });
  // @ts-expect-error an artifact kind that is not one
  await orc.artifacts.retrieve('run_1', 'apk');
  // @ts-expect-error a status that is not one
  orc.runs.list({ status: 'nope' });
  // @ts-expect-error an event kind that is not one
  await sandbox.trigger('run.exploded');
  // @ts-expect-error a reject without its notes
  await orc.gates.reject('run_1', 'final', {});
}
