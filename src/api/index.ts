// The service, one resource per noun, over one client.
import { ApiClient, type ClientOptions } from './client.js';
import { Artifacts } from './resources/artifacts.js';
import { Events } from './resources/events.js';
import { Gates } from './resources/gates.js';
import { Runs } from './resources/runs.js';
import { Spec } from './resources/spec.js';
import { Webhooks } from './resources/webhooks.js';

export class Api {
  readonly runs: Runs;
  readonly gates: Gates;
  readonly spec: Spec;
  readonly artifacts: Artifacts;
  readonly webhooks: Webhooks;
  readonly events: Events;

  constructor(readonly client: ApiClient) {
    this.runs = new Runs(client);
    this.gates = new Gates(client);
    this.spec = new Spec(client);
    this.artifacts = new Artifacts(client);
    this.webhooks = new Webhooks(client);
    this.events = new Events(client);
  }
}

export function createApi(options: ClientOptions): Api {
  return new Api(new ApiClient(options));
}
export { ApiClient };
export * from './errors.js';
