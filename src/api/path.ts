// Paths on the service, with ids checked and percent-encoded: `path\`/v1/runs/${id}/gates\``.
import { idProblem } from '../contract/ids.js';
import { InvalidIdError } from './errors.js';

/** A template tag: every interpolated value is an id, refused (exit 2) when it could not be one. */
export function path(strings: TemplateStringsArray, ...ids: string[]): string {
  let out = strings[0]!;
  ids.forEach((id, i) => {
    const problem = idProblem(id);
    if (problem) throw new InvalidIdError(`the id ${JSON.stringify(id)} ${problem}; nothing was sent`);
    out += encodeURIComponent(id) + strings[i + 1]!;
  });
  return out;
}
