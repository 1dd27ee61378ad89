#!/usr/bin/env node
// Launcher: on an old Node, hand over to the Node that `npm install` put beside orc (so a linked `orc`
// works whatever node is first on PATH), else say in one line what is needed; then turn on the compile
// cache and load the build.
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 12)) {
  const { existsSync } = await import('node:fs');
  const { fileURLToPath } = await import('node:url');
  const local = fileURLToPath(new URL('../node_modules/node/bin/node', import.meta.url));
  // ORC_HANDED_OVER marks orc's own child (were the Node beside it old too, it must not hand over again);
  // ORC_NO_HANDOVER is the user's (or a test's) way to say there is no Node beside it.
  if (existsSync(local) && !process.env.ORC_NO_HANDOVER && !process.env.ORC_HANDED_OVER) {
    const { spawn } = await import('node:child_process');
    const { constants } = await import('node:os');
    const child = spawn(local, [fileURLToPath(import.meta.url), ...process.argv.slice(2)], {
      stdio: 'inherit',
      env: { ...process.env, ORC_HANDED_OVER: '1' },
    });
    // Ctrl-C reaches both processes (one process group); orc in the child decides what it means, so SIGINT
    // is not sent to it a second time. Every other signal sent to this launcher (kill -TERM, a closed
    // terminal's SIGHUP, a supervisor's SIGQUIT or SIGUSR) is passed on: the child is the program.
    const forwarded = ['SIGTERM', 'SIGHUP', 'SIGQUIT', 'SIGUSR1', 'SIGUSR2'];
    const pass = (s) => child.kill(s);
    process.on('SIGINT', () => {});
    for (const s of forwarded) process.on(s, pass);
    child.on('exit', (code, signal) => {
      if (signal) {
        // Ended by a signal: end the same way, so the shell sees what happened.
        for (const s of forwarded) process.off(s, pass);
        process.removeAllListeners('SIGINT');
        process.kill(process.pid, signal);
      }
      process.exit(code ?? (signal ? 128 + (constants.signals[signal] ?? 0) : 1));
    });
  } else {
    process.stderr.write(
      `orc: needs Node.js 22.12 or newer, and this is Node.js ${process.versions.node}: install a current Node (https://nodejs.org), or take the standalone orc for Linux x64, which needs none (https://www.npmjs.com/package/orc-cli#install).\n`,
    );
    process.exit(1);
  }
} else {
  // The launcher's mark is for this process alone: not for the environment of a command orc runs (`sandbox
  // exec -- orc …`, an editor), where an orc on the old Node would take it for its own and refuse to start.
  delete process.env.ORC_HANDED_OVER;
  // (Not `import('node:module')`: an ESM import walks the module's exports, loading its source-map support.)
  const mod = process.getBuiltinModule('node:module');
  mod.enableCompileCache?.();
  // The build's chunks import each other by relative path: resolved here as the URLs they are, without
  // Node's resolution (a stat, a realpath and a package.json scan for each of the 40-odd a command loads).
  const dist = new URL('../dist/', import.meta.url).href;
  mod.registerHooks?.({
    resolve(specifier, context, next) {
      if (specifier.startsWith('./') && context.parentURL?.startsWith(dist))
        return { url: new URL(specifier, context.parentURL).href, format: 'module', shortCircuit: true };
      return next(specifier, context);
    },
  });
  const { main } = await import('../dist/main.js');
  // Not awaited at the top level: a prompt whose input ended must not leave Node warning about it.
  main(process.argv.slice(2)).catch((err) => {
    process.stderr.write(`orc: unexpected error: ${err?.stack ?? err}\n`);
    process.exit(1);
  });
}
