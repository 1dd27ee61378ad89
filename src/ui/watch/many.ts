// The view of several runs watched together: at a terminal a line per run (stage and progress, a gate
// pending, the outcome) redrawn in place; piped or --accessible a line per change with the run's id; under
// --json the events as NDJSON (each carries its run_id), and orc's own words on stderr, never stdout.
import { TERMINAL_STATUSES } from '../../contract/events.js';
import type { WatchEvent } from '../../watch/engine.js';
import type { IO } from '../io.js';
import type { LiveRegion } from '../live-region.js';
import { oneLine } from '../../lib/sanitize.js';
import type { Style } from '../style.js';
import { describeEvent } from './describe.js';
import { displayWidth } from '../width.js';

interface Row {
  /** The run's name for a person (commands/watch/many.ts reads it); null while unknown or when it has none. */
  name: string | null;
  stage: string;
  percent: number;
  gate: string | null;
  outcome: string | null;
}

export type ManyMode = 'tty' | 'plain' | 'ndjson';

export class ManyRenderer {
  private readonly rows: Map<string, Row>;
  private readonly width: number;
  private region: LiveRegion | null = null;
  /** A line per run: no scorecard is drawn (the final gate's question shows it). */
  readonly drawsScores = false;

  constructor(
    private readonly io: IO,
    private readonly style: Style,
    ids: string[],
    private readonly mode: ManyMode,
  ) {
    this.rows = new Map(ids.map((id) => [id, { name: null, stage: '…', percent: 0, gate: null, outcome: null }]));
    this.width = Math.max(...ids.map((id) => id.length));
  }

  /** At a terminal: the live region (loaded only then), drawn once before any event. */
  async start(): Promise<void> {
    if (this.mode !== 'tty') return;
    const { LiveRegion } = await import('../live-region.js');
    this.region = new LiveRegion(this.io.streams.stdout, () => this.io.columns);
    this.draw();
  }

  handle(id: string, ev: WatchEvent): void {
    if (ev.kind !== 'event' && ev.kind !== 'log') return;
    if (this.mode === 'ndjson') return void this.io.streams.stdout.write(this.io.jsonLine(ev.raw ?? ev.event, ev.text));
    if (ev.kind === 'log') return;
    const row = this.rows.get(id)!;
    const { type, data } = ev.event;
    if (type === 'run.stage_changed') {
      const next = data.stage ?? row.stage;
      const tenth = Math.floor((data.percent ?? 0) / 10);
      const moved = next !== row.stage || tenth > Math.floor(row.percent / 10);
      if (!this.region && moved) this.say(id, `${oneLine(next)} ${tenth * 10}%`);
      row.stage = next;
      row.percent = data.percent ?? row.percent;
    } else {
      if (type === 'run.gate_pending') row.gate = data.gate ?? null;
      if (type === 'run.gate_resolved') row.gate = null;
      if (TERMINAL_STATUSES.has(type.slice(4))) row.outcome = type.slice(4);
      this.say(id, describeEvent(ev.event));
    }
    this.draw();
  }

  /** The run's name, read when it joined the view and again when its spec may have changed. */
  named(id: string, name: string | null): void {
    this.rows.get(id)!.name = name === null ? null : oneLine(name);
    this.draw();
  }

  /** A line from orc itself about a run (an automatic approval, a gate decided elsewhere, the stream lost). */
  note(id: string, text: string): void {
    if (this.mode === 'ndjson') return this.io.info(`orc: ${id} ${oneLine(text)}`);
    this.say(id, oneLine(text));
  }

  pause(): void {
    this.region?.pause();
  }

  resume(): void {
    this.region?.resume();
    this.draw();
  }

  finish(): void {
    this.region?.close({ keep: true });
  }

  private say(id: string, text: string): void {
    if (this.region) this.region.print([`${id}  ${text}`]);
    else this.io.out(`${id} ${text}`);
  }

  private draw(): void {
    if (!this.region) return;
    const rows = [...this.rows];
    const wide = Math.max(0, ...rows.map(([, row]) => displayWidth(row.name ?? '')));
    const name = (row: Row) => (wide ? `${row.name ?? ''}${' '.repeat(wide - displayWidth(row.name ?? ''))}  ` : '');
    this.region.render(rows.map(([id, row]) => `${id.padEnd(this.width)}  ${name(row)}${this.state(row)}`));
  }

  private state(row: Row): string {
    const { style } = this;
    if (row.outcome === 'accepted') return style.green(`✓ ${row.outcome}`);
    if (row.outcome) return style.red(`✗ ${row.outcome}`);
    if (row.gate) return style.yellow(`‖ gate ${oneLine(row.gate)} pending`);
    return `${oneLine(row.stage)} ${String(row.percent).padStart(3)}%`;
  }
}
