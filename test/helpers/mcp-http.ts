// The built `orc mcp --http` as a process: started against a base URL with a fresh config folder, resolved once
// it printed its URL (and its token, unless given one), to be stopped by a signal.
import { orc, type OrcProcess } from './cli.js';

export interface McpHttpProcess {
  url: string;
  /** The token it printed, or undefined when it was given ORC_MCP_TOKEN. */
  token: string | undefined;
  /** Under --json, the CA to trust with --tls. */
  caFile?: string;
  proc: OrcProcess;
}

export async function startMcpHttp(
  baseUrl: string,
  args: string[] = [],
  env: Record<string, string> = {},
): Promise<McpHttpProcess> {
  const proc = orc(['mcp', '--http', ...args], {
    env: { ORC_BASE_URL: baseUrl, ORC_NO_KEYCHAIN: '1', ...env },
    timeout: 300_000,
  });
  const printed = await new Promise<string[]>((resolve, reject) => {
    let out = '';
    proc.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      const lines = out.split('\n').filter(Boolean);
      if (args.includes('--json') ? lines.length >= 1 : lines.length >= (env.ORC_MCP_TOKEN ? 1 : 2)) resolve(lines);
    });
    proc.then((r) => reject(new Error(`orc mcp --http exited ${r.exitCode}: ${r.stderr}`)), reject);
  });
  if (args.includes('--json')) {
    const { url, token, ca_file } = JSON.parse(printed[0]!) as { url: string; token?: string; ca_file?: string };
    return { url, token, ...(ca_file ? { caFile: ca_file } : {}), proc };
  }
  return { url: printed[0]!, token: printed[1], proc };
}
