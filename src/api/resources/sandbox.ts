// The sandbox's admin API (/_sandbox/…, CONTRACT.md "Sandbox control"): its clock, triggers, faults, reset,
// export, journal and stats, as the shapes of src/contract/sandbox-control.ts. Only a sandbox answers these:
// `orc sandbox …`, the MCP server's sandbox tools and the library's `startSandbox` all call them here.
import type {
  AdvanceParams,
  AdvanceResult,
  ClockView,
  ConsoleLink,
  Fault,
  FaultList,
  FaultParams,
  FaultRemoved,
  FaultsCleared,
  JournalPage,
  ResetDone,
  SandboxStats,
  TriggerParams,
  TriggerResult,
} from '../../contract/sandbox-control.js';
import type { Answer, HttpClient } from '../http.js';
import { MAX_JSON_BYTES, readText } from '../answer.js';
import { path } from '../path.js';

/** Any JSON object: the admin answers are the sandbox's own, checked only to be objects. */
const isObject = (json: unknown): json is Record<string, unknown> =>
  json !== null && typeof json === 'object' && !Array.isArray(json);

export class SandboxAdmin {
  /** @internal */
  constructor(private readonly http: HttpClient) {}

  /** @internal An admin route's JSON answer, as the contract shapes it (the CLI's and MCP's way in). */
  call<T extends object>(method: string, target: string, body?: unknown): Promise<T> {
    return this.http.json({
      method,
      target,
      ...(body !== undefined ? { body } : {}),
      schema: (s) => s.AnyObject,
      quick: isObject,
    }) as Promise<T>;
  }

  /** Where the sandbox's time is, and the runs it still moves. */
  clock(): Promise<ClockView> {
    return this.call('GET', '/_sandbox/clock');
  }

  /** Moves the whole clock by a duration, or one run by a duration or to a point (a stage, `gate:NAME`, `end`). */
  advance(params: AdvanceParams): Promise<AdvanceResult> {
    return this.call('POST', '/_sandbox/clock/advance', params);
  }

  /** An event made for real, on a run or (without `run`) on a new fixture run. */
  trigger(params: TriggerParams): Promise<TriggerResult> {
    return this.call('POST', '/_sandbox/trigger', params);
  }

  addFault(params: FaultParams): Promise<Fault> {
    return this.call('POST', '/_sandbox/faults', params);
  }

  async faults(): Promise<Fault[]> {
    return (await this.call<FaultList>('GET', '/_sandbox/faults')).data;
  }

  removeFault(id: string): Promise<FaultRemoved> {
    return this.call('DELETE', path`/_sandbox/faults/${id}`);
  }

  clearFaults(): Promise<FaultsCleared> {
    return this.call('DELETE', '/_sandbox/faults');
  }

  /** Empties runs, webhooks, deliveries and faults; the key and the knobs stay. */
  reset(): Promise<ResetDone> {
    return this.call('POST', '/_sandbox/reset');
  }

  /** What the sandbox answered and delivered, after entry `after`. */
  logs(after = 0): Promise<JournalPage> {
    return this.call('GET', after ? `/_sandbox/logs?after=${after}` : '/_sandbox/logs');
  }

  stats(): Promise<SandboxStats> {
    return this.call('GET', '/_sandbox/stats');
  }

  consoleLink(): Promise<ConsoleLink> {
    return this.call('POST', '/_sandbox/console');
  }

  /** The snapshot (`orc sandbox export`) read whole: what `import` takes back. */
  exportSnapshot(): Promise<Record<string, unknown>> {
    return this.exportStream(
      async (a) => JSON.parse(await readText(a.body, MAX_JSON_BYTES)) as Record<string, unknown>,
    );
  }

  /** @internal The snapshot as it arrives (no cap on its size), read by `consume`; a body cut off is tried
   * again from the start when `retry` says so. */
  exportStream<T>(consume: (a: Answer) => Promise<T>, retry = true): Promise<T> {
    return this.http.exchange(
      { method: 'GET', target: '/_sandbox/export', deadline: false, ...(retry ? {} : { retries: 0 }) },
      consume,
    );
  }
}
