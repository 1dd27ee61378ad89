// The sandbox's domain: runs, the pipeline clock, gates, spec, scorecard. No HTTP here; the server
// translates requests into these calls and Failures into error envelopes. Every change is made on a copy
// of the run's record and handed to the store, which swaps it into memory only once it has committed:
// a change that could not be written leaves no trace, in lists, streams or the pipeline.
import { backoff } from '../lib/backoff.js';
import { randomBytes } from 'node:crypto';
import type { Clock } from '../lib/clock.js';
import { GATE_NAMES, STAGES, TERMINAL_EVENTS, TERMINAL_STATUSES, type GateName } from '../contract/events.js';
import { applyMergePatch } from '../lib/merge-patch.js';
import { AppSpecInput, type Gate, type RunCreateParams } from '../contract/schemas.js';
import { describedMeta } from './artifacts.js';
import { screenshotInputsOf } from './phone-screen.js';
import { Failure, failureFromZod } from './failure.js';
import { appIdFor, brandFor, initialSpec, listingFor, rejectionReasonFor, screensFor } from './generate.js';
import { reviewRejection, scorecardOf } from './rules.js';
import type { ArtifactMeta, GateRecord, RunRecord, StoredEvent, Store } from './store.js';

const GATE_AFTER: Partial<Record<string, GateName>> = {
  '02_concept': 'idea',
  '03_brand': 'brand',
  '07_scoring': 'final',
};
const BACK_TO: Record<GateName, string> = { idea: '02_concept', brand: '03_brand', final: '04_design' };
const TICKS = 4; // a stage reports 0, 25, 50, 75, 100 percent

/** Random bytes drawn a few KiB at a time: one system call per ~270 ids, not one per id. */
let pool = Buffer.alloc(0);
let poolAt = 0;
export function newId(prefix: string): string {
  if (poolAt + 15 > pool.length) {
    pool = randomBytes(4096);
    poolAt = 0;
  }
  const id = pool.toString('base64url', poolAt, poolAt + 15);
  poolAt += 15;
  return `${prefix}_${id}`;
}

type Level = 'info' | 'warn' | 'error';
/** Log lines per stage and tick: what a build and QA system would say. */
const LOGS: Record<string, Array<Array<[Level, string]>>> = {
  '01_intake': [
    [['info', 'Reading the request']],
    [['info', 'Normalising audience and monetization']],
    [['info', 'Checking for name collisions on the App Store']],
    [['info', 'Intake complete']],
  ],
  '02_concept': [
    [['info', 'Drafting the concept']],
    [['info', 'Choosing core features']],
    [['info', 'Writing the App Spec']],
    [['info', 'Concept ready for review']],
  ],
  '03_brand': [
    [['info', 'Generating palette candidates']],
    [['info', 'Pairing typefaces']],
    [['info', 'Checking contrast ratios (WCAG AA)']],
    [['info', 'Brand kit ready for review']],
  ],
  '04_design': [
    [['info', 'Laying out screens']],
    [['info', 'Building the component library']],
    [['info', 'Rendering screenshots']],
    [['info', 'Design complete']],
  ],
  '05_build': [
    [
      ['info', 'Resolving Swift packages (14 dependencies)'],
      ['info', 'Compiling Swift sources (1/412)'],
    ],
    [
      ['info', 'Compiling Swift sources (206/412)'],
      ['warn', "warning: 'UIApplication.keyWindow' was deprecated in iOS 13.0"],
    ],
    [
      ['info', 'Compiling Swift sources (412/412)'],
      ['info', 'Linking'],
    ],
    [
      ['info', 'Code signing with the sandbox distribution certificate'],
      ['info', 'Archive succeeded'],
    ],
  ],
  '06_qa': [
    [['info', 'Booting simulators: iPhone 16 Pro, iPhone SE (3rd generation)']],
    [
      ['info', 'UI tests: 48 passed, 0 failed'],
      ['warn', 'Snapshot differs by 0.4% on Settings (within tolerance)'],
    ],
    [['info', 'Accessibility audit: 0 issues']],
    [['info', 'QA complete']],
  ],
  '07_scoring': [
    [['info', 'Scoring visual beauty']],
    [['info', 'Scoring harmony']],
    [['info', 'Running pre-flight checks']],
    [['info', 'Scorecard ready']],
  ],
  '08_submission': [
    [['info', 'Uploading build to App Store Connect']],
    [['info', 'Processing build']],
    [['info', 'Submitting for review']],
    [['info', 'Submitted']],
  ],
  '09_review': [
    [['info', 'Waiting for review']],
    [['info', 'In review']],
    [['info', 'Review finishing']],
    [['info', 'Review complete']],
  ],
};

