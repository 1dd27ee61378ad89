// Ids that go into URL paths (CONTRACT.md, limits on input): never empty, `.` or `..`, never with `/` or a
// control character. Both sides check: the client before it sends anything, the service on what it gets.

const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** What is wrong with an id for a path segment, or null. */
export function idProblem(id: string): string | null {
  if (id === '') return 'must not be empty';
  if (id === '.' || id === '..') return `must not be ${JSON.stringify(id)}`;
  if (id.includes('/')) return 'must not contain /';
  if (CONTROL.test(id)) return 'must not contain control characters';
  return null;
}
