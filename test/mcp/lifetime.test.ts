// orc's MCP server lives as long as its client: a request made long after the first one gets the whole
// --timeout (120 s), not what was left of one deadline counted from the first (which refused every request
// after two minutes, over stdio and HTTP alike). The client's clock is a fake one, stepped past the deadline.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { FakeClock } from '../helpers/clock.js';
import { inProcessMcp } from '../helpers/mcp.js';
import { KEY, startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startTestSandbox({ stageMs: 3_600_000 });
});
afterAll(() => sb.close());

it('answers a tool call made an hour after its first request', async () => {
  const clock = new FakeClock();
  const { client, close } = await inProcessMcp({ baseUrl: sb.url, apiKey: KEY, clock });
  try {
    const list = async () =>
      (await client.callTool({ name: 'list_runs', arguments: {} })) as unknown as {
        isError?: boolean;
        content: [{ text: string }];
      };
    expect((await list()).isError, 'the first').toBeFalsy();
    clock.advance(3_600_000);
    const later = await list();
    expect(later.isError, later.content[0].text).toBeFalsy();
  } finally {
    await close();
  }
});
