// The flags of a spec change, in a module of their own: `spec edit`, `gate approve|reject` and `run retry`
// declare them, and a command's definition must not load the App Spec's schemas (zod) to do so.
import { flag } from '../define.js';

export const changeFlags = {
  set: flag.multi('path=value', 'set a field (dotted path; the value is JSON when it parses, else text); repeatable'),
  unset: flag.multi('path', 'remove a field or list item (dotted path); repeatable'),
  file: flag.string('patch.yaml|patch.json|-', 'apply a merge patch (YAML or JSON) from a file, or - for stdin', {
    complete: 'files',
  }),
} as const;
