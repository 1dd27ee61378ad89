// `orc sandbox start --tls` as a user meets it: https signed by a CA of its own, kept in the data folder and
// printed; orc trusts it for that sandbox, through NODE_EXTRA_CA_CERTS, or a profile's --ca-file, and a
// certificate it does not trust is exit 4 at once. Then a live profile end to end over TLS against the
// sandbox standing in for the live service: the key in the OS keychain, only ever over TLS, and the live
// rules (--live, the confirmation to cancel, no sandbox controls) against a real https endpoint.
import { X509Certificate, createHash } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import { readFileSync, statSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshConfigDir, ORC_BIN, orc, startSandboxProcess, type OrcProcess } from '../helpers/cli.js';
import { startKeyring, type Keyring } from '../helpers/keyring.js';
import { TmuxSession } from '../helpers/tmux.js';
import { needTool } from '../helpers/tools.js';

const idea = ['--pitch', 'A habit tracker for runners', '--audience', 'runners', '--monetization', 'freemium'];

/** The certificate the server at `url` presents, and whether it verifies against `ca`. */
function peer(url: string, ca: string): Promise<{ cert: X509Certificate; authorized: boolean }> {
  const { hostname: host, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const s = connect(
      { host, port: Number(port), ca, servername: host === '127.0.0.1' ? undefined : host, rejectUnauthorized: false },
      () => {
        const cert = new X509Certificate(s.getPeerCertificate(true).raw);
        resolve({ cert, authorized: s.authorized });
        s.end();
      },
    );
    s.once('error', reject);
  });
}

