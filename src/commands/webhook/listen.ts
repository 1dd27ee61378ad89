// `orc webhook listen`: the listener (src/webhooks/listen.ts) drawn for people, pipes and scripts.
// A line per event on stdout (`--> run.gate_pending run_… idea`), NDJSON with --json; the app's answers
// (`<-- 500 POST http://localhost:3000/hooks [evt_…]`) and everything else on stderr.
import { isLoopbackHost } from '../../contract/keys.js';
import type { Context } from '../context.js';
import { InterruptedError, UsageError } from '../../exit/errors.js';
import { oneLine } from '../../lib/sanitize.js';
import { loadStyle, type Style } from '../../ui/style.js';
import { checkEventKinds, checkWebhookUrl } from '../../webhooks/input.js';
import { listen as runListener, type ReceivedEvent } from '../../webhooks/listen.js';
import { parseSeconds, type ArgsOf, type FlagsOf } from '../define.js';
import type { listen as def } from './command.js';

export default async function listen(
  ctx: Context,
  _args: ArgsOf<typeof def>,
  flags: FlagsOf<typeof def>,
): Promise<number> {
  const io = ctx.io;
  const { events, publicUrl, forwardTo, interval } = listenInputs(ctx, flags);
  const target = await ctx.target();
  checkReachable(target.baseUrl, publicUrl, flags.host);
  const api = await ctx.api();
  const style = await loadStyle(io);
  let webhookId = '';
  const shown = new ListenerLines(ctx, style, events, forwardTo, () => webhookId);
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
        shown.ready(r);
      },
      event: (raw, e) => shown.event(raw, e),
      duplicate: (e) => shown.duplicate(e),
      invalid: (reason, deliveryId) => shown.invalid(reason, deliveryId),
      forwarded: (e, r) => shown.forwarded(e, r),
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

/** The flags and ORC_LISTEN_CHECK_INTERVAL, checked before anything is made. */
function listenInputs(ctx: Context, flags: FlagsOf<typeof def>) {
  const events = checkEventKinds(flags.events ?? '*');
  const publicUrl = flags.publicUrl === undefined ? undefined : checkWebhookUrl(flags.publicUrl, '--public-url');
  const forwardTo = flags.forwardTo === undefined ? undefined : checkForwardUrl(flags.forwardTo);
  const interval = parseSeconds(ctx.env.ORC_LISTEN_CHECK_INTERVAL ?? '30');
  if (interval === null || interval <= 0)
    throw new UsageError(
      `ORC_LISTEN_CHECK_INTERVAL must be a number of seconds, not ${JSON.stringify(ctx.env.ORC_LISTEN_CHECK_INTERVAL)}`,
    );
  return { events, publicUrl, forwardTo, interval };
}

/** Without --public-url the service must reach this machine, and the listener listen on loopback. */
function checkReachable(baseUrl: string, publicUrl: string | undefined, host: string): void {
  if (!publicUrl && !isLoopbackHost(new URL(baseUrl).hostname)) {
    throw new UsageError(
      `the service at ${baseUrl} cannot reach a listener on this machine; give --public-url, the address it can reach (a tunnel to --port)`,
      'Example: orc webhook listen --port 8787 --public-url https://abc123.tunnel.example/orc-listen',
    );
  }
  if (!publicUrl && !isLoopbackHost(host)) {
    throw new UsageError(
      `--host ${host}: the sandbox delivers over plain http only to this machine; listen on 127.0.0.1 (the default), or give --public-url`,
    );
  }
}

type Hooks = NonNullable<Parameters<typeof runListener>[2]>;
const s = oneLine; // (text from the service was cleaned where it entered: layout only here)

/** What the listener tells, as lines: an event on stdout (NDJSON under --json), the rest on stderr. */
class ListenerLines {
  constructor(
    private readonly ctx: Context,
    private readonly style: Style,
    private readonly events: string[],
    private readonly forwardTo: string | undefined,
    private readonly webhookId: () => string,
  ) {}

  private clockTime(): string {
    return new Date(this.ctx.clock.now()).toISOString().slice(11, 19);
  }

  ready(r: Parameters<Hooks['ready']>[0]): void {
    const { io } = this.ctx;
    for (const id of r.removedLeftovers)
      io.info(`Removed webhook ${s(id)}, left behind by a listener that is no longer running.`);
    io.info(
      `Ready: webhook ${s(r.webhookId)} sends ${this.events.join(', ')} to ${s(r.url)}${r.url === r.localUrl ? '' : ` (listening at ${s(r.localUrl)})`}`,
    );
    io.info(`Signing secret: ${s(r.secret)} (it goes away with the webhook when this stops)`);
    io.info(
      this.forwardTo ? `Forwarding each verified event to ${s(this.forwardTo)}. Ctrl-C to stop.` : 'Ctrl-C to stop.',
    );
  }

  event(raw: string, e: ReceivedEvent): void {
    const { io } = this.ctx;
    const { style } = this;
    if (io.json) io.streams.stdout.write(io.jsonLine(JSON.parse(raw)));
    else
      io.out(
        `${style.dim(this.clockTime())} ${style.cyan('-->')} ${style.bold(s(e.type))} ${s(e.run_id)}${detail(e)} ${style.dim(`[${s(e.id)}]`)}`,
      );
  }

  duplicate(e: ReceivedEvent): void {
    this.ctx.io.info(
      `${this.clockTime()} (a duplicate of ${s(e.id)}, ${s(e.type)}, delivered again: answered and not shown or forwarded twice)`,
    );
  }

  invalid(reason: string, deliveryId: string | undefined | null): void {
    this.ctx.io.warn(
      `${this.clockTime()} refused a delivery${deliveryId ? ` (${s(deliveryId)})` : ''} with 400: ${s(reason)}`,
    );
  }

  /** The app's answer to a forwarded event, and a retry or the giving up. */
  forwarded(e: ReceivedEvent, r: Parameters<Hooks['forwarded']>[1]): void {
    const { io } = this.ctx;
    const { style } = this;
    const code = r.status === null ? 'ERR' : String(r.status);
    const ok = r.status !== null && r.status >= 200 && r.status < 300;
    const paint = ok ? style.green : style.red;
    const line = `${this.clockTime()} ${paint('<--')} ${paint(code)} POST ${s(this.forwardTo!)} [${s(e.id)}]${r.attempt > 1 ? ` attempt ${r.attempt}` : ''}`;
    io.streams.stderr.write(`${line}\n`);
    if (!ok && r.detail) for (const l of r.detail.split('\n')) io.streams.stderr.write(`    ${style.dim(s(l))}\n`);
    if (!ok && r.final)
      io.warn(
        `gave up forwarding ${s(e.id)} (${s(e.type)}) after ${r.attempt} attempt${r.attempt === 1 ? '' : 's'}; \`orc webhook redeliver ${this.webhookId()} ${s(e.deliveryId ?? '<delivery>')}\` sends it again`,
      );
    else if (!ok) io.info(`    retrying ${s(e.id)}…`);
  }
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
