// `npm test`: the build first (the end-to-end tests run dist/), then the type check and every test at
// once. The type check needs a core for about two seconds; the tests wait on processes, sockets and
// terminals as much as they compute, so running both together costs no test its time. Arguments go to
// vitest (`npm test -- test/lib`). Exit 1 if either fails; the type errors are printed after the tests.
import { spawn } from 'node:child_process';

const bin = (name) => new URL(`../node_modules/.bin/${name}`, import.meta.url).pathname;
const run = (cmd, args, capture) =>
  new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: ['inherit', capture ? 'pipe' : 'inherit', capture ? 'pipe' : 'inherit'] });
    let out = '';
    if (capture) for (const s of [child.stdout, child.stderr]) s.on('data', (c) => (out += c));
    child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), out }));
  });

/**
 * vitest's arguments. Its colours come from tinyrainbow, which colours whenever TERM is set, piped or not:
 * into a pipe or a CI log (`npm test | tee log`) it is told --no-color, unless colour was asked for.
 */
export function vitestArgs(args, stdoutIsTTY, env) {
  const asked = args.some((a) => a === '--color' || a === '--no-color') || 'FORCE_COLOR' in env;
  return ['run', ...(stdoutIsTTY || asked ? [] : ['--no-color']), ...args];
}

if (import.meta.main) await main();

async function main() {
  const build = await run(process.execPath, [new URL('./build.mjs', import.meta.url).pathname], false);
  if (build.code !== 0) process.exit(build.code);
  // Two projects: the CLI and sandbox (Node), and the web console (the browser's DOM).
  // Then the house checks, each a fraction of a second: the layout (Biome, width 120) and the shape of
  // functions (oxlint: at most about 60 lines, blocks nested at most 4 deep; .oxlintrc.json).
  const typecheck = async () => {
    const checks = [
      ['type check (tsc -p .)', bin('tsc'), ['-p', '.']],
      ['type check (tsc -p src/console)', bin('tsc'), ['-p', 'src/console']],
      ['format (biome format; npx biome format --write . fixes it)', bin('biome'), ['format', '.']],
      [
        'function shape (oxlint -c .oxlintrc.json src)',
        bin('oxlint'),
        ['-c', '.oxlintrc.json', '--deny-warnings', 'src'],
      ],
    ];
    let code = 0;
    let out = '';
    for (const [name, cmd, args] of checks) {
      const r = await run(cmd, args, true);
      if (r.code !== 0) out += `\n${name} failed:\n${r.out}`;
      code ||= r.code;
    }
    return { code, out };
  };
  const args = vitestArgs(process.argv.slice(2), process.stdout.isTTY === true, process.env);
  const [types, tests] = await Promise.all([typecheck(), run(bin('vitest'), args, false)]);
  if (types.code !== 0) {
    process.stdout.write(types.out);
    process.exit(1);
  }
  process.exit(tests.code);
}
