// A user's suite, for the runner that calls it (node:test, jest): a run taken from creation to accepted through
// its three gates on a manual clock (stages of an hour each, four days of the sandbox's time, none of it waited
// for), and a real delivery from the sandbox checked at a node:http receiver. The real time the walk took goes to
// stderr (`walk: N ms`); it is a figure, measured in `npm run bench -- library`, not asserted here (these
// machines are shared: a test waits for events, never against the wall clock).
const assert = require('node:assert/strict');
const { createServer } = require('node:http');

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const IDEA = { pitch: 'A habit tracker for night owls', audience: 'students', monetization: 'free' };

/** `runner`: the runner's it, beforeAll and afterAll; `lib`: what the project got from orc-cli and orc-cli/testing. */
module.exports = function defineSuite(runner, lib) {
  const { it, beforeAll, afterAll } = runner;
  const { Orc, webhooks, startSandbox } = lib;
  let sandbox;
  let orc;
  let receiver;

  beforeAll(async () => {
    sandbox = await startSandbox({ clock: 'manual', stageMs: HOUR, seed: 42 });
    orc = new Orc({ apiKey: sandbox.apiKey, baseUrl: sandbox.url });
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await orc?.close();
    await sandbox?.stop();
    await receiver?.close();
  });

  it('takes a run from creation to accepted through its three gates, its hours of stages skipped', async () => {
    const started = performance.now();
    const clockBefore = Date.parse((await sandbox.clock()).now);
    const run = await orc.runs.create({ mode: 'idea', idea: IDEA });
    for (const gate of ['idea', 'brand', 'final']) {
      await sandbox.advance('1d'); // the whole clock: the run's stages of an hour each, to its next gate
      const waiting = await orc.runs.waitFor(run.id, { until: 'gate' });
      assert.equal(waiting.gate_pending, gate);
      await orc.gates.approve(run.id, gate, { notes: 'looks right' });
    }
    await sandbox.advance('1d');
    const ended = await orc.runs.waitFor(run.id, { until: 'end' });
    const ms = performance.now() - started;
    process.stderr.write(`walk: ${ms.toFixed(0)} ms\n`);
    assert.equal(ended.status, 'accepted');
    // Every stage's hour passed on the sandbox's clock, moved by advance alone.
    const skipped = Date.parse((await sandbox.clock()).now) - clockBefore;
    assert.equal(skipped, 4 * DAY, `the sandbox's clock moved ${skipped} ms`);
  });

  it('verifies a real delivery from the sandbox with webhooks.verify and unwrap', async () => {
    const hook = await orc.webhooks.create({ url: receiver.url, events: ['run.created'] });
    const run = await orc.runs.create({ mode: 'idea', idea: IDEA });
    const { body, headers } = await receiver.next();
    webhooks.verify(body, headers, hook.secret);
    const event = webhooks.unwrap(body, headers, hook.secret);
    assert.equal(event.type, 'run.created');
    assert.equal(event.run_id, run.id);
    const refused = (reason) => ({ name: 'WebhookVerificationError', reason });
    assert.throws(() => webhooks.verify(body, headers, 'whsec_not_it'), refused('no_matching_signature'));
    const tampered = Buffer.concat([body, Buffer.from(' ')]);
    assert.throws(() => webhooks.verify(tampered, headers, hook.secret), refused('no_matching_signature'));
    assert.throws(() => webhooks.verify(JSON.parse(body.toString()), headers, hook.secret), refused('not_raw_body'));
  });
};

/** A node:http receiver on a free port: each delivery's raw body and headers, in the order they came. */
async function startReceiver() {
  const came = [];
  const waiting = [];
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      res.end();
      const delivery = { body: Buffer.concat(chunks), headers: req.headers };
      const waiter = waiting.shift();
      if (waiter) waiter(delivery);
      else came.push(delivery);
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/hooks/orc`,
    next: () => (came.length ? Promise.resolve(came.shift()) : new Promise((resolve) => waiting.push(resolve))),
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}