export interface ServiceOptions {
  stageMs: number;
  seed: number;
  clock: Clock;
  /** One line about something that went wrong and was handled (a tick retried). */
  log: (line: string) => void;
}

export type EventListener = (runId: string, ev: StoredEvent, terminal: boolean) => void;
export type StageListener = (runId: string, stage: string) => void;

/**
 * Ends a run that may wait at a gate: an ended run has no pending gate, and the one it waited at goes back to
 * waiting (CONTRACT.md, Cancel); its history stays.
 */
function endRun(rec: RunRecord, status: 'failed' | 'canceled', now: string): void {
  const pending = rec.run.gate_pending as GateName | null;
  if (pending && rec.gates[pending])
    Object.assign(rec.gates[pending], { state: 'waiting', decided_at: null, notes: null });
  Object.assign(rec.run, { status, gate_pending: null, updated_at: now });
}

/**
 * Submission needs the build: a run waits at the start of 08_submission until its ipa and screenshots are
 * described (a large ipa takes a while), so it is never accepted before they can be pulled.
 */
function waitsForBuild(rec: RunRecord): boolean {
  return (
    STAGES[rec.stageIndex] === '08_submission' &&
    rec.tick === 0 &&
    !(describedMeta(rec, 'ipa') && describedMeta(rec, 'screenshots'))
  );
}

/** A failed tick is tried again after this long, doubling, up to the cap. */
const TICK_RETRY_MS = 200;
const TICK_RETRY_MAX_MS = 5_000;

export class SandboxService {
  /** Each moving run's next tick, as the clock's cancel function. */
  private readonly timers = new Map<string, () => void>();
  /** Ticks of a run that failed in a row (the database busy or failing), for the retry backoff. */
  private readonly tickFailures = new Map<string, number>();
  private readonly listeners = new Set<EventListener>();
  private readonly stageListeners = new Set<StageListener>();
  private stopped = false;

  constructor(
    readonly store: Store,
    readonly opts: ServiceOptions,
  ) {}

  /** Picks up every run that was moving when the sandbox last stopped. */
  start(): void {
    for (const id of this.store.runs.idsWhere(['running'])) this.schedule(id);
  }

  stop(): void {
    this.stopped = true;
    for (const cancel of this.timers.values()) cancel();
    this.timers.clear();
    try {
      // where a restart's clock begins, at the earliest (a steered clock may have moved past the last event)
      this.store.saveLatestTime(this.opts.clock.now());
    } catch (err) {
      this.opts.log(`sandbox: the clock's time could not be saved: ${(err as Error).message}`);
    }
  }

  /** Drops every run's next tick (a reset emptied the store). */
  forgetRuns(): void {
    for (const cancel of this.timers.values()) cancel();
    this.timers.clear();
    this.buildWaits.clear();
    this.tickFailures.clear();
  }

  /** Told (after the commit) when a run completes a stage. */
  onStageComplete(fn: StageListener): void {
    this.stageListeners.add(fn);
  }

  /** Keeps the description of a binary artifact with its run, if it still describes the current build. */
  setArtifactMeta(runId: string, kind: 'screenshots' | 'ipa', meta: ArtifactMeta): void {
    const rec = this.store.runs.get(runId);
    if (!rec || (rec.artifactTimes[kind] ?? '') !== meta.at) return;
    const done = this.change(rec, (next) => (next.artifactMeta = { ...next.artifactMeta, [kind]: meta }), {
      reschedule: false,
    });
    // A run that waits for its build has no next tick (see schedule): the description is what moves it on.
    if (this.buildWaits.has(runId) && done.run.status === 'running' && !this.timers.has(runId)) this.schedule(runId);
    for (const wake of this.buildWaiters.splice(0)) wake();
  }

  /** Running runs that wait at 08_submission for their build to be described (asked after every timer an
   * advance fires, so it looks only at the runs a tick found waiting, not at every run). */
  waitingForBuild(): string[] {
    const ids: string[] = [];
    for (const id of this.buildWaits) {
      const rec = this.store.runs.get(id);
      if (rec && rec.run.status === 'running' && waitsForBuild(rec)) ids.push(id);
      else this.buildWaits.delete(id);
    }
    return ids;
  }

