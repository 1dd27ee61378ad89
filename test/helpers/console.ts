// A console signed in once in a real browser (Debian's Chromium through playwright-core), against a real
// `orc sandbox start --clock manual` process, with the link `orc sandbox console --json` prints, as a user
// would; and the few moves the console's end-to-end tests make through the API beside it.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { haveChromium, launch } from './browser.js';
import { http, manualSandbox } from './steer.js';

export function signedInConsole() {
  const run = haveChromium();
  const manual = manualSandbox();
  let browser: Browser;
  let context: BrowserContext;

  beforeAll(async () => {
    if (!run) return;
    browser = await launch();
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    context.setDefaultTimeout(15_000);
    // Signed in once, as a user would: the link `orc sandbox console --json` prints.
    const out = await manual.ctl(['console', '--json']);
    expect(out.exitCode, out.stderr).toBe(0);
    const { url } = JSON.parse(out.stdout);
    const page = await context.newPage();
    await page.goto(url);
    expect(new URL(page.url()).pathname).toBe('/console/');
    await page.close();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });

  const advance = async (id: string, to: string) => {
    const r = await http(manual.url, 'POST', '/_sandbox/clock/advance', { run: id, to });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
  };
  const gateState = async (id: string, name: string) =>
    (await http(manual.url, 'GET', `/v1/runs/${id}/gates`)).body.data.find((g: { name: string }) => g.name === name)
      .state;
  const open = async (path: string): Promise<Page> => {
    const page = await context.newPage();
    page.on('dialog', (d) => {
      throw new Error(`a browser dialog opened: ${d.message()}`);
    });
    await page.goto(`${manual.url}${path}`);
    return page;
  };
  return {
    run,
    manual,
    open,
    advance,
    gateState,
    /** The browser and its signed-in context, once beforeAll has made them. */
    get browser(): Browser {
      return browser;
    },
    get context(): BrowserContext {
      return context;
    },
  };
}
