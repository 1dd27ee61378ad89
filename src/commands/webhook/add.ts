// `orc webhook add --url … --events …`: both checked before anything is sent; the secret is shown once.
import type { Context } from '../context.js';
import { UsageError } from '../../exit/errors.js';
import { oneLine } from '../../lib/sanitize.js';
import { checkEventKinds, checkWebhookUrl } from '../../webhooks/input.js';
import type { ArgsOf, FlagsOf } from '../define.js';
import type { add as def } from './command.js';
import { printWebhook } from './show.js';

export default async function add(
  ctx: Context,
  _args: ArgsOf<typeof def>,
  flags: FlagsOf<typeof def>,
): Promise<number> {
  const missing = [flags.url === undefined ? '--url' : '', flags.events === undefined ? '--events' : ''].filter(
    Boolean,
  );
  if (missing.length)
    throw new UsageError(
      `${missing.join(' and ')} ${missing.length > 1 ? 'are' : 'is'} required`,
      'Example: orc webhook add --url https://example.com/hooks/orc --events run.gate_pending,run.accepted',
    );
  const url = checkWebhookUrl(flags.url!);
  const events = checkEventKinds(flags.events!);
  const api = await ctx.api();
  const created = await api.webhooks.create({ url, events });
  if (ctx.io.json) return (ctx.io.writeJson(created), 0);
  await printWebhook(ctx, created);
  ctx.io.out(`secret   ${oneLine(created.secret)}`);
  ctx.io.info(
    'This signing secret is shown only now and cannot be shown again: keep it where your receiver can read it.',
  );
  return 0;
}
