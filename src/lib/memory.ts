// Keeping a long download's memory flat (orc's artifacts pull; the sandbox describing and serving an ipa).
// Every chunk a socket reads is a fresh buffer, garbage once it is hashed and written; V8 collects such
// buffers only after ~64 MiB of them pile up (its external-memory threshold), so a long download's RSS grew
// by that pile. A young-generation collection every 4 MiB frees them while they are still young, cheaply (and
// the download is a little faster, as fresh pages no longer fault in; a 512 MiB pull's peak before and after:
// docs/figures.md). `gc` is exposed for this at run time, not with a flag on the command line, so only a
// command that downloads pays for it. The sandbox makes its ipa slice by slice with a cipher, each slice a
// fresh buffer: the same pile, the same cure (its peak RSS and healthz latency while serving a 512 MiB ipa,
// before and after: docs/figures.md). node:v8 and node:vm are taken (a cost at load: docs/figures.md), and
// `gc` made, when the first 4 MiB have passed: a download read into one reused buffer never gets there.

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
