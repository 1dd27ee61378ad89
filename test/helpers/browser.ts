// Chromium for the console's tests: Debian's package (.ci/run installs it), driven by playwright-core with
// no browser download. Missing here, those tests are skipped with a line; under CI=true they fail.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Browser, Page } from 'playwright-core';
import { needTool } from './tools.js';

export const CHROMIUM = process.env.ORC_TEST_CHROMIUM ?? '/usr/bin/chromium';

export function haveChromium(): boolean {
  return needTool('chromium', 'the web console tests in a real browser', 'chromium');
}

export async function launch(): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  // The flags keep Chromium off the network (this machine's is closed) and quiet at start.
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
    ],
  });
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core's serious and critical violations on the page as it is now (WCAG 2.1 A and AA rules). */
export async function axeViolations(
  page: Page,
): Promise<Array<{ id: string; impact: string; help: string; nodes: string[] }>> {
  // Evaluated through the devtools protocol: the page's content policy (script-src 'self') stays as it is.
  // Once a page: the console moves between its pages without a load.
  if (!(await page.evaluate(() => Boolean((globalThis as any).axe)))) await page.evaluate(axeSource);
  const result = await page.evaluate(() =>
    (globalThis as any).axe.run((globalThis as any).document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] },
    }),
  );
  return (result.violations as any[])
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n: any) => n.target.join(' ')) }));
}
