// The live event stream of a run (SSE), opened after a given event id so a reconnect resumes.
import type { ApiClient, OpenStream } from '../client.js';

const enc = encodeURIComponent;

export class Events {
  constructor(private readonly client: ApiClient) {}

  open(runId: string, { lastEventId, signal }: { lastEventId?: number; signal?: AbortSignal } = {}): Promise<OpenStream> {
    return this.client.openStream(`/v1/runs/${enc(runId)}/events`, { headers: lastEventId ? { 'last-event-id': String(lastEventId) } : {}, ...(signal ? { signal } : {}) });
  }
}