describe('orc sandbox start --tls', () => {
  const configDir = freshConfigDir();
  let url: string;
  let ca: string;
  beforeAll(async () => {
    const r = await orc(['sandbox', 'start', '--tls', '--detach', '--port', '0', '--stage-ms', '20'], { configDir });
    expect(r.exitCode, r.stderr).toBe(0);
    url = /listening on (https:\/\/\S+)/.exec(r.stdout)![1]!;
    ca = join(configDir, 'sandbox', 'tls', 'ca.pem');
    expect(r.stderr).toContain(ca);
  }, 30_000);
  afterAll(async () => {
    await orc(['sandbox', 'stop'], { configDir });
  });

  it('serves a certificate for its names, signed by the CA in the data folder, whose key only the user can read', async () => {
    const { cert, authorized } = await peer(url, readFileSync(ca, 'utf8'));
    expect(authorized).toBe(true);
    expect(cert.checkIssued(new X509Certificate(readFileSync(ca)))).toBe(true);
    for (const name of ['DNS:localhost', 'IP Address:127.0.0.1', `DNS:${hostname()}`])
      expect(cert.subjectAltName).toContain(name);
    expect(statSync(join(configDir, 'sandbox', 'tls', 'ca-key.pem')).mode & 0o777).toBe(0o600);
  });

  it('orc trusts its own sandbox: the built-in profile runs over https with nothing to set', async () => {
    const r = await orc(['run', 'create', ...idea, '--json'], { configDir });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).id).toMatch(/^run_/);
  });

  it('elsewhere a certificate orc does not trust is exit 4 naming the host and the fix, with no retry', async () => {
    const other = freshConfigDir();
    const r = await orc(['run', 'list', '--json'], { configDir: other, env: { ORC_BASE_URL: url } });
    expect(r.exitCode).toBe(4);
    const { error } = JSON.parse(r.stderr);
    expect(error.message).toBe(
      `the certificate of ${new URL(url).host} is not trusted: it is signed by a CA orc does not trust; nothing was sent`,
    );
    expect(error.hint).toContain('NODE_EXTRA_CA_CERTS=<ca.pem>');
    expect(error.hint).toContain('--ca-file <ca.pem>');
    expect(r.stderr).not.toContain('retrying');
  });

  it('NODE_EXTRA_CA_CERTS, or a profile with --ca-file, makes orc trust it', async () => {
    const other = freshConfigDir();
    const viaEnv = await orc(['run', 'list', '--json'], {
      configDir: other,
      env: { ORC_BASE_URL: url, NODE_EXTRA_CA_CERTS: ca },
    });
    expect(viaEnv.exitCode, viaEnv.stderr).toBe(0);
    const added = await orc(
      ['profile', 'add', 'local-tls', '--base-url', url, '--with-key', '--ca-file', ca, '--json'],
      { configDir: other, input: 'sk_test_orc_sandbox_local\n' },
    );
    expect(added.exitCode, added.stderr).toBe(0);
    expect(JSON.parse(added.stdout).ca_file).toBe(ca);
    const viaProfile = await orc(['run', 'list', '--json', '--jq', 'length'], { configDir: other });
    expect(viaProfile.exitCode, viaProfile.stderr).toBe(0);
    expect(Number(viaProfile.stdout)).toBeGreaterThan(0);
  });

  it('a pull reads its files over https with the same trust: whole and checked with the CA, exit 4 without it', async () => {
    const made = await orc(['run', 'create', ...idea, '--watch', '--approve', 'idea,brand,final', '--json'], {
      configDir,
    });
    expect(made.exitCode, made.stderr).toBe(0);
    const id = /"run_id":"(run_[\w-]+)"/.exec(made.stdout)![1]!;
    const dir = join(freshConfigDir(), 'pulled');
    const pulled = await orc(['artifacts', 'pull', id, 'ipa', 'screenshots', '--dir', dir, '--json'], { configDir });
    expect(pulled.exitCode, pulled.stderr).toBe(0);
    const files = JSON.parse(pulled.stdout).files as Array<{ path: string; size: number; sha256: string }>;
    expect(files.length).toBeGreaterThan(1);
    for (const f of files) expect(createHash('sha256').update(readFileSync(f.path)).digest('hex')).toBe(f.sha256);
    const other = freshConfigDir();
    const untrusted = await orc(['artifacts', 'pull', id, 'ipa', '--dir', join(other, 'pulled'), '--json'], {
      configDir: other,
      env: { ORC_BASE_URL: url, NODE_EXTRA_CA_CERTS: undefined },
    });
    expect(untrusted.exitCode).toBe(4);
  }, 60_000);

  it('orc doctor says the way there (direct, or the proxy and its variable) and names an untrusted certificate with the fix', async () => {
    const other = freshConfigDir();
    const r = await orc(['doctor', '--json'], {
      configDir: other,
      env: {
        ORC_BASE_URL: url,
        HTTPS_PROXY: 'http://127.0.0.1:1',
        NO_PROXY: '127.0.0.1',
        NODE_EXTRA_CA_CERTS: undefined,
      },
    });
    const checks = JSON.parse(r.stdout).checks as Array<{ id: string; status: string; message: string; fix?: string }>;
    expect(checks.find((c) => c.id === 'network')).toMatchObject({ status: 'pass', message: 'direct, no proxy' });
    expect(checks.find((c) => c.id === 'service')).toMatchObject({
      status: 'fail',
      message: expect.stringContaining('is not trusted'),
    });
    expect(checks.find((c) => c.id === 'service')!.fix).toContain('NODE_EXTRA_CA_CERTS');
    const proxied = await orc(['doctor', '--json'], {
      configDir: other,
      env: { ORC_BASE_URL: url, HTTPS_PROXY: 'http://user:pw@127.0.0.1:1', NODE_EXTRA_CA_CERTS: ca },
    });
    const network = (JSON.parse(proxied.stdout).checks as Array<{ id: string; message: string }>).find(
      (c) => c.id === 'network',
    )!;
    expect(network.message).toBe(
      `through the proxy http://user:…@127.0.0.1:1 (from HTTPS_PROXY); trusting the CAs in ${ca} (NODE_EXTRA_CA_CERTS) too`,
    );
  });

  it('profile add --ca-file refuses a file that holds no certificate, naming the flag, and saves nothing', async () => {
    const other = freshConfigDir();
    const r = await orc(['profile', 'add', 'x', '--base-url', url, '--with-key', '--ca-file', ORC_BIN], {
      configDir: other,
      input: 'sk_test_orc_sandbox_local\n',
    });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('--ca-file');
    expect((await orc(['profile', 'list', '--json'], { configDir: other })).stdout).not.toContain('"x"');
  });

  it('keeps its CA across restarts, so it is trusted once', async () => {
    const before = readFileSync(ca, 'utf8');
    await orc(['sandbox', 'stop'], { configDir });
    const r = await orc(['sandbox', 'start', '--tls', '--detach', '--port', '0', '--stage-ms', '20'], { configDir });
    expect(r.exitCode, r.stderr).toBe(0);
    url = /listening on (https:\/\/\S+)/.exec(r.stdout)![1]!;
    expect(readFileSync(ca, 'utf8')).toBe(before);
    expect((await peer(url, before)).authorized).toBe(true);
  });

  it('--json gives the CA file beside the address, for a script to trust', async () => {
    const other = freshConfigDir();
    const r = await orc(['sandbox', 'start', '--tls', '--detach', '--port', '0', '--json'], { configDir: other });
    try {
      expect(r.exitCode, r.stderr).toBe(0);
      const doc = JSON.parse(r.stdout);
      expect(doc.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      expect(doc.ca_file).toBe(join(other, 'sandbox', 'tls', 'ca.pem'));
      expect((await peer(doc.url, readFileSync(doc.ca_file, 'utf8'))).authorized).toBe(true);
    } finally {
      await orc(['sandbox', 'stop'], { configDir: other });
    }
  });

  it('--stand-in-live needs --tls and the live key in ORC_SANDBOX_LIVE_KEY, each said naming the flag', async () => {
    const noTls = await orc(['sandbox', 'start', '--stand-in-live', '--memory', '--port', '0'], {
      env: { ORC_SANDBOX_LIVE_KEY: 'sk_live_stand_in_0001' },
    });
    expect(noTls.exitCode).toBe(2);
    expect(noTls.stderr).toContain('--stand-in-live needs --tls');
    const noKey = await orc(['sandbox', 'start', '--tls', '--stand-in-live', '--memory', '--port', '0'], {
      env: { ORC_SANDBOX_LIVE_KEY: undefined },
    });
    expect(noKey.exitCode).toBe(2);
    expect(noKey.stderr).toContain('ORC_SANDBOX_LIVE_KEY');
  });
});

