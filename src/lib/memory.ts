// Keeping a long download's memory flat (orc's artifacts pull; the sandbox describing and serving an
// ipa). Every chunk a socket reads is a fresh buffer, garbage once it is hashed and written; V8 collects
// such buffers only after ~64 MiB of them pile up (its external-memory threshold), so a 512 MiB download
// peaked at 140 MB RSS. A young-generation collection every 4 MiB frees them while they are still young,
// about a millisecond each (measured on a 512 MiB pull: peak 140 → 80 MB, and a little faster, as fresh
// pages no longer fault in). `gc` is exposed for this at run time, not with a flag on the command line,
// so only a command that downloads pays for it. The sandbox makes its ipa slice by slice with a cipher,
// each slice a fresh buffer: the same pile, the same cure (a 512 MiB ipa served beside listings: peak
// RSS 136–179 → 101–104 MB, healthz p99 20–26 → 8–13 ms). node:v8 and node:vm are taken, and `gc` made, when
// the first 4 MiB have passed (some 8 ms here): a download read into one reused buffer never gets there.

type Collect = (opts: { type: 'minor' | 'major' }) => void;

let collect: Collect | null | undefined;

function collector(): Collect | null {
  if (collect !== undefined) return collect;
  try {
    (process.getBuiltinModule('node:v8') as typeof import('node:v8')).setFlagsFromString('--expose-gc');
    collect = (process.getBuiltinModule('node:vm') as typeof import('node:vm')).runInNewContext('gc') as Collect;
  } catch {
    collect = null;
  }
  return collect;
}

/** Counts bytes passed through; every `everyBytes` of them, collects the young generation. */
export function flatMemory(everyBytes = 4 << 20): (bytes: number) => void {
  let since = 0;
  return (bytes) => {
    since += bytes;
    if (since < everyBytes) return;
    since = 0;
    collector()?.({ type: 'minor' });
  };
}
