// The library's walk (issue 36), measured in its own process from the built package: startSandbox with a manual
// clock, then a run from creation to accepted through its three gates with the client (advance, waitFor,
// approve), `rounds` times after one to warm up; and, as the baseline on the same sandbox, as many bare fetch
// requests as the walk makes, one after another. Prints { walks: [ms…], requests, bare: [ms…] } as JSON.
import { startSandbox } from '../../dist/testing.js';

const rounds = Number(process.argv[2] ?? 11);
const sandbox = await startSandbox({ clock: 'manual', stageMs: 3_600_000 });
const { client: orc } = sandbox;
const idea = { pitch: 'A habit tracker for runners', audience: 'runners', monetization: 'freemium' };
let requests = 0;

async function walk() {
  const before = (await sandbox.client.sandbox.logs()).last;
  const started = performance.now();
  const run = await orc.runs.create({ mode: 'idea', idea });
  for (const gate of ['idea', 'brand', 'final']) {
    await sandbox.advance({ run: run.id, to: `gate:${gate}` });
    await orc.runs.waitFor(run.id, { until: 'gate' });
    await orc.gates.approve(run.id, gate);
  }
  await sandbox.advance({ run: run.id, to: 'end' });
  const ended = await orc.runs.waitFor(run.id, { until: 'end' });
  const ms = performance.now() - started;
  if (ended.status !== 'accepted') throw new Error(`the walk ended ${ended.status}`);
  requests = (await sandbox.client.sandbox.logs(before)).data.filter((e) => e.type === 'request').length;
  return ms;
}

async function bare(n) {
  const started = performance.now();
  for (let i = 0; i < n; i++) {
    const res = await fetch(`${sandbox.url}/v1/runs?limit=1`, {
      headers: { authorization: `Bearer ${sandbox.apiKey}` },
    });
    await res.arrayBuffer();
  }
  return performance.now() - started;
}

await walk();
const walks = [];
const bares = [];
for (let i = 0; i < rounds; i++) {
  walks.push(await walk());
  bares.push(await bare(requests));
}
await sandbox.stop();
process.stdout.write(`${JSON.stringify({ walks, requests, bare: bares })}\n`);
