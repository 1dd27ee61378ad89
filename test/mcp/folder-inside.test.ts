// Where MCP's pull_artifacts may write (src/mcp/server.ts folderInside): inside the server's folder only,
// whatever that folder is, `/` included (a desktop client may start the server there).
import { mkdirSync, mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { folderInside } from '../../src/mcp/server.js';

it('takes a folder inside the root, from / too, and a name that merely starts with two dots', () => {
  const root = mkdtempSync(join(tmpdir(), 'orc-mcp-root-'));
  expect(folderInside('/', join(root, 'pulled'))).toBe(join(root, 'pulled'));
  expect(folderInside(root, 'pulled')).toBe(join(root, 'pulled'));
  expect(folderInside(root, '..hidden')).toBe(join(root, '..hidden'));
  expect(folderInside(root, '.')).toBe(root);
});

it('refuses a folder outside it: .., an absolute path elsewhere, a link that leads out', () => {
  const root = mkdtempSync(join(tmpdir(), 'orc-mcp-root-'));
  mkdirSync(join(root, 'in'));
  symlinkSync(tmpdir(), join(root, 'in', 'out'));
  for (const dir of ['..', '../elsewhere', tmpdir(), 'in/out/x'])
    expect(() => folderInside(root, dir), dir).toThrow(/is outside/);
});
