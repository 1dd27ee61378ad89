// How long the sandbox keeps events and deliveries (CONTRACT.md, Retention): 30 days of its own clock, and
// at most `keepDeliveries` deliveries (the newest). Applied by the clock, so a steered clock shows it: one
// timer, set for when the oldest thing kept turns 30 days old. What is pending stays until its attempts end.
import type { Clock } from '../lib/clock.js';
import type { Store } from './store.js';

export const RETENTION_DAYS = 30;
const RETENTION_MS = RETENTION_DAYS * 24 * 60 * 60 * 1000;
/** Expiry runs at most this often (sandbox time): a busy sandbox has something turning 30 days old every ms. */
const EVERY_MS = 60_000;
/** Rows let go in one transaction at most: a minute of a busy sandbox's events, deleted at once, held the
 * event loop for tens of ms. What is left goes in the turns after, requests answered between. */
const SLICE = 1024;

/** How the retention is said in an answer about something that expired. */
export function retentionSaid(keepDeliveries: number): string {
  return `${RETENTION_DAYS} days of its clock, and at most the newest ${keepDeliveries.toLocaleString('en')}`;
}

export class Retention {
  private cancel: (() => void) | null = null;
  private stopped = false;
  private capQueued = false;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    /** Lets the deliveries below a seq go (WebhookDispatcher.forgetBelow: the store's rows and its lists). */
    private readonly forgetBelow: (seq: number) => void,
    private readonly keepDeliveries: number,
    private readonly log: (line: string) => void,
  ) {}

  /** Told after events or deliveries were written: the cap is held, and the timer set if none is. */
  wrote = (): void => {
    if (this.stopped) return;
    const over = this.store.lastSeq() - this.store.expiredBelow - this.keepDeliveries;
    // (a slice at a time, not a row at each write: the rows go together, from the oldest page on; and off the
    // request whose event this is, which it would otherwise make wait)
    if (over >= Math.min(SLICE, Math.ceil(this.keepDeliveries / 16)) && !this.capQueued) {
      this.capQueued = true;
      setImmediate(() => {
        this.capQueued = false;
        const left = this.store.lastSeq() - this.store.expiredBelow - this.keepDeliveries;
        if (!this.stopped && left > 0)
          this.safely(() => this.forgetBelow(this.store.expiredBelow + Math.min(left, SLICE)));
      });
    }
    if (!this.cancel) this.safely(() => this.arm());
  };

  /** Expires what is older than 30 days now, then sets the timer for the next to turn 30 days old. */
  expire(): void {
    this.cancel = null;
    if (this.stopped) return;
    const cutoff = this.clock.now() - RETENTION_MS;
    let more = false;
    this.safely(() => {
      const below = this.store.deliverySeqAt(cutoff);
      this.forgetBelow(Math.min(below, this.store.expiredBelow + SLICE));
      more = this.store.pruneEventsBefore(cutoff, SLICE) === SLICE || this.store.expiredBelow < below;
    });
    if (!more) return this.safely(() => this.arm());
    this.cancel = this.clock.timer(0, () => this.expire(), { background: true, housekeeping: true });
  }

  /** Runs a step of expiry; one that fails (a full disk, a busy database) is said, and tried again later:
   * retention never takes the sandbox down. */
  private safely(step: () => void): void {
    try {
      step();
    } catch (err) {
      this.log(`sandbox: retention could not expire what is old: ${(err as Error).message}`);
      this.cancel ??= this.clock.timer(EVERY_MS, () => this.expire(), { background: true, housekeeping: true });
    }
  }

  stop(): void {
    this.stopped = true;
    this.cancel?.();
    this.cancel = null;
  }

  private arm(): void {
    this.cancel?.();
    this.cancel = null;
    const oldest = this.store.oldestKept();
    if (oldest === null) return;
    const wait = Math.max(EVERY_MS, oldest + RETENTION_MS - this.clock.now());
    this.cancel = this.clock.timer(wait, () => this.expire(), { background: true, housekeeping: true });
  }
}
