// The tasks wait_for_run runs as (MCP tasks, in memory): the SDK's store, which also ends a task's wait when the
// client cancels the task (tasks/cancel) or the server closes — the store alone only marks it, and the wait
// would hold its event stream to the service until its timeout (up to an hour).
import { InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks';
import type { Task } from '@modelcontextprotocol/sdk/types.js';

export class WaitTasks extends InMemoryTaskStore {
  private readonly stops = new Map<string, AbortController>();

  /** Aborts when task `taskId` is cancelled or the store is cleaned up; `forget` it once the task has ended. */
  signalFor(taskId: string): AbortSignal {
    let stop = this.stops.get(taskId);
    if (!stop) this.stops.set(taskId, (stop = new AbortController()));
    return stop.signal;
  }

  forget(taskId: string): void {
    this.stops.delete(taskId);
  }

  override async updateTaskStatus(
    taskId: string,
    status: Task['status'],
    statusMessage?: string,
    sessionId?: string,
  ): Promise<void> {
    await super.updateTaskStatus(taskId, status, statusMessage, sessionId);
    if (status === 'cancelled') this.stops.get(taskId)?.abort();
  }

  /** Every wait ended and every task's expiry timer cleared (the server closed: stdin, or an HTTP session). */
  override cleanup(): void {
    for (const stop of this.stops.values()) stop.abort();
    this.stops.clear();
    super.cleanup();
  }
}
