// Runs' names for the CLI's views that show runs to a person (lists, the picker, the inbox, watch, completion):
// the one reader of contract/run-name.ts (shared with the console), reading specs through the client's api.
import { type NameMemory, RunNameReader } from '../contract/run-name.js';
import type { Api } from './index.js';

export class RunNames extends RunNameReader {
  constructor(api: Api, memory?: NameMemory) {
    // Looked up at each read, not bound once: the api's spec resource is the one a test or a wrapper sees.
    super((runId) => api.spec.retrieve(runId), memory);
  }
}
