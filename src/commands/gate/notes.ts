// Notes for a gate decision: --notes, --notes-file (or - for stdin), or, at a terminal, the editor.
import type { Context } from '../context.js';
import { UsageError } from '../../exit/errors.js';
import { cleanNotes, editText } from '../../ui/editor.js';
import { readInput } from '../input.js';

export async function readNotes(
  ctx: Context,
  gate: string,
  flags: { notes?: string; notesFile?: string },
  required: boolean,
): Promise<string | undefined> {
  if (flags.notes !== undefined && flags.notesFile !== undefined)
    throw new UsageError('--notes and --notes-file do not go together');
  let notes: string | undefined;
  if (flags.notes !== undefined) notes = flags.notes;
  else if (flags.notesFile !== undefined) {
    notes = await readInput(ctx, flags.notesFile, `--notes-file ${flags.notesFile}`);
  } else if (required && ctx.io.canPrompt) {
    notes = cleanNotes(
      editText(
        ctx.env,
        `\n# Why is the ${gate} gate rejected? The run goes back with these notes.\n# Lines starting with # are ignored; an empty note sends nothing.\n`,
        `${gate}-notes.md`,
      ),
    );
  } else if (required) {
    throw new UsageError(`rejecting needs notes: --notes "…" or --notes-file <file|->`);
  }
  if (notes !== undefined) notes = notes.trim();
  if (required && !notes) throw new UsageError('the notes are empty: nothing was sent (a rejection needs a reason)');
  if (notes === '') throw new UsageError('--notes is empty: nothing was sent');
  return notes;
}
