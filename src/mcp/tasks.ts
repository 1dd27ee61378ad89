// The tasks wait_for_run runs as (MCP tasks, in memory; the SDK also runs a plain call of it as one): the SDK's
// store, which also ends a task's wait when the client cancels the task (tasks/cancel) or the server closes —
// the store alone only marks it, and the wait would hold its event stream to the service until its timeout (up
// to an hour) — and bounds how many waits one server (a stdio client, an HTTP session) holds at once.
import { InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks';
import type { Task } from '@modelcontextprotocol/sdk/types.js';

/** Waits one server holds at once, each an event stream to the service (as many as requests an HTTP session
 * may hold open). */
export const MAX_WAITS = 16;

export class WaitTasks extends InMemoryTaskStore {
  private readonly live = new Map<string, AbortController>();

  constructor(readonly max = MAX_WAITS) {
    super();
  }

  /** Waits live now. */
  get size(): number {
    return this.live.size;
  }

  /** Task `taskId`'s wait begins: a signal that aborts when the task is cancelled or the store cleaned up; null
   * when `max` waits are live already. `end` it once the wait has ended. */
  begin(taskId: string): AbortSignal | null {
    if (this.live.size >= this.max) return null;
    const stop = new AbortController();
    this.live.set(taskId, stop);
    return stop.signal;
  }

  end(taskId: string): void {
    this.live.delete(taskId);
  }

  override async updateTaskStatus(
    taskId: string,
    status: Task['status'],
    statusMessage?: string,
    sessionId?: string,
  ): Promise<void> {
    await super.updateTaskStatus(taskId, status, statusMessage, sessionId);
    // A cancelled task's place is free at once (its wait may take a moment more to wind down).
    if (status === 'cancelled') {
      this.live.get(taskId)?.abort();
      this.live.delete(taskId);
    }
  }

  /** Every wait ended and every task's expiry timer cleared (the server closed: stdin, or an HTTP session). */
  override cleanup(): void {
    for (const stop of this.live.values()) stop.abort();
    this.live.clear();
    super.cleanup();
  }
}
