// The flags every command takes, declared once: main.ts, help, completion and the context all read this.
import { flag, type FlagValues } from './flags.js';

export const GLOBAL_FLAGS = {
  json: flag.bool('print one JSON document on stdout (for scripts)'),
  jq: flag.string('expression', 'filter the JSON through jq (implies --json); strings print raw, as jq -r does'),
  input: flag.negatable('never prompt; fail with exit 2 where input is needed'),
  accessible: flag.bool(
    'for screen readers: nothing redrawn, no spinner, progress every 10%, questions as numbered lines (ORC_ACCESSIBLE=1)',
  ),
  profile: flag.string(
    'name',
    'use this profile (default: ORC_PROFILE, then the active one, then the built-in sandbox)',
    { complete: 'profiles' },
  ),
  live: flag.bool('use the live key and the live service (default: the test key)'),
  baseUrl: flag.string('url', 'talk to this service address (default: ORC_BASE_URL, then the profile)'),
  timeout: flag.seconds('seconds', 'give up on the service after this long (watch and streams: their own idle rules)', {
    default: 120,
    min: 1,
  }),
  debug: flag.bool('show the HTTP exchange on stderr (keys redacted) and what the service sent that orc does not know'),
} as const;

export type GlobalFlagValues = FlagValues<typeof GLOBAL_FLAGS>;