const withKeyring =
  needTool('gnome-keyring-daemon', 'the live profile over TLS', 'gnome-keyring') &&
  needTool('dbus-daemon', 'the live profile over TLS', 'dbus');
const withTmux = needTool('tmux', 'the live confirmation at a terminal');

describe.runIf(withKeyring)(
  'a live profile, end to end over TLS, against the sandbox standing in for the live service',
  () => {
    const LIVE = 'sk_live_stand_in_key_000009876';
    const configDir = freshConfigDir();
    // A sandbox in memory keeps its CA in its config folder.
    const sandboxConfig = freshConfigDir();
    let keyring: Keyring;
    let sandbox: { url: string; proc: OrcProcess };
    let liveUrl: string;
    let env: Record<string, string | undefined>;
    beforeAll(async () => {
      keyring = await startKeyring();
      // The live service is never a loopback name: the stand-in answers at this machine's host name, on the
      // address that name has here.
      const { address } = await lookup(hostname());
      sandbox = await startSandboxProcess(
        ['--tls', '--stand-in-live', '--memory', '--host', address, '--port', '0', '--stage-ms', '20'],
        { configDir: sandboxConfig, env: { ORC_SANDBOX_LIVE_KEY: LIVE } },
      );
      liveUrl = `https://${hostname()}:${new URL(sandbox.url).port}`;
      env = { ...keyring.env, ORC_NO_KEYCHAIN: undefined };
    }, 30_000);
    afterAll(async () => {
      sandbox?.proc.kill('SIGTERM');
      await sandbox?.proc;
      keyring?.close();
    });

    const caOf = () => join(sandboxConfig, 'tls', 'ca.pem');

    it('keeps the live key in the keychain, sends it only over TLS, and only with --live', async () => {
      const added = await orc(['profile', 'add', 'prod', '--base-url', liveUrl, '--with-key', '--ca-file', caOf()], {
        configDir,
        env,
        input: `${LIVE}\n`,
      });
      expect(added.exitCode, added.stderr).toBe(0);
      expect(added.stderr).toContain('live key sk_live_…9876 in the system keychain');
      expect(readFileSync(join(configDir, 'config.json'), 'utf8')).not.toContain(LIVE);

      const withoutLive = await orc(['run', 'list'], { configDir, env });
      expect(withoutLive.exitCode).toBe(4);
      expect(withoutLive.stderr).toContain('has no test key');

      const created = await orc(['--live', 'run', 'create', ...idea, '--json', '--debug'], { configDir, env });
      expect(created.exitCode, created.stderr).toBe(0);
      expect(created.stderr).toContain('LIVE');
      expect(created.stderr).toContain(`> POST ${liveUrl}/v1/runs`);
      expect(created.stderr).toContain('> authorization: Bearer sk_live_…9876');
      expect(created.stderr + created.stdout).not.toContain(LIVE);

      // Over plain http the key never leaves: refused before anything is sent.
      const plain = await orc(['--live', 'run', 'list'], {
        configDir,
        env: { ...env, ORC_BASE_URL: liveUrl.replace('https:', 'http:') },
      });
      expect(plain.exitCode).toBe(4);
      expect(plain.stderr).toContain('plain http is only for this machine');
    }, 30_000);

    it('a live cancel without a terminal needs --yes; the sandbox controls never go live', async () => {
      const id = JSON.parse((await orc(['--live', 'run', 'create', ...idea, '--json'], { configDir, env })).stdout)
        .id as string;
      const refused = await orc(['--live', 'run', 'cancel', id], { configDir, env });
      expect(refused.exitCode).toBe(2);
      expect(refused.stderr).toContain('needs --yes');
      const canceled = await orc(['--live', 'run', 'cancel', id, '--yes', '--json'], { configDir, env });
      expect(canceled.exitCode, canceled.stderr).toBe(0);
      expect(JSON.parse(canceled.stdout).status).toBe('canceled');
      const control = await orc(['--live', 'sandbox', 'clock'], { configDir, env });
      expect(control.exitCode).toBe(2);
      expect(control.stderr).toContain('never go to a live service');
    }, 30_000);

    it.runIf(withTmux)(
      'at a terminal, a live cancel asks first, and "no" leaves the run going',
      async () => {
        const id = JSON.parse((await orc(['--live', 'run', 'create', ...idea, '--json'], { configDir, env })).stdout)
          .id as string;
        const term = TmuxSession.start([process.execPath, ORC_BIN, '--live', 'run', 'cancel', id], {
          env: { ...keyring.env, ORC_CONFIG_DIR: configDir },
        });
        try {
          await term.waitFor(`Cancel live run ${id}?`);
          term.send('n');
          term.send('Enter');
          expect(await term.exitCode()).toBe(130);
        } finally {
          term.kill();
        }
        const after = await orc(['--live', 'run', 'get', id, '--json'], { configDir, env });
        expect(JSON.parse(after.stdout).status).not.toBe('canceled');
      },
      30_000,
    );
  },
);
