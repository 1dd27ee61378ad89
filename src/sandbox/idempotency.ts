// Idempotency-Key on every POST: the first 2xx answer is kept 24 h and replayed; the same key with another
// body is 422; while the first request is in flight, 409. The answer is kept in the same transaction as
// the change it reports, so a replay after a crash tells the truth. A request whose body never arrives
// (408) or fails releases its key.
import { hash } from 'node:crypto';
import type { Clock } from '../lib/clock.js';
import { Failure } from './failure.js';
import type { Store } from './store.js';

const TTL_MS = 24 * 60 * 60 * 1000;

/** A JSON answer as it goes on the wire: its status and encoded body (kept and replayed as it was). */
export interface Reply {
  status: number;
  body: string;
  replayed?: boolean;
}

export class Idempotency {
  private readonly inFlight = new Set<string>();
  private saved = 0;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  /** `readBody` and `perform` run with the key held; `perform` runs inside the store's transaction. */
  async run(
    apiKey: string,
    header: string | undefined,
    request: string,
    readBody: () => Promise<unknown>,
    perform: (body: unknown) => Reply,
  ): Promise<Reply> {
    if (header === undefined) {
      const body = await readBody();
      return this.store.transaction(() => perform(body));
    }
    if (header.length === 0 || header.length > 255)
      throw new Failure('invalid_value', 'Idempotency-Key must be 1 to 255 characters', 'Idempotency-Key');
    const scope = `${apiKey}\n${header}`;
    if (this.inFlight.has(scope))
      throw new Failure(
        'idempotency_key_in_use',
        'a request with this Idempotency-Key is still being processed; retry shortly',
      );
    this.inFlight.add(scope);
    try {
      const body = await readBody();
      const fingerprint = hash('sha256', `${request}\n${canonicalJson(body)}`, 'hex');
      let saved = this.store.getIdempotency(scope);
      if (saved && this.clock.now() - saved.createdAtMs > TTL_MS) {
        this.store.deleteIdempotency(scope);
        saved = undefined;
      }
      if (saved) {
        if (saved.fingerprint !== fingerprint)
          throw new Failure(
            'idempotency_key_reused',
            'this Idempotency-Key was used with a different request; use a new key for a new request',
            'Idempotency-Key',
          );
        return { status: saved.status, body: saved.body, replayed: true };
      }
      return this.store.transaction(() => {
        const answer = perform(body);
        if (answer.status < 300) {
          this.store.saveIdempotency(scope, {
            fingerprint,
            status: answer.status,
            body: answer.body,
            createdAtMs: this.clock.now(),
          });
          // Kept 24 h; now and then the expired ones go, so a long-lived sandbox does not hoard them.
          if (++this.saved % 1000 === 0) this.store.sweepIdempotency(this.clock.now() - TTL_MS);
        }
        return answer;
      });
    } finally {
      this.inFlight.delete(scope);
    }
  }
}

/** JSON with sorted keys: the same request body, however its keys are ordered, has one fingerprint. */
export function canonicalJson(v: unknown): string {
  if (v === undefined) return '';
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  return `{${Object.keys(v)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonicalJson((v as Record<string, unknown>)[k])}`)
    .join(',')}}`;
}
