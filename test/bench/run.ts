// npm run bench: throughput, latency and fan-out of the sandbox, and start-up cost of orc, each beside a
// baseline measured in the same run on the same machine (ratios, not wall-clock promises: machines are noisy).
// Runs on Node's own type stripping; it drives only built code (bin/orc.js) and npm packages.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { get as httpGet, type IncomingMessage } from 'node:http';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import autocannon from 'autocannon';

const ORC = resolve(import.meta.dirname, '../../bin/orc.js');
const KEY = 'sk_test_orc_sandbox_local';
const only = process.argv.slice(2);
const want = (name: string) => only.length === 0 || only.includes(name);
const rows: string[][] = [];
const row = (...cells: Array<string | number>) => rows.push(cells.map(String));

async function startSandbox(args: string[]): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [ORC, 'sandbox', 'start', '--port', '0', '--memory', '--rate-limit', '0', ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, ORC_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'orc-bench-')) },
  });
  const url = await new Promise<string>((ok, fail) => {
    let out = '';
    child.stdout!.on('data', (c) => {
      out += c;
      const m = /listening on (\S+)/.exec(out);
      if (m) ok(m[1]!);
    });
    child.once('exit', (code) => fail(new Error(`sandbox exited ${code}`)));
  });
  return { url, child };
}

/** The same kind of answer from a bare node:http server in its own process: the ceiling for this machine. */
async function startBaseline(body: string): Promise<{ url: string; child: ChildProcess }> {
  const code = `const b=${JSON.stringify(body)};require('node:http').createServer((q,s)=>{s.writeHead(200,{'content-type':'application/json','content-length':Buffer.byteLength(b)});s.end(b)}).listen(0,'127.0.0.1',function(){console.log('listening on http://127.0.0.1:'+this.address().port)})`;
  const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((ok) => child.stdout!.on('data', (c) => ok(/listening on (\S+)/.exec(String(c))![1]!)));
  return { url, child };
}

function cannon(opts: autocannon.Options): Promise<autocannon.Result> {
  return new Promise((ok, fail) => autocannon({ connections: 32, duration: 5, ...opts }, (err: unknown, res: autocannon.Result) => (err ? fail(err) : ok(res))));
}

