// What `orc webhook add` and `listen` take, checked before anything is sent: the receiving URL (https, or
// http to this machine: CONTRACT.md) and the event kinds (spec 6.1), with "did you mean" for a near miss.
import { EVENT_KINDS } from '../contract/events.js';
import type { WebhookCreateParams } from '../contract/schemas.js';
import { isLoopbackHost } from '../contract/keys.js';
import { UsageError } from '../exit/errors.js';
import { closest } from '../lib/suggest.js';

export function checkWebhookUrl(text: string, flag = '--url'): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(
      `${flag}: ${JSON.stringify(text)} is not a URL; give the full address, such as https://example.com/hooks/orc`,
    );
  }
  if (url.username || url.password)
    throw new UsageError(
      `${flag}: a URL with a user name or password in it is not accepted; the deliveries are signed instead`,
    );
  if (url.protocol === 'https:') return url.href;
  if (url.protocol === 'http:' && isLoopbackHost(url.hostname)) return url.href;
  if (url.protocol === 'http:')
    throw new UsageError(
      `${flag}: plain http:// is only for this machine (127.0.0.1, ::1, localhost); use https:// for ${url.host}`,
    );
  throw new UsageError(
    `${flag}: ${JSON.stringify(url.protocol)} is not a web address; use https:// (or http:// to this machine)`,
  );
}

/** `run.accepted,run.failed` or `*` → the list to send. */
export function checkEventKinds(text: string, flag = '--events'): WebhookCreateParams['events'] {
  const items = [
    ...new Set(
      text
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  ];
  if (items.length === 0)
    throw new UsageError(
      `${flag} needs one or more event kinds, comma-separated, or * for all: ${EVENT_KINDS.join(', ')}`,
    );
  if (items.includes('*')) {
    if (items.length > 1) throw new UsageError(`${flag}: * already means every kind; give it alone`);
    return ['*'];
  }
  for (const item of items) {
    if ((EVENT_KINDS as readonly string[]).includes(item)) continue;
    const near = closest(item, EVENT_KINDS) ?? closest(`run.${item}`, EVENT_KINDS);
    throw new UsageError(
      `${flag}: unknown event kind ${JSON.stringify(item)}${near ? `; did you mean ${near}?` : ''}`,
      `The kinds: ${EVENT_KINDS.join(', ')}, or * for all.`,
    );
  }
  return items as WebhookCreateParams['events'];
}
