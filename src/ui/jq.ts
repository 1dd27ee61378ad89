// `--jq <expression>`: the JSON a command prints, through jq itself (jq 1.8, compiled to WebAssembly by the
// jq-wasm package: the real language, not a subset), strings printed raw as `jq -r` does. Loaded only when
// the flag is given. A bad expression is exit 2 with jq's own message, before anything is sent.
import { asset } from '../lib/assets.js';
import { UsageError } from '../exit/errors.js';

export type JsonFilter = (value: unknown) => string;

/** jq's message, without its "jq: error" preamble and the compile summary line. */
function jqMessage(stderr: string): string {
  const lines = stderr
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !/^jq: \d+ compile errors?$/.test(l));
  return (lines[0] ?? 'jq failed').replace(/^jq: error(?: \(at [^)]*\))?: /, '');
}

/** What one document's filter may print: past either, jq is stopped (else `repeat(1)` fills memory forever). */
export const JQ_MAX_OUTPUTS = 1_000_000;
export const JQ_MAX_CHARS = 64 * 1024 * 1024;
const BOUND_ERROR = '__orc_jq_output_bound';
const TOO_MUCH =
  `the output passed ${JQ_MAX_OUTPUTS.toLocaleString('en')} values or ${JQ_MAX_CHARS / 1024 / 1024} MiB; ` +
  'jq was stopped and nothing was printed';
const OUT_OF_MEMORY = 'jq ran out of memory (it has 256 MiB); nothing was printed. Select less, e.g. .[0:100]';

/**
 * The expression as the body of a definition, on lines of its own: a trailing `# comment` ends before what
 * follows, and unbalanced parentheses stay a syntax error. Its line numbers are one more than the user's.
 */
const asDefinition = (expression: string) => `def __orc_user:\n${expression}\n;`;

/** Compiles the expression without running it (an expression like `repeat(1)` never ends). */
const compileOnly = (expression: string) => `${asDefinition(expression)} if false then __orc_user else empty end`;

/**
 * The expression, its outputs counted and measured in jq itself as they are made (jq writes them to a buffer
 * orc cannot reach until it ends), stopped with an error past the bounds.
 */
function bounded(expression: string): string {
  const keep = `if .[0] > ${JQ_MAX_OUTPUTS} or .[1] > ${JQ_MAX_CHARS} then error("${BOUND_ERROR}") else $v end`;
  const count = '[.[0] + 1, .[1] + ($v | tojson | length)]';
  return `${asDefinition(expression)} foreach __orc_user as $v ([0, 0]; ${count}; ${keep})`;
}

/** A compile error's message, its place given in the user's lines; an error past them is at the end. */
function compileMessage(stderr: string, expression: string): string {
  const lines = expression.split('\n').length;
  const pastTheEnd = /unexpected ';'(.*) at <top-level>, line (\d+), column \d+:$/;
  return jqMessage(stderr)
    .replace(pastTheEnd, (all, rest: string, line: string) =>
      Number(line) > lines + 1 ? `unexpected end of the expression${rest}` : all,
    )
    .replace(/line (\d+)(?=, column)/, (_all, line: string) => `line ${Math.max(1, Number(line) - 1)}`);
}

function jqError(message: string): UsageError {
  return Object.assign(new UsageError(`--jq: ${message}`), { field: '--jq' });
}

export async function jqFilter(expression: string): Promise<JsonFilter> {
  const { loadJq } = await import('jq-wasm');
  // Bundled, jq-wasm cannot find its .wasm beside itself: the build puts it in dist/ (or the executable).
  const wasm = asset('jq.wasm');
  const jq = await loadJq(wasm ? { wasmBinary: wasm } : {});
  // jq's exit 3 is a compile error: the expression itself, whatever the input.
  const probe = jq.raw(null, compileOnly(expression), ['-r']);
  if (probe.exitCode === 3) throw jqError(compileMessage(probe.stderr, expression));
  const query = bounded(expression);
  let dead: UsageError | null = null;
  return (value) => {
    if (dead) throw dead;
    const r = runAborting(() => jq.raw(value as never, query, ['-r']));
    if (r === 'aborted') throw (dead = jqError(OUT_OF_MEMORY));
    if (r.exitCode !== 0 && r.stderr.includes(BOUND_ERROR)) throw jqError(TOO_MUCH);
    if (r.exitCode !== 0) throw jqError(jqMessage(r.stderr));
    // One line per output, each ended as jq ends it (the wrapper drops the last newline).
    return r.stdout === '' || r.stdout.endsWith('\n') ? r.stdout : `${r.stdout}\n`;
  };
}

/**
 * jq's WebAssembly aborts when its heap (256 MiB) is full, and its runtime writes a bare `Aborted()` with
 * console.error on the way: that line is held back (the call is synchronous, nothing else writes meanwhile)
 * and the abort answered as 'aborted'. The instance is unusable after it.
 */
function runAborting<T>(call: () => T): T | 'aborted' {
  const error = console.error;
  console.error = (...args: unknown[]) => void (/^Aborted\(/.test(String(args[0])) || error(...args));
  try {
    return call();
  } catch (err) {
    if ((err as Error)?.name === 'RuntimeError' && /Aborted\(/.test((err as Error).message)) return 'aborted';
    throw err;
  } finally {
    console.error = error;
  }
}