  /** Resolves when the next build is described. */
  nextBuildDescribed(): Promise<void> {
    return new Promise<void>((resolve) => this.buildWaiters.push(resolve));
  }

  /** Runs a tick found waiting for their build (see waitingForBuild). */
  private readonly buildWaits = new Set<string>();

  /** Steps waiting for a build to be described (stepRun at 08_submission). */
  private readonly buildWaiters: Array<() => void> = [];

  /** How long one tick of a stage lasts, in the sandbox's time. */
  get tickLength(): number {
    return this.tickMs;
  }

  /**
   * Moves one run on by itself, tick after tick, now: until `until(run)` holds, the run stops running (a
   * gate waits, or it ended), or `budgetMs` of its pipeline time is used. Every tick is the same change a
   * timer would make (events, webhooks, the stream); the clock is not moved, so timestamps never go back.
   * With `approve`, a gate that opens on the way is approved (a fixture driven to a later point).
   */
  async stepRun(
    runId: string,
    {
      until = () => false,
      budgetMs = Number.POSITIVE_INFINITY,
      approve = false,
    }: { until?: (rec: RunRecord) => boolean; budgetMs?: number; approve?: boolean } = {},
  ): Promise<{ reached: boolean; ticks: number }> {
    let ticks = 0;
    let used = 0;
    for (let guard = 0; guard < 10_000; guard++) {
      const rec = this.getRun(runId);
      if (until(rec)) return { reached: true, ticks };
      if (approve && rec.run.status === 'awaiting_approval' && rec.run.gate_pending) {
        this.decide(runId, rec.run.gate_pending, 'approved', null);
        continue;
      }
      if (rec.run.status !== 'running' || used >= budgetMs) return { reached: false, ticks };
      if (waitsForBuild(rec)) {
        // The build is being described (a large ipa takes a while): its description wakes this up.
        await new Promise<void>((resolve) => this.buildWaiters.push(resolve));
        continue;
      }
      this.clearTimer(runId);
      this.change(rec, (next, events) => this.advance(next, events));
      ticks++;
      used += this.tickMs;
    }
    return { reached: until(this.getRun(runId)), ticks };
  }

  /** Fails a running run at its current stage with this error, as a build failure does. */
  failRun(runId: string, error: { code: string; message: string }): RunRecord {
    const rec = this.getRun(runId);
    if (isTerminal(rec))
      throw new Failure('run_not_active', `run ${runId} is ${rec.run.status}; it can no longer fail`);
    this.clearTimer(runId);
    return this.change(rec, (next, events) => {
      endRun(next, 'failed', this.now());
      events.push(this.log(next, next.run.stage, 'error', `error: ${error.message}`));
      events.push(this.event(next, 'run.failed', { stage: next.run.stage, error }));
    });
  }

  /** App review rejects a run that waits in 09_review (or any running run) with this reason. */
  rejectRun(runId: string, reason: string): RunRecord {
    const rec = this.getRun(runId);
    if (isTerminal(rec))
      throw new Failure('run_not_active', `run ${runId} is ${rec.run.status}; it can no longer be rejected`);
    this.clearTimer(runId);
    return this.change(rec, (next, events) => {
      Object.assign(next.run, { status: 'rejected', gate_pending: null, updated_at: this.now() });
      events.push(this.event(next, 'run.rejected', { reason }));
    });
  }

  /** Runs still moving, each with the stage it is in. */
  moving(): RunRecord[] {
    return this.store.runs.idsWhere(['running', 'awaiting_approval']).map((id) => this.store.runs.get(id)!);
  }

  onEvent(fn: EventListener): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private get tickMs(): number {
    return Math.max(1, this.opts.stageMs / (TICKS + 1));
  }

  private nowMs = -1;
  private nowIso = '';

  /** The time as ISO 8601; the string is made once per millisecond (a create asks for it five times). */
  private now(): string {
    const ms = this.opts.clock.now();
    if (ms !== this.nowMs) {
      this.nowMs = ms;
      this.nowIso = new Date(ms).toISOString();
    }
    return this.nowIso;
  }

  /** Every run oldest first, by its list fields (seq and `run`), as a view of the store's order: nothing is
   * copied or read from the database, a page reads only its runs. */
  allRuns(): { readonly length: number; at(i: number): { seq: number; run: RunRecord['run'] } | undefined } {
    const order = this.store.runOrder;
    const runs = this.store.runs;
    return {
      get length() {
        return order.length;
      },
      at: (i) => {
        const id = order[i];
        return id === undefined ? undefined : runs.view(id);
      },
    };
  }

