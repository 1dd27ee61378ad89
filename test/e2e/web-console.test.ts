// The web console in a real browser (Debian's Chromium through playwright-core), against a real
// `orc sandbox start --clock manual` process, signed in with the link the built `orc sandbox console`
// prints. Runs are created and moved through the API, as a user's code would; everything seen and
// decided here goes through the page.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { signedInConsole } from '../helpers/console.js';
import { http, idea } from '../helpers/steer.js';
import { until } from '../helpers/until.js';

const ui = signedInConsole();
const { run, manual, open, advance, gateState } = ui;

describe.runIf(run)('the console', () => {
  it('shows a run created through the API, live; decides its gates by click; edits the spec; ends with screenshots and the store link', async () => {
    const list = await open('/console/');
    await list.getByRole('heading', { name: 'Runs' }).waitFor();
    const id = (await http(manual.url, 'POST', '/v1/runs', idea('A habit tracker for runners #lowscore'))).body.id;
    const row = list.locator(`tr[data-run="${id}"]`);
    await row.waitFor(); // appears without a reload
    await advance(id, 'gate:idea');
    await row.getByText('awaiting approval').waitFor();
    await row.getByRole('link', { name: id }).click();
    const page = list;
    await page.getByRole('heading', { name: id, level: 1 }).waitFor();

    // The idea gate: approved with a click.
    await page.getByRole('heading', { name: /Gate idea is waiting/ }).waitFor();
    await page.getByRole('button', { name: 'Approve' }).click();
    await until(async () => (await gateState(id, 'idea')) === 'approved');
    await page.getByRole('heading', { name: /Gate idea is waiting/ }).waitFor({ state: 'detached' });

    // The brand gate: the palette as swatches; empty notes refused before anything is sent; then rejected.
    await advance(id, 'gate:brand');
    await page.getByRole('heading', { name: /Gate brand is waiting/ }).waitFor();
    await page.locator('.gate .swatches li').first().waitFor(); // the palette, read from the App Spec
    await page.getByRole('button', { name: 'Reject' }).click();
    await until(
      async () => (await page.locator('#notes-error').textContent())?.includes('Notes are needed'),
      'the notes error shown',
    );
    expect(await page.getByLabel('Notes').evaluate((el) => el === (globalThis as any).document.activeElement)).toBe(
      true,
    );
    expect(await gateState(id, 'brand')).toBe('pending');
    await page.getByLabel('Notes').fill('Warmer colours, please');
    await page.getByRole('button', { name: 'Reject' }).click();
    await until(async () => (await gateState(id, 'brand')) !== 'pending');
    await page.getByRole('heading', { name: /Gate brand is waiting/ }).waitFor({ state: 'detached' });
    expect((await http(manual.url, 'GET', `/v1/runs/${id}`)).body.stage).toBe('03_brand'); // sent back
    // It comes round again.
    await advance(id, 'gate:brand');
    await page.getByRole('heading', { name: /Gate brand is waiting/ }).waitFor();
    expect(await page.getByLabel('Notes').inputValue()).toBe(''); // a new decision, a fresh box
    // what was decided there before, with its notes, beside the decision
    await page
      .locator('.gate')
      .getByRole('list', { name: 'Decisions at gate brand' })
      .getByText(/rejected .*Warmer colours, please/)
      .waitFor();

    // The App Spec: a bad colour is shown at its field and nothing changes; a good one is saved as a patch.
    await page.getByRole('button', { name: 'Edit App Spec' }).click();
    await page.getByLabel('Tagline').fill('Run every day');
    await page.getByRole('textbox', { name: /^Palette/ }).fill('#zzzzzz');
    await page.getByRole('button', { name: 'Save App Spec' }).click();
    await page.locator('#spec-palette-error').waitFor();
    expect(await page.getByRole('textbox', { name: /^Palette/ }).getAttribute('aria-invalid')).toBe('true');
    expect((await http(manual.url, 'GET', `/v1/runs/${id}/spec`)).body.tagline).not.toBe('Run every day');
    await page.getByRole('textbox', { name: /^Palette/ }).fill('#112233\n#445566');
    await page.getByRole('button', { name: 'Save App Spec' }).click();
    await page.getByRole('button', { name: 'Edit App Spec' }).waitFor();
    const spec = (await http(manual.url, 'GET', `/v1/runs/${id}/spec`)).body;
    expect(spec.tagline).toBe('Run every day');
    expect(spec.brand.palette).toEqual(['#112233', '#445566']);
    expect(spec.name).toBeTruthy(); // a merge patch: the rest kept
    // One App Spec on the page: the gate panel shows the saved palette at once, and the save says so.
    let palette: string[] = [];
    const saved = async () =>
      (palette = await page.locator('.gate .swatches code').allTextContents()).join() === '#112233,#445566';
    await until(saved, 'the saved palette in the gate panel', { seen: () => palette.join(', ') });
    expect(palette).toEqual(['#112233', '#445566']);
    await page.locator('.saved').getByText('App Spec saved').waitFor(); // seen, not only announced

    await page.getByRole('button', { name: 'Approve' }).click();
    await until(async () => (await gateState(id, 'brand')) === 'approved');
    // the gates table keeps every decision: the rejection's notes stay after the approval
    const brandRow = page.getByRole('row', { name: /^brand approved/ });
    await brandRow
      .getByRole('list', { name: 'Decisions at gate brand' })
      .getByText(/approved/)
      .waitFor();
    expect(await brandRow.getByRole('listitem').allInnerTexts()).toEqual([
      expect.stringMatching(/^rejected .*Warmer colours, please/),
      expect.stringMatching(/^approved /),
    ]);

    // The final gate: a scorecard that did not pass makes approving ask first; Cancel decides nothing.
    await advance(id, 'gate:final');
    await page.getByRole('heading', { name: /Gate final is waiting/ }).waitFor();
    await page.getByText('The scorecard did not pass').first().waitFor();
    expect(await page.locator('.gate meter').count()).toBe(3);
    await page.getByRole('button', { name: 'Approve', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'The scorecard did not pass' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    expect(await gateState(id, 'final')).toBe('pending');
    await page.getByRole('button', { name: 'Approve', exact: true }).click();
    // Going ahead against the warning does not look like a plain Approve.
    const background = (name: string, within: Page | typeof dialog) =>
      within
        .getByRole('button', { name, exact: true })
        .evaluate((b) => (globalThis as any).getComputedStyle(b).backgroundColor);
    expect(await background('Approve anyway', dialog)).not.toBe(await background('Approve', page));
    await dialog.getByRole('button', { name: 'Approve anyway' }).click();
    await until(async () => (await gateState(id, 'final')) === 'approved');

    // The end: accepted, the store link, and the screenshots as images that loaded.
    await advance(id, 'end');
    await page.getByRole('heading', { name: /Accepted/ }).waitFor();
    const store = page.getByRole('link', { name: 'Open in the App Store' });
    expect(await store.getAttribute('href')).toMatch(/^https:\/\//);
    const shots = page.getByRole('img', { name: /^Screenshot / });
    await shots.first().waitFor();
    const shown = () =>
      page
        .locator('.shots img')
        .evaluateAll((imgs) => imgs.length > 0 && imgs.every((i: any) => i.complete && i.naturalWidth > 0));
    await until(shown, 'every screenshot drawn');
    expect(await page.locator('.artifacts a.file').count()).toBeGreaterThan(1); // the ipa and screenshots, downloadable
    expect(await page.locator('.timeline li').count()).toBeGreaterThanOrEqual(9);
    await page.close();
  }, 90_000);

  it('fixes a #lowscore run at final from its checks: each field and hint read, each fix made through the gate panel, rejected with notes; it comes round passing and is accepted', async () => {
    const id = (await http(manual.url, 'POST', '/v1/runs', idea('A plant watering diary #lowscore'))).body.id;
    await advance(id, 'gate:final');
    const card = (await http(manual.url, 'GET', `/v1/runs/${id}/scorecard`)).body;
    type Check = { id: string; title: string; status: string; field: string; hint: string; suggestion: unknown };
    const failing: Check[] = card.preflight.checks.filter((c: Check) => c.status === 'fail');
    expect(failing.map((c) => c.id)).toEqual(['name', 'category', 'contrast']);
    const page = await open(`/console/runs/${id}`);
    await page.getByRole('heading', { name: /Gate final is waiting/ }).waitFor();

    // Each failing check is read at the gate: its title, the App Spec field it reads, and the hint.
    const item = (c: Check) => page.locator('.gate ul.fixes > li').filter({ hasText: c.title });
    for (const c of failing) {
      const text = await item(c).innerText();
      expect(text).toContain('✗ fail');
      expect(text).toContain(c.field);
      expect(text).toContain(c.hint);
    }
    await page.getByRole('list', { name: 'Score components below 100' }).getByRole('listitem').first().waitFor();
    const specNow = async () => (await http(manual.url, 'GET', `/v1/runs/${id}/spec`)).body;
    const fieldOf = (spec: any, field: string) => field.split('.').reduce((v, k) => v?.[k], spec);

    // Applying a suggestion shows the change first: Cancel changes nothing, Apply sets it at its field.
    const [name, category, contrast] = failing as [Check, Check, Check];
    const nameBefore = (await specNow()).name;
    const applyButton = (c: Check) => item(c).getByRole('button', { name: `Apply the suggestion for ${c.title}` });
    const dialogOf = (c: Check) => page.getByRole('dialog', { name: `Change ${c.field} in the App Spec?` });
    await applyButton(name).click();
    expect(await dialogOf(name).innerText()).toContain(`“${nameBefore}”`);
    expect(await dialogOf(name).innerText()).toContain(`“${name.suggestion}”`);
    await dialogOf(name).getByRole('button', { name: 'Cancel' }).click();
    await dialogOf(name).waitFor({ state: 'hidden' });
    expect((await specNow()).name).toBe(nameBefore);
    await applyButton(name).click();
    await dialogOf(name).getByRole('button', { name: 'Apply to the App Spec' }).click();
    await item(name).getByText('The App Spec has the suggestion').waitFor();
    expect((await specNow()).name).toBe(name.suggestion);
    // The palette by keyboard alone: Enter on the action, the dialog opens on Cancel, Tab to Apply, Enter.
    await applyButton(contrast).focus();
    await page.keyboard.press('Enter');
    const after = dialogOf(contrast).getByRole('list', { name: 'The palette after' });
    expect(await after.innerText()).toContain((contrast.suggestion as string[])[0]);
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await item(contrast).getByText('The App Spec has the suggestion').waitFor();
    expect(fieldOf(await specNow(), contrast.field)).toEqual(contrast.suggestion);
    // The category is edited by hand, from its hint: the spec editor opens at the field.
    await item(category)
      .getByRole('button', { name: /^Edit category in the App Spec/ })
      .click();
    const input = page.getByLabel('Category', { exact: true });
    await until(
      () => input.evaluate((el) => el === (globalThis as any).document.activeElement),
      'the category focused',
    );
    expect(category.hint).toContain(String(category.suggestion));
    await input.fill(String(category.suggestion));
    await page.getByRole('button', { name: 'Save App Spec' }).click();
    await item(category).getByText('The App Spec has the suggestion').waitFor();
    expect((await specNow()).category).toBe(category.suggestion);

    // Rejected with notes: the run goes back, comes round on the edited spec, and now passes.
    await page.getByLabel('Notes').fill('Fixed the name, category and contrast from the hints');
    await page.getByRole('button', { name: 'Reject' }).click();
    await until(async () => (await gateState(id, 'final')) !== 'pending');
    await advance(id, 'gate:final');
    await page.getByText('✓ The scorecard passed').waitFor();
    expect(await page.locator('.gate ul.fixes .result-fail').count()).toBe(0);
    await page.getByRole('button', { name: 'Approve', exact: true }).click(); // no question: it passed
    await until(async () => (await gateState(id, 'final')) === 'approved');
    await advance(id, 'end');
    await page.getByRole('heading', { name: /Accepted/ }).waitFor();
    expect((await http(manual.url, 'GET', `/v1/runs/${id}`)).body.status).toBe('accepted');
    await page.close();
  }, 90_000);

  it('a gate that comes round at once (rejected elsewhere, reworked quickly) is a new decision: its new scorecard, a fresh notes box', async () => {
    const id = (await http(manual.url, 'POST', '/v1/runs', idea('A tide table for surfers #lowscore'))).body.id;
    await advance(id, 'gate:final');
    const page = await open(`/console/runs/${id}`);
    await page.getByText('✗ The scorecard did not pass').waitFor();
    await page.getByLabel('Notes').fill('typed here, never sent');
    const card = (await http(manual.url, 'GET', `/v1/runs/${id}/scorecard`)).body;
    for (const c of card.preflight.checks.filter((c: { status: string }) => c.status === 'fail')) {
      const patch = c.field.split('.').reduceRight((v: unknown, k: string) => ({ [k]: v }), c.suggestion);
      expect((await http(manual.url, 'PATCH', `/v1/runs/${id}/spec`, patch)).status).toBe(200);
    }
    // Back to back, as another client or a script would: the page may never see the run between the rounds.
    await http(manual.url, 'POST', `/v1/runs/${id}/gates/final:reject`, { notes: 'fixed elsewhere' });
    await advance(id, 'gate:final');
    await page.getByText('✓ The scorecard passed').waitFor();
    expect(await page.getByLabel('Notes').inputValue()).toBe('');
    await page.close();
  }, 30_000);

  it('approves a gate by keyboard alone', async () => {
    const id = (await http(manual.url, 'POST', '/v1/runs', idea('Keyboard only'))).body.id;
    await advance(id, 'gate:idea');
    const page = await open(`/console/runs/${id}`);
    await page.getByRole('button', { name: 'Approve' }).waitFor();
    let reached = false;
    for (let i = 0; i < 40 && !reached; i++) {
      await page.keyboard.press('Tab');
      reached = await page.evaluate(() => (globalThis as any).document.activeElement?.textContent === 'Approve');
    }
    expect(reached).toBe(true);
    await page.keyboard.press('Enter');
    await until(async () => (await gateState(id, 'idea')) === 'approved');
    await page.close();
  }, 30_000);

  it("names each run by its app beside its id: the list's row (read again after a decision), the run page's heading and the tab's title", async () => {
    const list = await open('/console/');
    await list.getByRole('heading', { name: 'Runs' }).waitFor();
    const id = (await http(manual.url, 'POST', '/v1/runs', idea('A tide table for sailors who cross the bay'))).body.id;
    const name: string = (await http(manual.url, 'GET', `/v1/runs/${id}/spec`)).body.name;
    expect(name).toBeTruthy();
    const row = list.locator(`tr[data-run="${id}"]`);
    await row.getByRole('cell', { name, exact: true }).waitFor(); // beside the id, without a reload
    expect(await row.getByRole('rowheader').innerText()).toBe(id);

    // A decision may carry a change to the App Spec: the list reads the name again.
    await advance(id, 'gate:idea');
    expect((await http(manual.url, 'PATCH', `/v1/runs/${id}/spec`, { name: 'Harbour Hours' })).status).toBe(200);
    expect((await http(manual.url, 'POST', `/v1/runs/${id}/gates/idea:approve`, {})).status).toBe(200);
    await row.getByRole('cell', { name: 'Harbour Hours', exact: true }).waitFor();

    await row.getByRole('link', { name: id }).click();
    const heading = list.getByRole('heading', { level: 1 });
    await heading.getByText('Harbour Hours').waitFor();
    expect(await heading.innerText()).toMatch(new RegExp(`^Harbour Hours\\s+${id}$`));
    let title = '';
    const named = async () => (title = await list.title()) === `Harbour Hours · ${id} · orc console`;
    await until(named, 'the name in the title', { seen: () => title });
    await list.close();
  }, 30_000);

  it('renders a hostile run as text: markup, escape sequences and bidi controls are shown, never run', async () => {
    const pitch =
      '<script>window.__pwned=1</script><img src=x onerror="window.__pwned=2"> \u001b[31mred\u0007 \u202eevil';
    const id = (await http(manual.url, 'POST', '/v1/runs', idea(pitch))).body.id;
    await advance(id, 'gate:idea');
    const page = await open(`/console/runs/${id}`);
    await page.locator('.gate dl.summary').waitFor();
    const text = await page.locator('.gate').innerText();
    expect(text).toContain('<script>window.__pwned=1</script><img src=x onerror="window.__pwned=2">');
    expect(text).toContain('\\x1b[31mred\\x07');
    expect(text).toContain('\\u202eevil');
    expect(text).not.toMatch(/[\u0000-\u0008\u001b\u202e]/);
    expect(await page.evaluate(() => (globalThis as any).__pwned)).toBeUndefined();
    expect(await page.locator('main script, main img[src="x"]').count()).toBe(0);
    await page.close();
  }, 30_000);

  it('adds a webhook (its secret shown once), shows its deliveries, and removes it', async () => {
    const page = await open('/console/webhooks');
    await page.getByLabel('Receiver URL').fill('ftp://example.com/hook');
    await page.getByRole('button', { name: 'Add webhook' }).click();
    await page.locator('#wh-url-error').waitFor();
    expect(await page.getByLabel('Receiver URL').getAttribute('aria-invalid')).toBe('true');
    await page.getByLabel('Receiver URL').fill('http://127.0.0.1:9/hook');
    await page.getByRole('button', { name: 'Add webhook' }).click();
    const secret = await page.getByLabel('Signing secret').inputValue();
    expect(secret).toMatch(/^whsec_/);
    const hooks = (await http(manual.url, 'GET', '/v1/webhooks')).body.data;
    const hook = hooks.find((w: { url: string }) => w.url === 'http://127.0.0.1:9/hook');
    expect(hook.secret).toBeUndefined();
    // A delivery to it (the receiver is not there: it fails and is retried).
    const id = (await http(manual.url, 'POST', '/v1/runs', idea('Delivered'))).body.id;
    await page.getByRole('button', { name: `Deliveries of ${hook.id}` }).click();
    await page.getByRole('cell', { name: 'run.created' }).waitFor();
    expect(id).toMatch(/^run_/);
    await page.reload();
    await page.getByRole('heading', { name: 'Webhooks' }).waitFor();
    expect(await page.getByText(secret).count()).toBe(0); // shown once
    await page.getByRole('button', { name: `Remove ${hook.id}` }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Remove' }).click();
    await until(async () => (await http(manual.url, 'GET', `/v1/webhooks/${hook.id}`)).status === 404);
    await page.close();
  }, 30_000);

  it('fits a phone (390 px): no page-wide scroll, a label apart from its select, a URL broken only after a slash', async () => {
    await http(manual.url, 'POST', '/v1/runs', idea('Seen on a phone'));
    const hook = (
      await http(manual.url, 'POST', '/v1/webhooks', {
        url: 'http://127.0.0.1:65001/a/rather/long/path/for/a/receiver',
        events: ['*'],
      })
    ).body;
    const phone = await ui.context.newPage();
    await phone.setViewportSize({ width: 390, height: 800 });
    try {
      await phone.goto(`${manual.url}/console/`);
      await phone.locator('table.runs tbody tr').first().waitFor();
      const widths = () =>
        phone.evaluate(() => [
          (globalThis as any).document.documentElement.scrollWidth,
          (globalThis as any).innerWidth,
        ]);
      const [scroll, inner] = await widths();
      expect(scroll).toBeLessThanOrEqual(inner);
      const gap = await phone.locator('.toolbar label').evaluate((label: any) => {
        const range = label.ownerDocument.createRange();
        range.selectNodeContents(label.firstChild);
        return label.querySelector('select').getBoundingClientRect().left - range.getBoundingClientRect().right;
      });
      expect(gap).toBeGreaterThanOrEqual(4);
      await phone.goto(`${manual.url}/console/webhooks`);
      const cell = phone.locator('td.url').filter({ hasText: '65001' });
      await cell.waitFor();
      // The host and port stay on one line, whatever the width does to the rest.
      const hostLines = await cell.evaluate((td: any) => {
        const walker = td.ownerDocument.createTreeWalker(td, 4);
        for (let n = walker.nextNode(); n; n = walker.nextNode()) {
          const at = n.textContent.indexOf('127.0.0.1:65001');
          if (at < 0) continue;
          const range = td.ownerDocument.createRange();
          range.setStart(n, at);
          range.setEnd(n, at + '127.0.0.1:65001'.length);
          return new Set([...range.getClientRects()].map((r: any) => Math.round(r.top))).size;
        }
        return -1;
      });
      expect(hostLines).toBe(1);
    } finally {
      await http(manual.url, 'DELETE', `/v1/webhooks/${hook.id}`);
      await phone.close();
    }
  }, 30_000);

  it("a used console link answers a page in the console's look, not bare HTML", async () => {
    const out = await manual.ctl(['console', '--json']);
    const { url } = JSON.parse(out.stdout);
    const fresh = await ui.browser.newContext();
    try {
      const first = await fresh.newPage();
      await first.goto(url);
      const again = await fresh.newPage();
      const answer = await again.goto(url);
      expect(answer?.status()).toBe(403);
      await again.getByRole('heading', { name: /has been used or has expired/ }).waitFor();
      expect(
        await again.evaluate(() => (globalThis as any).getComputedStyle((globalThis as any).document.body).fontFamily),
      ).toContain('system-ui');
    } finally {
      await fresh.close();
    }
  }, 30_000);

  it('steers the sandbox: a trigger makes a run, a fault is listed, the request log grows', async () => {
    const page = await open('/console/sandbox');
    await page.getByText('manual: it moves when advanced').waitFor();
    await page.getByLabel('Event', { exact: true }).selectOption('run.failed');
    await page.getByLabel('Stage').fill('06_qa');
    await page.getByRole('button', { name: 'Trigger' }).click();
    const link = page.getByRole('status').getByRole('link', { name: /^run_/ });
    const id = (await link.textContent())!;
    expect((await http(manual.url, 'GET', `/v1/runs/${id}`)).body.status).toBe('failed');
    await page.getByLabel('Route').fill('GET /v1/webhooks');
    await page.getByLabel('Status').fill('503');
    await page.getByRole('button', { name: 'Add fault' }).click();
    await page.getByRole('region', { name: 'Faults' }).getByRole('cell', { name: 'GET /v1/webhooks' }).waitFor();
    expect((await http(manual.url, 'GET', '/v1/webhooks')).status).toBe(503);
    await page.getByRole('button', { name: 'Remove every fault' }).click();
    await page.getByText('No faults').waitFor();
    await page.locator('.journal').getByText('POST /_sandbox/trigger').first().waitFor();
    await page.close();
  }, 30_000);
});
