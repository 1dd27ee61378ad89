// Paths on the service, with ids checked and percent-encoded: `path\`/v1/runs/${id}/gates\``.
import { idProblem } from '../contract/ids.js';
import { InvalidIdError } from './errors.js';

/** A template tag: every interpolated value is an id, refused (exit 2) when it could not be one. */
export function path(strings: TemplateStringsArray, ...ids: string[]): string {
  let out = strings[0]!;
  ids.forEach((id, i) => {
    // From JavaScript an id may be anything: only a string goes into a path.
    if (typeof id !== 'string')
      throw new InvalidIdError(`an id must be a string, not ${id === null ? 'null' : typeof id}; nothing was sent`);
    const problem = idProblem(id);
    if (problem) throw new InvalidIdError(`the id ${JSON.stringify(id)} ${problem}; nothing was sent`);
    out += encodeURIComponent(id) + strings[i + 1]!;
  });
  return out;
}
