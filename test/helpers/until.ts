// Waits for a condition the test can observe (a request seen, a line printed, an answer of the API), never
// for a fixed time. An asynchronous condition (an HTTP call) is awaited each time round.
export async function until(condition: () => boolean | Promise<boolean>, what = 'the condition', timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}
