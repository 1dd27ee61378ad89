// A service that puts hostile text in every field of every shape orc prints: escape sequences, C1 and
// bidi controls, and times that are not times. None of it may reach the terminal raw, human or --json.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOrc } from '../helpers/run.js';
import { handServer, json, type HandServer } from '../helpers/server.js';

const EVIL = 'x\u001b]0;pwned\u0007\u001b[2J\u009b31m\u202eevil\u2066\u0008\u007f';
const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
/** What orc itself writes at a terminal (colours, the live region's cursor moves, the gate bell), taken out
 * before looking for what the service sent: the service's own sequences must already be gone. */
const ours = (s: string) => s.replace(/\u001b\[[0-9;]*m|\u001b\[\?25[lh]|\r?\u001b\[\d+A|\u001b\[J|\u0007/g, '');
const run = {
  id: 'run_h',
  mode: EVIL,
  status: EVIL,
  stage: EVIL,
  gate_pending: EVIL,
  app_id: EVIL,
  created_at: EVIL,
  updated_at: EVIL,
  extra: EVIL,
};
const gate = {
  name: EVIL,
  state: EVIL,
  decided_at: EVIL,
  notes: EVIL,
  history: [{ decision: EVIL, notes: EVIL, decided_at: EVIL }],
};
const fix = { field: EVIL, hint: EVIL, suggestion: [EVIL, { title: EVIL }] };
const scorecard = {
  score: { beauty: 40, harmony: 40, score: 40, total: 100 },
  passed: false,
  preflight: { passed: false, checks: [{ id: EVIL, title: EVIL, status: 'fail', detail: EVIL, ...fix }] },
  components: [{ name: EVIL, of: EVIL, value: 10, weight: 50, detail: EVIL, ...fix, suggestion: EVIL }],
};
const hook = { id: 'wh_h', url: EVIL, events: [EVIL], status: EVIL, created_at: '2026-11-22T10:00:00Z', secret: EVIL };
const envelope = (id: number, type: string, data: Record<string, unknown>) => ({
  id: `evt_${id}`,
  type,
  created_at: EVIL,
  run_id: EVIL,
  data,
});
const events = [
  envelope(1, 'run.created', { mode: EVIL }),
  envelope(2, 'run.stage_changed', { stage: EVIL, percent: 50 }),
  envelope(3, 'log', { stage: EVIL, level: EVIL, message: EVIL, ts: EVIL }),
  envelope(4, 'run.gate_pending', { gate: EVIL }),
  envelope(4, 'run.gate_resolved', { gate: EVIL, decision: EVIL, notes: EVIL }),
  envelope(5, EVIL, { anything: EVIL }),
  envelope(6, 'run.failed', { stage: EVIL, error: { code: EVIL, message: EVIL } }),
];

let server: HandServer;
beforeAll(async () => {
  server = await handServer((req, res) => {
    const url = req.url!;
    if (url.startsWith('/v1/runs/run_h/events')) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(
        events
          .map((e, i) => `id: ${i + 1}\nevent: ${e.type === 'log' ? 'log' : e.type}\ndata: ${JSON.stringify(e)}\n\n`)
          .join(''),
      );
    } else if (url.startsWith('/v1/runs/run_h/gates/') && req.method === 'POST') json(res, 200, { gate, run });
    else if (url.startsWith('/v1/runs/run_h/gates')) json(res, 200, { data: [gate, gate, gate] });
    else if (url.startsWith('/v1/runs/run_h/scorecard')) json(res, 200, scorecard);
    else if (url.startsWith('/v1/runs/run_h/cancel')) json(res, 200, run);
    else if (url.startsWith('/v1/runs/run_h')) json(res, 200, run);
    else if (url.startsWith('/v1/runs?') || url === '/v1/runs')
      json(
        res,
        req.method === 'POST' ? 201 : 200,
        req.method === 'POST' ? run : { data: [run, run], next_cursor: null, has_more: false },
      );
    else if (url.startsWith('/v1/webhooks/wh_h')) json(res, 200, hook);
    else
      json(
        res,
        404,
        { error: { type: EVIL, code: EVIL, message: EVIL, field: EVIL } },
        { 'x-request-id': 'req_\u009b2J\u0085' /* only what a header may carry */ },
      );
  });
});
afterAll(() => server.close());

const commands = [
  ['run', 'get', 'run_h'],
  ['run', 'list'],
  ['run', 'cancel', 'run_h'],
  ['run', 'create', '--pitch', 'p', '--audience', 'a', '--monetization', 'free'],
  ['gate', 'list', 'run_h'],
  ['scorecard', 'run_h'],
  ['gate', 'approve', 'run_h', 'idea'],
  ['watch', 'run_h'],
  ['webhook', 'get', 'wh_h'],
  ['watch', 'run_h', 'run_h', '--on-gate', 'wait'],
  ['run', 'get', 'run_other'],
];

describe('hostile text from the service', () => {
  for (const tty of [false, true]) {
    for (const json of [false, true]) {
      it.each(commands)(
        `never reaches the terminal raw (${tty ? 'terminal' : 'piped'}${json ? ', --json' : ''}): %s %s %s`,
        async (...args) => {
          const r = await runOrc([...args, ...(json ? ['--json'] : [])], {
            env: { ORC_BASE_URL: server.url },
            tty: { stdout: tty, stderr: tty },
          });
          expect(r.stdout + r.stderr).toMatch(/evil|x/); // the text is shown…
          expect(ours(r.stdout), 'stdout').not.toMatch(RAW); // …made harmless
          expect(ours(r.stderr), 'stderr').not.toMatch(RAW);
        },
      );
    }
  }
});
