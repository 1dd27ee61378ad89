// What `orc webhook add` and `listen` take, checked before anything is sent: the receiving URL (https, or
// http to this machine: CONTRACT.md) and the event kinds (spec 6.1), with "did you mean" for a near miss.
import { EVENT_KINDS } from '../contract/events.js';
import type { WebhookCreateParams } from '../contract/schemas.js';
import { webhookUrlProblem } from '../contract/keys.js';
import { UsageError } from '../exit/errors.js';
import { commaList } from '../lib/comma-list.js';
import { closest } from '../lib/suggest.js';

export function checkWebhookUrl(text: string, flag = '--url'): string {
  const problem = webhookUrlProblem(text);
  if (problem) throw new UsageError(`${flag}: ${problem}`);
  return new URL(text).href;
}

/** `run.accepted,run.failed` or `*` → the list to send. */
export function checkEventKinds(text: string, flag = '--events'): WebhookCreateParams['events'] {
  const items = commaList(text);
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
