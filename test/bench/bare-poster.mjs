// The bare baseline of the webhook fan-out (issue 35): a plain Node script that signs and POSTs the given
// bodies to the given receiver with keep-alive, as many in flight as the sandbox's dispatcher allows itself,
// recording nothing, for a number of seconds; prints how many POSTs were answered 2xx, as one JSON line.
// Its input is a JSON file: { url, secrets (hook n at url/hook/n), bodies, seconds, inFlight }.
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';

const { url, secrets, bodies, seconds, inFlight } = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const agent = new Agent({ keepAlive: true, maxSockets: inFlight });
const buffers = bodies.map((b) => Buffer.from(b));
let next = 0;
let posted = 0;
let failed = 0;

function post(hook, body) {
  const t = Math.floor(Date.now() / 1000);
  const mac = createHmac('sha256', secrets[hook]).update(`${t}.`).update(body).digest('hex');
  return new Promise((done) => {
    const req = request(`${url}/hook/${hook}`, {
      method: 'POST',
      agent,
      headers: {
        'content-type': 'application/json',
        'content-length': body.length,
        'x-service-signature': `t=${t},v1=${mac}`,
      },
    });
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => (res.statusCode < 300 ? posted++ : failed++, done()));
    });
    req.on('error', () => (failed++, done()));
    req.end(body);
  });
}

const end = Date.now() + seconds * 1000;
const started = performance.now();
await Promise.all(
  Array.from({ length: inFlight }, async () => {
    while (Date.now() < end) {
      const k = next++;
      await post(k % secrets.length, buffers[k % buffers.length]);
    }
  }),
);
agent.destroy();
process.stdout.write(`${JSON.stringify({ posted, failed, seconds: (performance.now() - started) / 1000 })}\n`);
