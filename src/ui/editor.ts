// Text written in the user's editor ($VISUAL, then $EDITOR, then vi), as git does it.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UsageError } from '../exit/errors.js';

export function editText(env: NodeJS.ProcessEnv, initial: string, fileName: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'orc-edit-'));
  const file = join(dir, fileName);
  try {
    writeFileSync(file, initial, { mode: 0o600 });
    openEditor(env, file);
    return readFileSync(file, 'utf8');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The editor orc would open: $VISUAL, then $EDITOR, then vi; null when none is set (`fallback` false). */
export function editorCommand(env: NodeJS.ProcessEnv, fallback = true): string | null {
  return env.VISUAL || env.EDITOR || (fallback ? 'vi' : null);
}

/** Opens the editor on a file and waits for it to close. */
export function openEditor(env: NodeJS.ProcessEnv, file: string): void {
  const editor = editorCommand(env)!;
  // Through the shell, so EDITOR may carry arguments ("code --wait").
  const r = spawnSync('sh', ['-c', `${editor} "$1"`, 'orc-editor', file], { stdio: 'inherit', env });
  if (r.error)
    throw new UsageError(
      `could not start the editor ${JSON.stringify(editor)}: ${r.error.message}`,
      'Set VISUAL or EDITOR.',
    );
  if (r.status !== 0)
    throw new UsageError(`the editor ${JSON.stringify(editor)} exited with ${r.status ?? r.signal}; nothing was sent`);
}

/** Notes from an editor buffer: comment lines (#) dropped, surrounding blank space trimmed. */
export function cleanNotes(text: string): string {
  return text
    .split('\n')
    .filter((l) => !l.startsWith('#'))
    .join('\n')
    .trim();
}
