// The web console's pages under axe-core in a real browser (Debian's Chromium through playwright-core),
// against a real `orc sandbox start --clock manual` process, signed in as a user would: no serious or
// critical accessibility violation on any page. (Apart from e2e/web-console.test.ts so the two run at once.)
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { axeViolations } from '../helpers/browser.js';
import { signedInConsole } from '../helpers/console.js';
import { http, idea } from '../helpers/steer.js';

const { run, manual, open, advance } = signedInConsole();

describe.runIf(run)('the console, for everyone', () => {
  it('has no serious or critical accessibility violation on any page (axe-core)', async () => {
    const id = (await http(manual.url, 'POST', '/v1/runs', idea('Checked by axe'))).body.id;
    await advance(id, 'gate:brand');
    const final = (await http(manual.url, 'POST', '/v1/runs', idea('Scored for axe #lowscore'))).body.id;
    await advance(final, 'gate:final');
    const done = (await http(manual.url, 'POST', '/v1/runs', idea('Finished for axe'))).body.id;
    await advance(done, 'end');
    const pages: Array<[string, (p: Page) => Promise<unknown>]> = [
      ['/console/', (p) => p.locator(`tr[data-run="${id}"]`).waitFor()],
      [`/console/runs/${id}`, (p) => p.getByRole('button', { name: 'Reject' }).waitFor()],
      // The final gate: what to change, each check with its field, hint and actions; the components below 100.
      [
        `/console/runs/${final}`,
        (p) => p.getByRole('list', { name: 'Score components below 100' }).getByRole('listitem').first().waitFor(),
      ],
      [
        `/console/runs/${done}`,
        (p) =>
          p
            .getByRole('img', { name: /^Screenshot / })
            .first()
            .waitFor(),
      ],
      ['/console/webhooks', (p) => p.getByRole('heading', { name: 'Registered' }).waitFor()],
      ['/console/sandbox', (p) => p.getByText(/real time|manual:/).waitFor()],
    ];
    // One page, moved between the console's pages as a click would (its router), so axe-core loads once.
    const page = await open('/console/');
    const go = (path: string) =>
      page.evaluate((to) => {
        const w = globalThis as any;
        w.history.pushState(null, '', to);
        w.dispatchEvent(new w.PopStateEvent('popstate'));
      }, path);
    for (const [path, ready] of pages) {
      await go(path);
      await ready(page);
      expect(await axeViolations(page), path).toEqual([]);
    }
    // Applying a suggestion asks first, showing what changes: the dialog too.
    await go(`/console/runs/${final}`);
    await page.getByRole('button', { name: /^Apply the suggestion for Text contrast/ }).click();
    await page.getByRole('dialog', { name: 'Change brand.palette in the App Spec?' }).waitFor();
    expect(await axeViolations(page), 'the suggestion dialog').toEqual([]);
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
    // The check sees what it is for: an image without a name is reported (outside what the console renders,
    // which may draw its main again as the dialog closes, and take the image with it).
    await page.evaluate(() => {
      const doc = (globalThis as any).document;
      doc.body.append(Object.assign(doc.createElement('img'), { src: 'data:,' }));
    });
    expect((await axeViolations(page)).map((v) => v.id)).toContain('image-alt');
    await page.close();
  }, 60_000);
});
