// `npm run screenshots [-- <folder>]`: every page of the web console, drawn by Debian's Chromium against a
// fresh sandbox on a manual clock, as PNGs (default: a temporary folder; docs/console-run.png is the
// README's: `npm run screenshots -- /tmp/x && cp /tmp/x/console-run.png docs/`). Needs the build (npm run build) and /usr/bin/chromium.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const out = process.argv[2] ?? mkdtempSync(join(tmpdir(), 'orc-console-shots-'));
mkdirSync(out, { recursive: true });
const KEY = 'sk_test_orc_sandbox_local';
const bin = new URL('../bin/orc.js', import.meta.url).pathname;
// (a sandbox given no key makes its own: the requests below send this one)
const env = {
  ...process.env,
  ORC_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'orc-shots-config-')),
  ORC_SANDBOX_API_KEY: KEY,
};
const sandbox = spawn(
  process.execPath,
  [bin, 'sandbox', 'start', '--memory', '--port', '0', '--clock', 'manual', '--stage-ms', '1h'],
  { env, stdio: ['ignore', 'pipe', 'inherit'] },
);
const url = await new Promise((resolve, reject) => {
  let text = '';
  sandbox.stdout.on('data', (c) => {
    text += c;
    const m = /listening on (\S+)/.exec(text);
    if (m) resolve(m[1]);
  });
  sandbox.once('exit', (code) => reject(new Error(`the sandbox exited ${code}`)));
});
const api = async (method, path, body) => {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${KEY}`,
      'content-type': 'application/json',
      'idempotency-key': crypto.randomUUID(),
    },
    body: body && JSON.stringify(body),
  });
  return res.json();
};
const create = async (pitch) =>
  (await api('POST', '/v1/runs', { mode: 'idea', idea: { pitch, audience: 'runners', monetization: 'freemium' } })).id;
const advance = (run, to) => api('POST', '/_sandbox/clock/advance', { run, to });

try {
  const hook = await api('POST', '/v1/webhooks', {
    url: 'http://127.0.0.1:9/hooks',
    events: ['run.accepted', 'run.failed', 'run.gate_pending'],
  });
  const done = await create('A habit tracker for runners');
  await advance(done, 'end');
  const failed = await create('A budget app #fail');
  await advance(failed, 'end');
  const final = await create('A meal planner for families #lowscore');
  await advance(final, 'gate:final');
  const brand = await create('A focus timer for students');
  await advance(brand, 'gate:brand');
  const idea = await create('A plant-watering reminder <script>alert(1)</script> \u001b[31m');
  await advance(idea, 'gate:idea');
  await create('A running club finder');
  await api('POST', '/_sandbox/faults', { route: 'POST /v1/webhooks', status: 503, times: 3 });

  const link = (await api('POST', '/_sandbox/console')).url;
  const browser = await chromium.launch({
    executablePath: process.env.ORC_TEST_CHROMIUM ?? '/usr/bin/chromium',
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  for (const scheme of ['light', 'dark']) {
    const context = await browser.newContext({
      viewport: { width: 1280, height: 900 },
      colorScheme: scheme,
      deviceScaleFactor: 1,
    });
    const page = await context.newPage();
    await page.goto(scheme === 'light' ? link : (await api('POST', '/_sandbox/console')).url);
    const shoot = async (name, path, ready) => {
      await page.goto(`${url}${path}`);
      await ready();
      await page.waitForTimeout(300);
      await page.screenshot({ path: join(out, `${name}${scheme === 'dark' ? '-dark' : ''}.png`), fullPage: true });
    };
    await shoot('runs', '/console/', () => page.locator(`tr[data-run="${done}"]`).waitFor());
    await shoot('run-accepted', `/console/runs/${done}`, () =>
      page
        .getByRole('img', { name: /^Screenshot/ })
        .first()
        .waitFor(),
    );
    await shoot('run-final-gate', `/console/runs/${final}`, () => page.locator('.gate meter').first().waitFor());
    // The README's picture: the top of that page, as a window shows it.
    if (scheme === 'light') {
      const box = await page.locator('.gate').boundingBox();
      await page.screenshot({
        path: join(out, 'console-run.png'),
        fullPage: true,
        clip: { x: 0, y: 0, width: 1280, height: Math.ceil(box.y + box.height + 16) },
      });
    }
    await shoot('run-brand-gate', `/console/runs/${brand}`, () => page.locator('.gate .swatches').waitFor());
    await shoot('run-idea-gate', `/console/runs/${idea}`, () => page.locator('.gate dl').waitFor());
    await shoot('run-failed', `/console/runs/${failed}`, () => page.getByRole('heading', { name: /Failed/ }).waitFor());
    await shoot('webhooks', '/console/webhooks', async () => {
      await page.getByRole('button', { name: `Deliveries of ${hook.id}` }).click();
      await page.locator('#deliveries table').waitFor();
    });
    await shoot('sandbox', '/console/sandbox', () => page.locator('.journal tbody tr').first().waitFor());
    await context.close();
  }
  await browser.close();
  console.log(out);
} finally {
  sandbox.kill('SIGTERM');
}