  /** Runs oldest first, optionally of one status, by their list fields. */
  listRuns(status: string | null): Array<{ seq: number; run: RunRecord['run'] }> {
    const out: Array<{ seq: number; run: RunRecord['run'] }> = [];
    for (const id of this.store.runOrder) {
      const v = this.store.runs.view(id)!;
      if (status === null || v.run.status === status) out.push(v);
    }
    return out;
  }

  /** The run's events so far, in order. */
  eventsOf(runId: string): readonly StoredEvent[] {
    return this.store.eventsOf(runId);
  }

  getRun(id: string): RunRecord {
    const rec = this.store.runs.get(id);
    if (!rec) throw new Failure('run_not_found', `no run with id ${JSON.stringify(id)}`, 'id');
    return rec;
  }

  createRun(params: RunCreateParams): RunRecord {
    const now = this.now();
    const { text, magic, spec } = initialSpec(params, this.opts.seed);
    const gate = (name: GateName): GateRecord => ({
      name,
      state: 'waiting',
      decided_at: null,
      notes: null,
      history: [],
    });
    const rec: RunRecord = {
      seq: this.store.nextSeq(),
      run: {
        id: newId('run'),
        mode: params.mode,
        status: 'running',
        stage: STAGES[0],
        gate_pending: null,
        app_id: null,
        created_at: now,
        updated_at: now,
      },
      spec,
      gates: { idea: gate('idea'), brand: gate('brand'), final: gate('final') },
      text,
      magic,
      stageIndex: 0,
      tick: 0,
      furthest: -1,
      scorecard: null,
      appStoreUrl: null,
      lastEventSeq: 0,
      artifactTimes: {},
      artifactInputs: {},
    };
    // A record no one else holds yet: it is its own copy.
    return this.change(
      rec,
      (next, events) => {
        events.push(this.event(next, 'run.created', { mode: params.mode }));
        this.advance(next, events);
      },
      { fresh: true },
    );
  }

  cancel(id: string): RunRecord {
    const rec = this.getRun(id);
    if (rec.run.status === 'canceled') return rec;
    if (isTerminal(rec))
      throw new Failure('run_not_active', `run ${id} is ${rec.run.status} and can no longer be canceled`);
    const done = this.change(rec, (next, events) => {
      endRun(next, 'canceled', this.now());
      events.push(this.event(next, 'run.canceled', { stage: next.run.stage, reason: 'canceled by a user' }));
    });
    this.clearTimer(id);
    return done;
  }

  decide(
    id: string,
    name: string,
    decision: 'approved' | 'rejected',
    notes: string | null,
  ): { gate: Gate; run: RunRecord['run'] } {
    const rec = this.getRun(id);
    if (!(GATE_NAMES as readonly string[]).includes(name))
      throw new Failure('unknown_gate', `unknown gate ${JSON.stringify(name)}: one of idea, brand, final`, 'gate');
    if (isTerminal(rec))
      throw new Failure('run_not_active', `run ${id} is ${rec.run.status}; its gates can no longer be decided`);
    const gateName = name as GateName;
    const gate = rec.gates[gateName];
    if (gate.state !== 'pending' || rec.run.gate_pending !== gateName)
      throw new Failure(
        'gate_not_pending',
        `gate ${gateName} is ${gate.state}, not pending (run ${rec.run.status})`,
        'gate',
      );
    const done = this.change(rec, (next, events) => {
      const now = this.now();
      const decided = next.gates[gateName];
      Object.assign(decided, { state: decision, decided_at: now, notes });
      decided.history.push({ decision, notes, decided_at: now });
      Object.assign(next.run, { status: 'running', gate_pending: null, updated_at: now });
      events.push(this.event(next, 'run.gate_resolved', { gate: gateName, decision, notes }));
      next.stageIndex =
        decision === 'approved'
          ? STAGES.indexOf(next.run.stage as (typeof STAGES)[number]) + 1
          : STAGES.indexOf(BACK_TO[gateName] as (typeof STAGES)[number]);
      next.tick = 0;
      this.advance(next, events);
    });
    return { gate: { ...done.gates[gateName] }, run: done.run };
  }