async function api(url: string, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${url}${path}`, { method, headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  return res.json();
}

const idea = { mode: 'idea', idea: { pitch: 'A habit tracker for runners', audience: 'runners', monetization: 'freemium' } };

async function benchHttp(): Promise<void> {
  const sb = await startSandbox(['--stage-ms', '3600000']);
  const run = await api(sb.url, 'POST', '/v1/runs', idea);
  const base = await startBaseline(JSON.stringify(run));
  try {
    const headers = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };
    await cannon({ url: `${sb.url}/v1/runs/${run.id}`, headers, duration: 1 }); // warm-up
    await cannon({ url: base.url, duration: 1 });
    const baseGet = await cannon({ url: base.url });
    const get = await cannon({ url: `${sb.url}/v1/runs/${run.id}`, headers });
    const post = await cannon({
      url: `${sb.url}/v1/runs`,
      requests: [{ method: 'POST', headers, body: JSON.stringify(idea), setupRequest: (req: any) => ({ ...req, headers: { ...req.headers, 'idempotency-key': randomUUID() } }) }],
    });
    const basePost = await cannon({ url: base.url, method: 'POST', headers, body: JSON.stringify(idea) });
    const errors = (r: autocannon.Result) => r.errors + r.non2xx;
    row('GET /v1/runs/{id}', Math.round(get.requests.average), `${get.latency.p99} ms`, (get.requests.average / baseGet.requests.average).toFixed(2), `bare node:http: ${Math.round(baseGet.requests.average)}/s, p99 ${baseGet.latency.p99} ms; errors ${errors(get)}`);
    row('POST /v1/runs', Math.round(post.requests.average), `${post.latency.p99} ms`, (post.requests.average / basePost.requests.average).toFixed(2), `bare node:http: ${Math.round(basePost.requests.average)}/s; each with its own Idempotency-Key, one SQLite commit; errors ${errors(post)}`);
  } finally {
    sb.child.kill('SIGTERM');
    base.child.kill('SIGTERM');
  }
}

/** N watchers on one run; for every event, how long from its created_at to arrival at each watcher. */
async function watchRun(url: string, watchers: number, stageMs: number): Promise<{ delays: number[]; counts: number[] }> {
  const run = await api(url, 'POST', '/v1/runs', idea);
  const delays: number[] = [];
  const counts = new Array<number>(watchers).fill(0);
  const done: Array<Promise<void>> = [];
  let opened = 0;
  const allOpen = new Promise<void>((ok) => {
    for (let i = 0; i < watchers; i++) {
      done.push(
        new Promise<void>((end) => {
          httpGet(`${url}/v1/runs/${run.id}/events`, { agent: false, headers: { authorization: `Bearer ${KEY}` } }, (res: IncomingMessage) => {
            if (++opened === watchers) ok();
            let buf = '';
            res.setEncoding('utf8');
            res.on('data', (chunk: string) => {
              const now = Date.now();
              buf += chunk;
              let k: number;
              while ((k = buf.indexOf('\n\n')) >= 0) {
                const frame = buf.slice(0, k);
                buf = buf.slice(k + 2);
                const data = frame.split('\n').find((l) => l.startsWith('data: '));
                if (!data) continue;
                counts[i]!++;
                delays.push(now - Date.parse(JSON.parse(data.slice(6)).created_at));
              }
            });
            res.on('end', () => end());
          }).on('error', () => end());
        }),
      );
    }
  });
  await allOpen;
  const historyCutoff = delays.length; // replayed history is not "live"
  // Decide gates as they open until the run ends.
  for (;;) {
    const r = await api(url, 'GET', `/v1/runs/${run.id}`);
    if (['accepted', 'rejected', 'failed', 'canceled'].includes(r.status)) break;
    if (r.status === 'awaiting_approval') await api(url, 'POST', `/v1/runs/${run.id}/gates/${r.gate_pending}:approve`);
    await new Promise((ok) => setTimeout(ok, stageMs / 10));
  }
  await Promise.all(done);
  return { delays: delays.slice(historyCutoff), counts };
}

async function benchSse(): Promise<void> {
  const stageMs = 500;
  const sb = await startSandbox(['--stage-ms', String(stageMs)]);
  try {
    const one = await watchRun(sb.url, 1, stageMs);
    const many = await watchRun(sb.url, 1000, stageMs);
    const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))] ?? 0;
    const same = many.counts.every((c) => c === many.counts[0]);
    const within = many.delays.filter((d) => d <= 100).length / Math.max(1, many.delays.length);
    row('SSE, 1,000 watchers', `${many.delays.length} deliveries`, `p99 ${pct(many.delays, 99)} ms, max ${Math.max(...many.delays)} ms`, (pct(many.delays, 99) / Math.max(1, pct(one.delays, 99))).toFixed(2),
      `1 watcher: p99 ${pct(one.delays, 99)} ms; every watcher got all ${many.counts[0]} events: ${same}; within 100 ms: ${(within * 100).toFixed(2)}%`);
  } finally {
    sb.child.kill('SIGTERM');
  }
}

/** Median wall times of several commands, run interleaved (a, b, c, a, b, c, …) after a warm-up each,
 * so that a busy moment of this shared machine falls on all of them alike. */
function medians(commands: Array<{ args: string[]; env?: Record<string, string> }>, n = 31): number[] {
  const cfg = mkdtempSync(join(tmpdir(), 'orc-bench-cfg-'));
  const opts = commands.map((c) => ({ stdio: 'ignore' as const, env: { ...process.env, ORC_CONFIG_DIR: cfg, ...c.env } }));
  commands.forEach((c, i) => spawnSync(process.execPath, c.args, opts[i]));
  const times = commands.map(() => [] as number[]);
  for (let k = 0; k < n; k++)
    commands.forEach((c, i) => {
      const t = process.hrtime.bigint();
      const r = spawnSync(process.execPath, c.args, opts[i]);
      if (r.status !== 0) throw new Error(`${c.args.join(' ')} exited ${r.status}`);
      times[i]!.push(Number(process.hrtime.bigint() - t) / 1e6);
    });
  return times.map((t) => t.sort((a, b) => a - b)[Math.floor(n / 2)]!);
}

async function benchStartup(): Promise<void> {
  const [node, version, help] = medians([{ args: ['-e', '0'] }, { args: [ORC, '--version'] }, { args: [ORC, '--help'] }]) as [number, number, number];
  row('orc --version', `${version.toFixed(1)} ms`, '', (version / node).toFixed(2), `node -e 0: ${node.toFixed(1)} ms (goal ≤ 1.3)`);
  row('orc --help', `${help.toFixed(1)} ms`, '', (help / node).toFixed(2), 'loads commander and lists every command');

  // A whole command: resolve the profile, one GET, validate, print JSON; beside bare scripts doing the same GET.
  const sb = await startSandbox(['--stage-ms', '3600000']);
  try {
    const run = await api(sb.url, 'POST', '/v1/runs', idea);
    const url = `${sb.url}/v1/runs/${run.id}`;
    const dir = mkdtempSync(join(tmpdir(), 'orc-bench-bare-'));
    const fetchScript = join(dir, 'fetch.mjs');
    const httpScript = join(dir, 'http.mjs');
    writeFileSync(fetchScript, `const r = await fetch(${JSON.stringify(url)}, { headers: { authorization: 'Bearer ${KEY}' } });\nprocess.stdout.write(JSON.stringify(await r.json(), null, 2) + '\\n');\n`);
    writeFileSync(httpScript, `import { get } from 'node:http';\nget(${JSON.stringify(url)}, { headers: { authorization: 'Bearer ${KEY}' } }, (res) => { let b = ''; res.setEncoding('utf8'); res.on('data', (c) => (b += c)); res.on('end', () => process.stdout.write(JSON.stringify(JSON.parse(b), null, 2) + '\\n')); });\n`);
    const [bareFetch, bareHttp, orcGet] = medians([{ args: [fetchScript] }, { args: [httpScript] }, { args: [ORC, 'run', 'get', run.id, '--json'], env: { ORC_BASE_URL: sb.url } }]) as [number, number, number];
    row('orc run get <id> --json', `${orcGet.toFixed(1)} ms`, '', (orcGet / bareFetch).toFixed(2), `bare script with fetch: ${bareFetch.toFixed(1)} ms (goal ≤ 1.25); with node:http: ${bareHttp.toFixed(1)} ms (ratio ${(orcGet / bareHttp).toFixed(2)})`);
  } finally {
    sb.child.kill('SIGTERM');
  }
}

if (want('startup')) await benchStartup();
if (want('http')) await benchHttp();
if (want('sse')) await benchSse();

const header = ['what', 'rate / time', 'latency', 'ratio to baseline', 'baseline and notes'];
console.log(`| ${header.join(' | ')} |\n|${header.map(() => '---').join('|')}|`);
for (const r of rows) console.log(`| ${r.join(' | ')} |`);
console.log(`\nNode ${process.version}, ${(await import('node:os')).cpus().length} cores, ${new Date().toISOString()}`);
