// Tools some tests drive (zsh, fish, tmux). Missing on a developer's machine: those tests are skipped
// with one line saying so. Under CI=true, where .ci/run installs them, missing is a failure instead.
import { spawnSync } from 'node:child_process';

const ci = Boolean(process.env.CI) && process.env.CI !== 'false';

export function hasTool(name: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' }).status === 0;
}

/** True when the tests needing `name` should run; false (and one line on stderr) when they are skipped. */
export function needTool(name: string, what: string, debianPackage = name): boolean {
  if (hasTool(name)) return true;
  if (ci) return true; // they run, and fail loudly: CI must have it
  process.stderr.write(
    `skipping ${what}: ${name} is not installed here (CI installs it; apt-get install ${debianPackage})\n`,
  );
  return false;
}
