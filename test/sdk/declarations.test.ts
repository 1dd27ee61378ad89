// The library's declarations of the contract's shapes (scripts/library.mjs writes them from the zod schemas, so
// that a user of orc-cli needs no zod) say exactly what zod infers from those schemas: checked by the compiler,
// each pair assignable both ways.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a build script (plain ESM), not typed
import { contractDeclarations } from '../../scripts/library.mjs';

const ROOT = resolve(import.meta.dirname, '../..');

describe('the library declarations of the contract shapes', () => {
  it('declare each schema as exactly the type zod infers for it, and nothing of zod', async () => {
    const dir = join(ROOT, 'node_modules/.cache/orc-declarations-test');
    mkdirSync(dir, { recursive: true });
    // tsc's own declaration of schemas.ts gives Page<T>; the rest is written from the schemas.
    const emitted = join(dir, 'emitted.d.ts');
    writeFileSync(
      emitted,
      'export interface Page<T> {\n    data: T[];\n    next_cursor: string | null;\n    has_more: boolean;\n}\n',
    );
    const text: string = await contractDeclarations(emitted);
    expect(text).not.toMatch(/zod|import /);
    writeFileSync(join(dir, 'schemas.gen.d.ts'), text);
    const names = [...text.matchAll(/^export (?:interface|type) (\w+)/gm)]
      .map((m) => m[1]!)
      .filter((n) => n !== 'Page');
    expect(names).toEqual(expect.arrayContaining(['Run', 'Gate', 'Event', 'Scorecard', 'RunCreateParams', 'Delivery']));
    const checks = [
      "import type * as G from './schemas.gen.js';",
      `import type * as S from '${join(ROOT, 'src/contract/schemas.ts')}';`,
      "import type * as z from 'zod/mini';",
      'type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;',
      ...names.map((n) => `export const ${n}: Same<G.${n}, z.infer<typeof S.${n}>> = true;`),
    ];
    writeFileSync(join(dir, 'check.ts'), checks.join('\n'));
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        extends: join(ROOT, 'tsconfig.json'),
        include: ['check.ts'],
        compilerOptions: { noEmit: true },
      }),
    );
    const tsc = spawnSync(join(ROOT, 'node_modules/.bin/tsc'), ['-p', dir], { encoding: 'utf8' });
    expect(tsc.stdout + tsc.stderr).toBe('');
    expect(tsc.status).toBe(0);
    expect(readFileSync(join(dir, 'check.ts'), 'utf8')).toContain('G.Run');
  });
});
