// The service, one resource per noun, over the one HTTP exchange.
import { HttpClient, type HttpOptions } from './http.js';
import { Artifacts } from './resources/artifacts.js';
import { Events } from './resources/events.js';
import { Gates } from './resources/gates.js';
import { Runs } from './resources/runs.js';
import { SandboxAdmin } from './resources/sandbox.js';
import { Spec } from './resources/spec.js';
import { Webhooks } from './resources/webhooks.js';

export class Api {
  readonly runs: Runs;
  readonly gates: Gates;
  readonly spec: Spec;
  readonly artifacts: Artifacts;
  readonly webhooks: Webhooks;
  readonly events: Events;
  /** The sandbox's admin API: only a sandbox answers it. */
  readonly sandbox: SandboxAdmin;

  constructor(readonly http: HttpClient) {
    this.runs = new Runs(http);
    this.gates = new Gates(http);
    this.spec = new Spec(http);
    this.artifacts = new Artifacts(http);
    this.webhooks = new Webhooks(http);
    this.events = new Events(http);
    this.sandbox = new SandboxAdmin(http);
  }
}

export function createApi(options: HttpOptions): Api {
  return new Api(new HttpClient(options));
}
export { HttpClient };
export * from './errors.js';
