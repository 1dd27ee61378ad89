// Arrows point one way (docs/architecture.md): the client and the sandbox meet only in src/contract, and the
// web console, which runs in a browser, imports nothing of orc's but the contract.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = resolve(import.meta.dirname, '../../src');

function importsOf(dir: string): Array<{ file: string; target: string }> {
  const out: Array<{ file: string; target: string }> = [];
  for (const entry of readdirSync(join(SRC, dir), { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
    const file = join(entry.parentPath, entry.name);
    for (const m of readFileSync(file, 'utf8').matchAll(
      /(?:^|\n)\s*(?:import|export)[^'"]*?from\s+'([^']+)'|import\('([^']+)'\)/g,
    )) {
      const spec = (m[1] ?? m[2])!;
      const target = spec.startsWith('.') ? relative(SRC, resolve(entry.parentPath, spec)) : spec;
      out.push({ file: relative(SRC, file), target });
    }
  }
  return out;
}

describe('arrows', () => {
  it('the web console imports only itself, the contract, preact and htm', () => {
    const all = importsOf('console');
    expect(all.length).toBeGreaterThan(20); // the check reads the imports (main.ts alone has eight)
    const bad = all.filter(
      ({ target }) => !/^(console|contract)\//.test(target) && !/^(preact|htm)(\/|$)/.test(target),
    );
    expect(bad).toEqual([]);
  });

  it('the sandbox imports no part of the client (commands, cli, ui, api, config)', () => {
    const all = importsOf('sandbox');
    expect(all.some(({ target }) => target === 'contract/errors.js')).toBe(true);
    const bad = all.filter(({ target }) => /^(commands|cli|ui|api|config|console)\//.test(target));
    expect(bad).toEqual([]);
  });

  it('the client never imports the sandbox but where a command starts it', () => {
    const bad = ['api', 'ui', 'config', 'watch', 'app-spec', 'artifacts', 'webhooks']
      .flatMap((d) => importsOf(d))
      .filter(({ target }) => target.startsWith('sandbox/'));
    expect(bad).toEqual([]);
  });
});
