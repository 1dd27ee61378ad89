// Which URL and key a command uses, and the key-safety rules, without any network.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveTarget } from '../../src/config/target.js';
import { SANDBOX_DEFAULT_KEY } from '../../src/contract/keys.js';

function configWith(profiles: object, active?: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'orc-target-'));
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles, ...(active ? { active_profile: active } : {}) }));
  return dir;
}
const prod = {
  base_url: 'https://api.example.com',
  test_key: 'sk_test_prod1234',
  live_key: 'sk_live_prod5678',
  live_key_in: 'file',
};

describe('resolveTarget', () => {
  it('with nothing configured: the built-in sandbox, which orc may start, with the key its data folder will hold', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'orc-empty-'));
    const t = await resolveTarget({}, {}, dir);
    expect(t).toMatchObject({
      profile: 'sandbox',
      baseUrl: 'http://127.0.0.1:4010',
      mode: 'test',
      autoStartSandbox: true,
    });
    // the folder's own, not the key every sandbox once shared: the sandbox orc starts there takes the same
    expect(t.key).toMatch(/^sk_test_[0-9a-f]{32}$/);
    expect(readFileSync(join(dir, 'sandbox', 'sandbox.key'), 'utf8').trim()).toBe(t.key);
    expect((await resolveTarget({}, {}, dir)).key).toBe(t.key);
    expect((await resolveTarget({}, { ORC_SANDBOX_API_KEY: 'sk_test_given1234' }, dir)).key).toBe('sk_test_given1234');
  });

  it('does not start a sandbox when a URL was given', async () => {
    const t = await resolveTarget(
      {},
      { ORC_BASE_URL: 'http://127.0.0.1:5555/' },
      mkdtempSync(join(tmpdir(), 'orc-empty-')),
    );
    expect(t).toMatchObject({ baseUrl: 'http://127.0.0.1:5555', baseUrlFrom: 'env', autoStartSandbox: false });
  });

  describe('with a sandbox started from this folder (its record: this live pid)', () => {
    const started = (url: string, extra: object = {}) => {
      const dir = mkdtempSync(join(tmpdir(), 'orc-started-'));
      writeFileSync(
        join(dir, 'sandbox.json'),
        JSON.stringify({
          pid: process.pid,
          url,
          data: dir,
          log: null,
          started_at: '2026-11-22T10:00:00.000Z',
          detached: true,
          ...extra,
        }),
      );
      return dir;
    };

    it('trusts the CA of a --tls sandbox when --base-url or ORC_BASE_URL points at it, by either loopback name', async () => {
      const dir = started('https://127.0.0.1:4443', { ca_file: '/x/ca.pem' });
      expect((await resolveTarget({}, {}, dir)).caFile).toBe('/x/ca.pem');
      expect((await resolveTarget({ baseUrl: 'https://127.0.0.1:4443' }, {}, dir)).caFile).toBe('/x/ca.pem');
      expect((await resolveTarget({}, { ORC_BASE_URL: 'https://localhost:4443/' }, dir)).caFile).toBe('/x/ca.pem');
      expect((await resolveTarget({ baseUrl: 'https://127.0.0.1:5555' }, {}, dir)).caFile).toBeUndefined();
      expect((await resolveTarget({ baseUrl: 'http://127.0.0.1:4443' }, {}, dir)).caFile).toBeUndefined();
    });

    it("sends the sandbox's own key only to that sandbox: --base-url or ORC_BASE_URL elsewhere gets the public default key", async () => {
      const own = 'sk_test_0123456789abcdef0123456789abcdef';
      const dir = started('http://127.0.0.1:4010', { api_key: own });
      expect((await resolveTarget({}, {}, dir)).key).toBe(own);
      expect((await resolveTarget({ baseUrl: 'http://localhost:4010' }, {}, dir)).key).toBe(own);
      expect((await resolveTarget({ baseUrl: 'http://127.0.0.1:5555' }, {}, dir)).key).toBe(SANDBOX_DEFAULT_KEY);
      expect((await resolveTarget({}, { ORC_BASE_URL: 'http://127.0.0.1:6666/' }, dir)).key).toBe(SANDBOX_DEFAULT_KEY);
    });

    it('ORC_SANDBOX_PORT names the sandbox to talk to, not the one recorded on another port', async () => {
      const dir = started('http://127.0.0.1:4010');
      expect(await resolveTarget({}, { ORC_SANDBOX_PORT: '4014' }, dir)).toMatchObject({
        baseUrl: 'http://127.0.0.1:4014',
        autoStartSandbox: true,
      });
      expect((await resolveTarget({}, { ORC_SANDBOX_PORT: '4010' }, dir)).baseUrl).toBe('http://127.0.0.1:4010');
      expect((await resolveTarget({}, {}, dir)).baseUrl).toBe('http://127.0.0.1:4010');
    });
  });

  it('--live takes the live key and the live service', async () => {
    const t = await resolveTarget({ live: true }, {}, configWith({ prod }, 'prod'));
    expect(t).toMatchObject({
      profile: 'prod',
      mode: 'live',
      key: 'sk_live_prod5678',
      baseUrl: 'https://api.example.com',
      autoStartSandbox: false,
    });
  });

  it('orders flag > env > active profile for the profile name', async () => {
    const dir = configWith({ prod, other: { ...prod, base_url: 'https://other.example.com' } }, 'prod');
    expect((await resolveTarget({ live: true }, {}, dir)).profile).toBe('prod');
    expect(await resolveTarget({ live: true }, { ORC_PROFILE: 'other' }, dir)).toMatchObject({
      profile: 'other',
      baseUrl: 'https://other.example.com',
    });
    expect((await resolveTarget({ live: true, profile: 'prod' }, { ORC_PROFILE: 'other' }, dir)).profile).toBe('prod');
  });

  it.each([
    [{}, { ORC_API_KEY: 'sk_live_x12345678' }, '--live was not given'],
    [{ live: true }, { ORC_API_KEY: 'sk_test_x12345678' }, '--live needs a live key'],
    [
      { live: true, baseUrl: 'http://localhost:4010' },
      { ORC_API_KEY: 'sk_live_x12345678' },
      'refusing to send a live key to the sandbox',
    ],
    [{ baseUrl: 'https://api.example.com' }, { ORC_PROFILE: 'sandbox' }, 'test keys are for the sandbox'],
    [{ baseUrl: 'ftp://x' }, {}, 'must be https://'],
    [{ baseUrl: 'https://user:pw@api.example.com' }, {}, 'user name or password'],
    [{}, { ORC_API_KEY: 'pk_nonsense' }, 'neither sk_test_'],
  ])('refuses %j with %j: %s', async (flags, env, message) => {
    await expect(resolveTarget(flags, env, configWith({ prod }))).rejects.toThrow(message);
  });
});
