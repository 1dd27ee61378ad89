// A real forward proxy for the tests: Debian's tinyproxy, in the foreground, on a port that was free a
// moment ago, logging every CONNECT (and plain request) to a file the tests read. (Imports name .ts files:
// `npm run bench` loads this on Node's own type stripping.)
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './install.ts';
import { until } from './until.ts';

export interface Tinyproxy {
  url: string;
  /** The requests it carried: `CONNECT host:port` or `GET http://…`, in order. */
  carried(): string[];
  close(): void;
}

const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });

/** `connectPorts`: the only ports CONNECT may reach (a stock install allows 443 and 563); default any. */
export async function startTinyproxy({ connectPorts = [] as number[] } = {}): Promise<Tinyproxy> {
  const dir = mkdtempSync(join(tmpdir(), 'orc-tinyproxy-'));
  const log = join(dir, 'tinyproxy.log');
  for (let attempt = 0; ; attempt++) {
    const port = await freePort();
    // No ConnectPort line: CONNECT to any port (the sandbox's are not 443).
    const allowed = connectPorts.map((p) => `ConnectPort ${p}`);
    writeFileSync(
      join(dir, 'tinyproxy.conf'),
      [
        `Port ${port}`,
        'Listen 127.0.0.1',
        'Timeout 120',
        `LogFile "${log}"`,
        'LogLevel Connect',
        'MaxClients 50',
        'Allow 127.0.0.1',
        ...allowed,
        '',
      ].join('\n'),
    );
    const child: ChildProcess = spawn('tinyproxy', ['-d', '-c', join(dir, 'tinyproxy.conf')], { stdio: 'ignore' });
    let exited = false;
    child.once('exit', () => (exited = true));
    try {
      await until(async () => exited || (await accepts(port)), 'tinyproxy to listen');
    } catch (err) {
      child.kill();
      throw err;
    }
    if (exited) {
      if (attempt < 3) continue; // the port was taken in the meantime
      throw new Error('tinyproxy would not start');
    }
    return {
      url: `http://127.0.0.1:${port}`,
      carried: () => {
        let text = '';
        try {
          text = readFileSync(log, 'utf8');
        } catch {
          return [];
        }
        return [...text.matchAll(/Request \(file descriptor \d+\): (\S+ \S+)/g)].map((m) => m[1]!);
      },
      close: () => void child.kill(),
    };
  }
}
