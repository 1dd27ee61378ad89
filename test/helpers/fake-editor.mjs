#!/usr/bin/env node
// An editor for tests, run as $EDITOR: each time it opens it keeps a copy of what it was given in
// $FAKE_EDITOR_DIR (seen-1, seen-2, …) and makes that round's change from $FAKE_EDITOR_STEPS, a JSON list:
// { "replace": [from, to] } (a regular expression, multiline), { "write": text }, or {} to save unchanged.
// Past the last step it saves unchanged. { "fail": true } exits 1 as an editor that crashed; { "pad": n }
// appends a field of n bytes (an edit too big to send).
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const file = process.argv[2];
const dir = process.env.FAKE_EDITOR_DIR;
const steps = JSON.parse(process.env.FAKE_EDITOR_STEPS ?? '[]');
const round = readdirSync(dir).filter((f) => f.startsWith('seen-')).length + 1;
const text = readFileSync(file, 'utf8');
writeFileSync(join(dir, `seen-${round}`), text);
const step = steps[round - 1] ?? {};
if (step.fail) process.exit(1);
if (step.write !== undefined) writeFileSync(file, step.write);
else if (step.pad) writeFileSync(file, `${text}\npadding: "${'x'.repeat(step.pad)}"\n`);
else if (step.replace) writeFileSync(file, text.replace(new RegExp(step.replace[0], 'm'), step.replace[1]));