  patchSpec(id: string, patch: unknown): RunRecord {
    const rec = this.getRun(id);
    const open =
      rec.run.status === 'awaiting_approval' || (rec.run.status === 'running' && rec.gates.final.state !== 'approved');
    if (!open)
      throw new Failure(
        'spec_locked',
        `the spec of run ${id} is locked (run ${rec.run.status}${rec.gates.final.state === 'approved' ? ', final gate approved' : ''})`,
      );
    if (patch === null || typeof patch !== 'object' || Array.isArray(patch))
      throw new Failure('invalid_value', 'a merge patch must be a JSON object');
    const merged = applyMergePatch(rec.spec, patch);
    const parsed = AppSpecInput.safeParse(merged);
    if (!parsed.success) throw failureFromZod(parsed.error, merged);
    return this.change(rec, (next) => {
      next.spec = merged as RunRecord['spec'];
      next.run.updated_at = this.now();
      next.artifactTimes.spec = next.run.updated_at;
    });
  }

  /**
   * One change of a run: made on a copy, written in one transaction, swapped into memory only after it
   * commits, then announced and (if the run moves on) its next tick scheduled. A failure anywhere before
   * the commit leaves memory, disk, watchers and the pipeline as they were.
   */
  private change(
    rec: RunRecord,
    mutate: (next: RunRecord, events: StoredEvent[]) => void,
    { reschedule = true, fresh = false } = {},
  ): RunRecord {
    // Plain data: a JSON round trip copies it faster than structuredClone.
    const next = fresh ? rec : (JSON.parse(JSON.stringify(rec)) as RunRecord);
    const events: StoredEvent[] = [];
    this.store.transaction(() => {
      mutate(next, events);
      this.store.saveRun(next);
      this.publish(next, events);
      this.store.afterCommit(() => {
        if (reschedule && next.run.status === 'running') this.schedule(next.run.id);
      });
    });
    return next;
  }

  /** Moves a run one tick: reports progress and logs, and at a stage's end opens a gate, finishes, or moves on. */
  private advance(rec: RunRecord, events: StoredEvent[]): void {
    if (waitsForBuild(rec)) return;
    const stage = STAGES[rec.stageIndex]!;
    const t = rec.tick;
    rec.run.stage = stage;
    rec.run.updated_at = this.now();
    events.push(this.event(rec, 'run.stage_changed', { stage, percent: t * (100 / TICKS) }));
    for (const [level, message] of t > 0 ? (LOGS[stage]?.[t - 1] ?? []) : [])
      events.push(this.log(rec, stage, level, message));
    if (stage === '05_build' && rec.magic.fail && t === 2) {
      events.push(
        this.log(
          rec,
          stage,
          'error',
          "error: Command SwiftCompile failed with a nonzero exit code (AppDelegate.swift:42: cannot find 'Analytics' in scope)",
        ),
      );
      rec.run.status = 'failed';
      events.push(
        this.event(rec, 'run.failed', {
          stage,
          error: { code: 'build_failed', message: 'xcodebuild archive failed: 1 error in AppDelegate.swift' },
        }),
      );
      return;
    }
    if (t < TICKS) {
      rec.tick++;
      return;
    }
    // The stage is complete.
    this.completeStage(rec, stage, events);
    const gate = GATE_AFTER[stage];
    if (gate) {
      Object.assign(rec.gates[gate], { state: 'pending', decided_at: null, notes: null });
      Object.assign(rec.run, { status: 'awaiting_approval', gate_pending: gate });
      events.push(this.event(rec, 'run.gate_pending', { gate, stage }));
      return;
    }
    if (rec.stageIndex === STAGES.length - 1) {
      // `#reject` is a fate; otherwise review rejects what the spec gives it a reason to (rules.ts).
      const reason = rec.magic.reject ? rejectionReasonFor(this.opts.seed, rec.text) : reviewRejection(rec.spec);
      if (reason) {
        rec.run.status = 'rejected';
        events.push(this.event(rec, 'run.rejected', { reason }));
      } else {
        const appId = appIdFor(this.opts.seed, rec.text, rec.run.id);
        rec.appStoreUrl = `https://apps.apple.com/app/id${appId}`;
        Object.assign(rec.run, { status: 'accepted', app_id: appId });
        events.push(this.event(rec, 'run.accepted', { app_id: appId, app_store_url: rec.appStoreUrl }));
      }
      return;
    }
    rec.stageIndex++;
    rec.tick = 0;
  }

