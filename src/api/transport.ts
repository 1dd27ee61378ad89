// The HTTP transport: undici's Agent and request API, and nothing else of undici.
// Importing 'undici' whole also loads fetch, WebSocket, caches, mocks and proxies, which costs about
// 60 ms at every start; these three internal modules are what a request needs (pinned by the lock file).
// @ts-expect-error internal module without its own types; typed below from undici's public types
import AgentImpl from 'undici/lib/dispatcher/agent.js';
// @ts-expect-error as above
import DispatcherImpl from 'undici/lib/dispatcher/dispatcher.js';
// @ts-expect-error as above
import requestImpl from 'undici/lib/api/api-request.js';
import type { Agent as AgentType } from 'undici';

(DispatcherImpl as { prototype: Record<string, unknown> }).prototype.request ??= requestImpl;

export const Agent = AgentImpl as typeof AgentType;
export type Agent = AgentType;
