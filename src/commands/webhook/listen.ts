// `orc webhook listen`: the listener (src/webhooks/listen.ts) drawn for people, pipes and scripts.
// A line per event on stdout (`--> run.gate_pending run_… idea`), NDJSON with --json; the app's answers
// (`<-- 500 POST http://localhost:3000/hooks [evt_…]`) and everything else on stderr.
import { isLoopbackHost } from '../../contract/keys.js';
import type { Context } from '../context.js';
import { InterruptedError, UsageError } from '../../exit/errors.js';
import { oneLine } from '../../lib/sanitize.js';
import { loadStyle } from '../../ui/style.js';
import { checkEventKinds, checkWebhookUrl } from '../../webhooks/input.js';
import { listen as runListener, type ReceivedEvent } from '../../webhooks/listen.js';
import { parseSeconds, type ArgsOf, type FlagsOf } from '../define.js';
import type { listen as spec } from './command.js';

export default async function listen(
  ctx: Context,
  _args: ArgsOf<typeof spec>,
  flags: FlagsOf<typeof spec>,
): Promise<number> {
  const io = ctx.io;
  const events = checkEventKinds(flags.events ?? '*');
  const publicUrl = flags.publicUrl === undefined ? undefined : checkWebhookUrl(flags.publicUrl, '--public-url');
  const forwardTo = flags.forwardTo === undefined ? undefined : checkForwardUrl(flags.forwardTo);
  const interval = parseSeconds(ctx.env.ORC_LISTEN_CHECK_INTERVAL ?? '30');
  if (interval === null || interval <= 0)
    throw new UsageError(
      `ORC_LISTEN_CHECK_INTERVAL must be a number of seconds, not ${JSON.stringify(ctx.env.ORC_LISTEN_CHECK_INTERVAL)}`,
    );
  const target = await ctx.target();
  const serviceHost = new URL(target.baseUrl).hostname;
  if (!publicUrl && !isLoopbackHost(serviceHost)) {
    throw new UsageError(
      `the service at ${target.baseUrl} cannot reach a listener on this machine; give --public-url, the address it can reach (a tunnel to --port)`,
      'Example: orc webhook listen --port 8787 --public-url https://abc123.tunnel.example/orc-listen',
    );
  }
  if (!publicUrl && !isLoopbackHost(flags.host)) {
    throw new UsageError(
      `--host ${flags.host}: the sandbox delivers over plain http only to this machine; listen on 127.0.0.1 (the default), or give --public-url`,
    );
  }
  const api = await ctx.api();
  const style = await loadStyle(io);
  const s = oneLine; // (text from the service was cleaned where it entered: layout only here)
  const clockTime = () => new Date(ctx.clock.now()).toISOString().slice(11, 19);
  let webhookId = '';
  const { removed } = await runListener(
    api,
    {
      host: flags.host,
      port: flags.port,
      events,
      publicUrl,
      forwardTo,
      configDir: ctx.configDir,
      baseUrl: target.baseUrl,
      clock: ctx.clock,
      signal: ctx.signal,
      checkMs: interval * 1000,
      unreachableMs: interval * 2000,
    },
    {
      ready: (r) => {
        webhookId = r.webhookId;
        for (const id of r.removedLeftovers)
          io.info(`Removed webhook ${s(id)}, left behind by a listener that is no longer running.`);
        io.info(
          `Ready: webhook ${s(r.webhookId)} sends ${events.join(', ')} to ${s(r.url)}${r.url === r.localUrl ? '' : ` (listening at ${s(r.localUrl)})`}`,
        );
        io.info(`Signing secret: ${s(r.secret)} (it goes away with the webhook when this stops)`);
        io.info(forwardTo ? `Forwarding each verified event to ${s(forwardTo)}. Ctrl-C to stop.` : 'Ctrl-C to stop.');
      },
      event: (raw, e) => {
        if (io.json) io.streams.stdout.write(io.jsonLine(JSON.parse(raw)));
        else
          io.out(
            `${style.dim(clockTime())} ${style.cyan('-->')} ${style.bold(s(e.type))} ${s(e.run_id)}${detail(e)} ${style.dim(`[${s(e.id)}]`)}`,
          );
      },
      duplicate: (e) =>
        io.info(
          `${clockTime()} (a duplicate of ${s(e.id)}, ${s(e.type)}, delivered again: answered and not shown or forwarded twice)`,
        ),
      invalid: (reason, deliveryId) =>
        io.warn(`${clockTime()} refused a delivery${deliveryId ? ` (${s(deliveryId)})` : ''} with 400: ${s(reason)}`),
      forwarded: (e, r) => {
        const code = r.status === null ? 'ERR' : String(r.status);
        const ok = r.status !== null && r.status >= 200 && r.status < 300;
        const paint = ok ? style.green : style.red;
        const line = `${clockTime()} ${paint('<--')} ${paint(code)} POST ${s(forwardTo!)} [${s(e.id)}]${r.attempt > 1 ? ` attempt ${r.attempt}` : ''}`;
        io.streams.stderr.write(`${line}\n`);
        if (!ok && r.detail) for (const l of r.detail.split('\n')) io.streams.stderr.write(`    ${style.dim(s(l))}\n`);
        if (!ok && r.final)
          io.warn(
            `gave up forwarding ${s(e.id)} (${s(e.type)}) after ${r.attempt} attempt${r.attempt === 1 ? '' : 's'}; \`orc webhook redeliver ${webhookId} ${s(e.deliveryId ?? '<delivery>')}\` sends it again`,
          );
        else if (!ok) io.info(`    retrying ${s(e.id)}…`);
      },
      notice: (line) => io.warn(line),
    },
  );
  // Said once: removed, or (the notice above said why) left for the next listener to remove.
  throw new InterruptedError(
    removed
      ? `stopped listening; webhook ${webhookId} was removed`
      : `stopped listening; webhook ${webhookId} was not removed`,
  );
}

function detail(e: ReceivedEvent): string {
  const d = e.data;
  const parts: string[] = [];
  const str = (v: unknown) => (typeof v === 'string' || typeof v === 'number' ? oneLine(String(v)) : '');
  if (d.gate !== undefined) parts.push(str(d.gate));
  if (d.decision !== undefined) parts.push(str(d.decision));
  if (d.stage !== undefined && d.gate === undefined) parts.push(str(d.stage));
  if (typeof d.percent === 'number') parts.push(`${d.percent}%`);
  const score = d.score as { score?: unknown; total?: unknown } | undefined;
  if (score && typeof score === 'object') parts.push(`${str(score.score)}/${str(score.total)}`);
  if (d.app_store_url !== undefined) parts.push(str(d.app_store_url));
  if (d.reason !== undefined) parts.push(str(d.reason));
  const err = d.error as { message?: unknown } | undefined;
  if (err && typeof err === 'object') parts.push(str(err.message));
  const shown = parts.filter(Boolean);
  return shown.length ? ` ${shown.join(' ')}` : '';
}

function checkForwardUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(
      `--forward-to: ${JSON.stringify(text)} is not a URL; give your app's address, such as http://localhost:3000/hooks`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError(`--forward-to: ${JSON.stringify(url.protocol)} is not http:// or https://`);
  return url.href;
}
