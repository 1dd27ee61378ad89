// What is wrong with a field, in words a person can act on, from the first zod issue: the client (spec edit,
// run create) and the sandbox (its 400s) say it the same way. "required" only when nothing is there; the
// allowed values for an enum; "must be an array, not a string" for a wrong type; and for a union (a source
// that is a URL or a spec), the branch the input was meant for.
import type { $ZodIssue } from 'zod/v4/core';

export interface IssueText {
  /** The dotted path (`brand.palette.0`), empty for the root. */
  field: string;
  missing: boolean;
  message: string;
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let v = root;
  for (const key of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<PropertyKey, unknown>)[key];
  }
  return v;
}

function kindOf(v: unknown): string {
  return v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}

export function describeIssue(
  issues: readonly $ZodIssue[],
  input: unknown,
  prefix: readonly PropertyKey[] = [],
): IssueText {
  let issue = issues[0]!;
  let base: readonly PropertyKey[] = [];
  // A union: the branch whose first issue is not "wrong type at its root" is the one the input was meant for.
  while (issue.code === 'invalid_union' && 'errors' in issue && Array.isArray(issue.errors)) {
    const branches = issue.errors as $ZodIssue[][];
    const meant =
      branches.find((b) => b.length > 0 && !(b[0]!.code === 'invalid_type' && b[0]!.path.length === 0)) ?? branches[0];
    if (!meant?.length) break;
    base = [...base, ...issue.path];
    issue = meant[0]!;
  }
  const rel = [...base, ...issue.path];
  const path = [...prefix, ...rel];
  const field = path.map(String).join('.');
  const value = valueAt(input, rel);
  const missing =
    (issue.code === 'custom' && Boolean((issue.params as { missing?: boolean } | undefined)?.missing)) ||
    (issue.code !== 'custom' && value === undefined) ||
    (issue.code === 'too_small' && issue.origin === 'string' && Number(issue.minimum) === 1);
  let message: string;
  if (missing) message = 'required';
  else if (issue.code === 'invalid_value' && 'values' in issue)
    message = `must be one of ${(issue.values as unknown[]).map((v) => String(v)).join(', ')}, not ${JSON.stringify(value)}`;
  else if (issue.code === 'invalid_type')
    message = `must be ${/^[aeiou]/.test(issue.expected) ? 'an' : 'a'} ${issue.expected}, not ${kindOf(value)}`;
  else if (issue.code === 'too_small' && issue.origin === 'string') message = 'must not be empty';
  else message = issue.message.replace(/^Invalid input: /, '');
  return { field, missing, message };
}
