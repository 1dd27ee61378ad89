// Waits for a condition the test can observe (a request seen, a line printed), never for a fixed time.
export async function until(condition: () => boolean, what = 'the condition', timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}
