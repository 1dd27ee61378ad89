// zod/mini carries no error messages of its own ("Invalid input"); the places that show validation
// messages to people (the sandbox's error envelopes, `run create`'s checks) load the English ones.
import * as z from 'zod/mini';
import en from 'zod/v4/locales/en.js';

let loaded = false;
export function useEnglishMessages(): void {
  if (loaded) return;
  z.config(en());
  loaded = true;
}