  private completeStage(rec: RunRecord, stage: string, events: StoredEvent[]): void {
    const index = STAGES.indexOf(stage as (typeof STAGES)[number]);
    rec.furthest = Math.max(rec.furthest, index);
    const runId = rec.run.id;
    this.store.afterCommit(() => {
      for (const fn of this.stageListeners) fn(runId, stage);
    });
    const now = rec.run.updated_at!;
    const touch = (...kinds: string[]) => kinds.forEach((k) => (rec.artifactTimes[k] = now));
    if (stage === '02_concept') {
      rec.spec = listingFor(rec.spec, this.opts.seed, rec.text) as RunRecord['spec'];
      touch('spec', 'metadata');
    }
    if (stage === '03_brand') {
      rec.spec.brand = { ...brandFor(this.opts.seed, rec.text), ...rec.spec.brand };
      touch('spec', 'metadata');
    }
    if (stage === '04_design') {
      rec.spec.screens ??= screensFor(this.opts.seed, rec.text);
      rec.artifactInputs.screenshots = screenshotInputsOf(rec.spec);
      touch('spec', 'screenshots');
    }
    if (stage === '05_build') {
      rec.artifactInputs.ipa = {
        name: rec.spec.name,
        ...(rec.spec.bundle_id ? { bundle_id: rec.spec.bundle_id } : {}),
      };
      touch('ipa');
    }
    if (stage === '07_scoring') {
      rec.scorecard = scorecardOf(rec.spec);
      touch('scorecard', 'preflight');
      events.push(this.event(rec, 'run.scored', { score: rec.scorecard.score, passed: rec.scorecard.passed }));
    }
  }

  /** The run's next tick, read from memory when it fires: always the committed record. */
  private schedule(runId: string, delayMs = this.tickMs): void {
    if (this.stopped) return;
    this.clearTimer(runId);
    const cancel = this.opts.clock.timer(delayMs, () => {
      this.timers.delete(runId);
      const rec = this.store.runs.get(runId);
      if (!rec || rec.run.status !== 'running') return;
      // Waiting for the build: nothing to write, and no next tick until it is described (setArtifactMeta).
      // Looking again every tick would be a busy loop on a clock whose short waits pass at once (a test's),
      // taking turns from the describing it waits for.
      if (waitsForBuild(rec)) return void this.buildWaits.add(runId);
      try {
        this.change(rec, (next, events) => this.advance(next, events));
        this.tickFailures.delete(runId);
      } catch (err) {
        // Not recorded, so not happened: the run stays where the database has it, and the tick is tried
        // again with backoff (the database busy for a while must not stop a run for good).
        const failures = (this.tickFailures.get(runId) ?? 0) + 1;
        this.tickFailures.set(runId, failures);
        const retryMs = backoff(failures - 1, { baseMs: TICK_RETRY_MS, capMs: TICK_RETRY_MAX_MS });
        this.opts.log(
          `sandbox: run ${runId} could not advance (${(err as Error).message}); trying again in ${retryMs} ms`,
        );
        this.schedule(runId, retryMs);
      }
    });
    this.timers.set(runId, cancel);
  }

  private clearTimer(runId: string): void {
    this.timers.get(runId)?.();
    this.timers.delete(runId);
  }

  private event(rec: RunRecord, type: string, data: Record<string, unknown>): StoredEvent {
    const seq = ++rec.lastEventSeq;
    const json = JSON.stringify({ id: newId('evt'), type, created_at: this.now(), run_id: rec.run.id, data });
    const ev = { seq, type, json };
    this.store.appendEvent(rec.run.id, ev);
    return ev;
  }

  private log(rec: RunRecord, stage: string, level: Level, message: string): StoredEvent {
    return this.event(rec, 'log', { stage, level, message, ts: this.now() });
  }

  /** Tells listeners only after the transaction committed: nothing is announced that could still be lost. */
  private publish(rec: RunRecord, events: StoredEvent[]): void {
    if (events.length === 0) return;
    this.store.afterCommit(() => {
      for (const ev of events)
        for (const fn of this.listeners) {
          try {
            fn(rec.run.id, ev, TERMINAL_EVENTS.has(ev.type));
          } catch (err) {
            // A listener's trouble (a webhook record that could not be written) must not undo an acknowledged change.
            this.opts.log(`sandbox: event listener failed: ${(err as Error).message}`);
          }
        }
    });
  }
}

export function isTerminal(rec: RunRecord): boolean {
  return TERMINAL_STATUSES.has(rec.run.status);
}
