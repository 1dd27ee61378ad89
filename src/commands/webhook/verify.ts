// `orc webhook verify`: a delivery's signature checked offline, with the sandbox's own signature code.
// Exit 0 when valid; exit 3 with the reason when not (malformed header, no v1 for this secret, a time
// outside the tolerance and by how much). The secret may come on stdin (`-`), out of the process list.
import type { Context } from '../context.js';
import { parseSignatureHeader, verifySignature } from '../../contract/signature.js';
import { RefusedError, UsageError } from '../../exit/errors.js';
import { readInput, readInputBytes } from '../input.js';
import type { ArgsOf, FlagsOf } from '../define.js';
import type { verify as def } from './command.js';

export default async function verify(
  ctx: Context,
  _args: ArgsOf<typeof def>,
  flags: FlagsOf<typeof def>,
): Promise<number> {
  const missing = [
    flags.secret === undefined && '--secret',
    flags.header === undefined && '--header',
    flags.payloadFile === undefined && '--payload-file',
  ].filter(Boolean);
  if (missing.length)
    throw new UsageError(
      `${missing.join(', ')} ${missing.length > 1 ? 'are' : 'is'} required`,
      "Example: orc webhook verify --secret - --header 't=…,v1=…' --payload-file body.json < secret.txt",
    );
  if (flags.secret === '-' && flags.payloadFile === '-')
    throw new UsageError('--secret and --payload-file cannot both read stdin; put one of them in a file');
  const secret = flags.secret === '-' ? (await readInput(ctx, '-', '--secret -')).trim() : flags.secret!;
  if (!secret) throw new UsageError('--secret is empty');
  const payload = await readInputBytes(ctx, flags.payloadFile!, `--payload-file ${flags.payloadFile}`);
  const header = flags.header!;
  const nowMs = (flags.now ?? Math.floor(ctx.clock.now() / 1000)) * 1000;
  const result = verifySignature(secret, header, payload, { nowMs, toleranceS: flags.tolerance });
  const parsed = parseSignatureHeader(header);
  if (result.ok) {
    const at = new Date(result.timestamp * 1000).toISOString();
    if (ctx.io.json)
      ctx.io.writeJson({
        valid: true,
        timestamp: result.timestamp,
        signed_at: at,
        age_s: Math.floor(nowMs / 1000) - result.timestamp,
      });
    else
      ctx.io.info(
        `✓ valid: signed with this secret at ${at} (${describeAge(Math.floor(nowMs / 1000) - result.timestamp)})`,
      );
    return 0;
  }
  let reason: string;
  if (result.reason === 'malformed')
    reason = 'the header is malformed: it needs t=<unix seconds> and at least one v1=<64 hex digits>, comma-separated';
  else if (result.reason === 'timestamp_outside_tolerance') {
    const age = Math.floor(nowMs / 1000) - parsed!.timestamp;
    reason = `the signature's time is ${describeAge(age)}, ${Math.abs(age) - flags.tolerance} s outside the tolerance of ${flags.tolerance} s (replaying an old capture? give --now ${parsed!.timestamp})`;
  } else
    reason = `no signature for this secret: none of the ${parsed!.signatures.length} v1 value${parsed!.signatures.length === 1 ? '' : 's'} matches this secret and payload (a different secret, or a body changed on the way: verify the raw bytes as received)`;
  if (ctx.io.json) ctx.io.writeJson({ valid: false, reason: result.reason, message: reason });
  throw new RefusedError(`invalid signature: ${reason}`);
}

function describeAge(ageS: number): string {
  if (ageS === 0) return 'just now';
  return ageS > 0 ? `${ageS} s old` : `${-ageS} s in the future`;
}
