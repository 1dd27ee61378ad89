// What every watch renderer does with the engine's events.
import type { WatchEvent } from '../../watch/engine.js';

export interface WatchRenderer {
  handle(ev: WatchEvent): void;
  /** The run's name for a person (null: none), said beside its id when first known and when it changes. */
  named?(runId: string, name: string | null): void;
  /** A line from orc itself: an automatic approval, a gate decided elsewhere. */
  note(text: string): void;
  /** Stop drawing while a prompt owns the terminal; resume() draws the current state again. */
  pause(): void;
  resume(): void;
  /** Final drawing; restores the terminal. Safe to call twice. `keepFrame`: leave the live view on screen (Ctrl-C). */
  finish(opts?: { keepFrame?: boolean }): void;
}
