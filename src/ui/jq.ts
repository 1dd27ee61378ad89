// `--jq <expression>`: the JSON a command prints, through jq itself (jq 1.8, compiled to WebAssembly by the
// jq-wasm package: the real language, not a subset), strings printed raw as `jq -r` does. Loaded only when
// the flag is given. A bad expression is exit 2 with jq's own message, before anything is sent.
import { asset } from '../assets.js';
import { UsageError } from '../errors.js';

export type JsonFilter = (value: unknown) => string;

/** jq's message, without its "jq: error" preamble and the compile summary line. */
function jqMessage(stderr: string): string {
  const lines = stderr.split('\n').map((l) => l.trim()).filter((l) => l && !/^jq: \d+ compile errors?$/.test(l));
  return (lines[0] ?? 'jq failed').replace(/^jq: error(?: \(at [^)]*\))?: /, '');
}

export async function jqFilter(expression: string): Promise<JsonFilter> {
  const { loadJq } = await import('jq-wasm');
  // Bundled, jq-wasm cannot find its .wasm beside itself: the build puts it in dist/ (or the executable).
  const wasm = asset('jq.wasm');
  const jq = await loadJq(wasm ? { wasmBinary: wasm } : {});
  // jq's exit 3 is a compile error: the expression itself, whatever the input.
  const probe = jq.raw(null, expression, ['-r']);
  if (probe.exitCode === 3) throw Object.assign(new UsageError(`--jq: ${jqMessage(probe.stderr)}`), { field: '--jq' });
  return (value) => {
    const r = jq.raw(value as never, expression, ['-r']);
    if (r.exitCode !== 0) throw Object.assign(new UsageError(`--jq: ${jqMessage(r.stderr)}`), { field: '--jq' });
    // One line per output, each ended as jq ends it (the wrapper drops the last newline).
    return r.stdout === '' || r.stdout.endsWith('\n') ? r.stdout : `${r.stdout}\n`;
  };
}
