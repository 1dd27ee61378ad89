// Runs' names on the console's pages, read with contract/run-name.ts's one reader (six at a time, once per run)
// through the console's api, and shared by the pages: a run named in the list is not read again on its page.
import { useEffect, useReducer, useRef } from 'preact/hooks';
import { RunNameReader } from '../contract/run-name.js';
import { api } from './api.js';

export const runNames = new RunNameReader((id) => api('GET', `/v1/runs/${encodeURIComponent(id)}/spec`));

/** The names of the runs shown, each drawn as it arrives. A name being read again (its spec changed) keeps
 * showing the one it had until the new one comes. */
export function useRunNames(ids: readonly string[]): ReadonlyMap<string, string | null> {
  const [, redraw] = useReducer((n: number) => n + 1, 0);
  const shown = useRef(new Map<string, string | null>());
  useEffect(() => {
    let gone = false;
    for (const id of ids)
      if (runNames.peek(id) === undefined) void runNames.one(id).then(() => !gone && redraw(undefined));
    return () => {
      gone = true;
    };
  }, [ids]);
  for (const id of ids) {
    const name = runNames.peek(id);
    if (name !== undefined) shown.current.set(id, name);
  }
  return shown.current;
}
