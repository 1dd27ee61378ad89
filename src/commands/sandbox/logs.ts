// `orc sandbox logs [--follow]`: the requests the sandbox answered and its webhook delivery attempts.
import type { FlagsOf } from '../define.js';
import type { Context } from '../context.js';
import { FailedError } from '../../exit/errors.js';
import { oneLine, parseServiceJson } from '../../lib/sanitize.js';
import type { JournalEntry as Entry, JournalPage } from '../../contract/sandbox-control.js';
import { adminCall } from './admin-call.js';
import type { logs as def } from './command.js';

/** One entry as a line: time, what, status, how long, and what a test would look for. */
export function entryLine(e: Entry): string {
  const [what, extra] =
    e.type === 'request'
      ? [
          `${e.method} ${e.path}`,
          [e.request_id, e.idempotency_key ? `key ${e.idempotency_key}` : '', e.trace_id ? `trace ${e.trace_id}` : ''],
        ]
      : [`deliver ${e.webhook_id} ${e.url}`, [e.error ?? '']];
  const tail = [...extra, e.fault ? `fault ${e.fault}` : ''].filter(Boolean).join(' ');
  return oneLine(`${e.at}  ${what}  ${e.status ?? 'ERR'}  ${Math.round(e.ms)} ms${tail ? `  ${tail}` : ''}`);
}

export default async function logs(ctx: Context, _args: [], flags: FlagsOf<typeof def>): Promise<number> {
  const { data } = await adminCall<JournalPage>(ctx, 'GET', '/_sandbox/logs');
  const print = (e: Entry) =>
    ctx.io.json && flags.follow ? ctx.io.streams.stdout.write(ctx.io.jsonLine(e)) : ctx.io.out(entryLine(e));
  if (!flags.follow) {
    if (ctx.io.json) return (ctx.io.writeJson(data), 0);
    for (const e of data) print(e);
    return 0;
  }
  for (const e of data) print(e);
  // Then every new one, from the stream of the journal, until Ctrl-C.
  const api = await ctx.api();
  const { SseParser } = await import('../../api/sse.js');
  let last = data.at(-1)?.seq ?? 0;
  const answer = await api.http
    .send({
      method: 'GET',
      target: '/_sandbox/logs',
      query: { follow: 1, after: last },
      headers: { accept: 'text/event-stream' },
      deadline: false,
      bodyTimeoutMs: 0,
      signal: ctx.signal,
    })
    .catch((err: unknown) => {
      if (ctx.signal.aborted) return null;
      throw err;
    });
  if (!answer) return 130;
  const parser = new SseParser({
    message: (m) => {
      const e = parseServiceJson(m.data) as Entry;
      if (e.seq <= last) return;
      last = e.seq;
      print(e);
    },
  });
  try {
    for await (const chunk of answer.body) parser.feed(chunk);
  } catch (err) {
    if (!ctx.signal.aborted) throw err;
  }
  if (ctx.signal.aborted) return 130;
  throw new FailedError('the sandbox closed the journal stream (it stopped?)');
}
