// The live event stream of a run (SSE), resumable after a given event id.
import type { HttpClient } from '../http.js';
import { path } from '../path.js';
import { readEventStream, type StreamOptions } from '../sse.js';

export class Events {
  constructor(private readonly http: HttpClient) {}

  stream(runId: string, opts: Omit<StreamOptions, 'what' | 'resumeHint'>) {
    return readEventStream(this.http, path`/v1/runs/${runId}/events`, {
      ...opts,
      what: `the event stream of ${runId}`,
      resumeHint: `The run goes on; watch again with \`orc watch ${runId}\`.`,
    });
  }
}
