// `orc mcp`: orc as a Model Context Protocol server on stdio or over HTTP, for agents (src/mcp/server.ts).
import { command, flag, handled } from '../define.js';
import { DEFAULT_TOOLSETS, TOOLSET_NAMES, TOOLSETS } from '../../mcp/toolsets.js';

export const MCP_CONFIG = `{
  "mcpServers": {
    "orc": { "command": "orc", "args": ["mcp"] }
  }
}`;

export const mcp = command({
  name: 'mcp',
  summary: 'Run a Model Context Protocol server (stdio, or --http), so agents can drive runs and decide gates',
  json: 'none on stdio (stdout carries the MCP protocol); with --http one line { url, token? (unless ORC_MCP_TOKEN), ca_file? (--tls) }; with --list-tools: { tools: [each as tools/list sends it], bytes: the JSON size of that tools/list result }',
  flags: {
    toolsets: flag.list(
      'set,set',
      TOOLSET_NAMES,
      `offer the tools of these toolsets (default ${DEFAULT_TOOLSETS.join(',')}; see the list below)`,
    ),
    readOnly: flag.bool(
      'offer only the tools that read (no create, cancel, decide, update, download or webhook change)',
    ),
    tools: flag.string(
      'name,name',
      'offer only these tools: of every toolset but sandbox, or of --toolsets when given (see the list below)',
    ),
    sandboxTools: flag.bool('the same as adding sandbox to --toolsets: advance_clock, trigger_event, reset_sandbox'),
    listTools: flag.bool(
      'print the tools a client would see with these flags, and their size in bytes, then exit (nothing is sent)',
    ),
    root: flag.string(
      'dir',
      'the folder pull_artifacts may write into, and below (default: the folder the server runs in)',
    ),
    yesLiveDecisions: flag.bool(
      'with --live: let the agent approve and reject gates without asking a person (by default they ask through MCP elicitation, and are refused where the client cannot ask)',
    ),
    http: flag.bool(
      'serve over Streamable HTTP at /mcp instead of stdio: the URL, then the token (unless ORC_MCP_TOKEN), on stdout',
    ),
    host: flag.string(
      'host',
      'with --http: the address to listen on (default 127.0.0.1; another than loopback needs --tls)',
    ),
    port: flag.int('port', 'with --http: the port (default 0: a free one, said in the URL)', { min: 0, max: 65535 }),
    tls: flag.bool(
      "with --http: serve https with a certificate signed by orc's private CA (its path printed; trust it with NODE_EXTRA_CA_CERTS)",
    ),
    insecurePlainHttp: flag.bool(
      'with --http on a host other than loopback: serve plain http anyway, the token readable by anyone on the path',
    ),
    maxSessions: flag.int(
      'n',
      'with --http: sessions held at once (default 32); at the cap the least recently active idle one gives way (503 when every one has a request open or a wait running)',
      {
        min: 1,
        max: 10_000,
      },
    ),
    idleTimeout: flag.int('ms', 'with --http: a session with no request open this long is closed (default 30m)', {
      min: 1000,
    }),
  },
  examples: [
    'orc mcp',
    'orc mcp --read-only',
    'orc mcp --toolsets runs,gates,webhooks --list-tools',
    'orc mcp --tools list_runs,get_run,wait_for_run,approve_gate',
    'orc mcp --live --profile prod --tools list_runs,get_run,wait_for_run',
    'orc mcp --http --port 8931',
    'ORC_MCP_TOKEN=… orc mcp --http --host 0.0.0.0 --tls --port 8931',
  ],
  more: `Add orc to an MCP client (Claude Desktop, Cursor, VS Code…) in its configuration:

${MCP_CONFIG}

From a checkout without orc on the PATH: "command": "npx", "args": ["orc", "mcp"].
Add "--read-only" to "args" for an agent that should only look, and "env": { "ORC_PROFILE": "…" }
to pick a profile. The test key is used unless "--live" is given; a live server offers cancel_run
and reject_gate only when they are named in --tools, and approve_gate and reject_gate ask the person
through the client (MCP elicitation: the decision and the notes) unless --yes-live-decisions is given;
a client that cannot ask gets a tool error saying so.

Toolsets (--toolsets, listed in this order whatever the flag's; default ${DEFAULT_TOOLSETS.join(',')}: 14 tools,
22,797 bytes as tools/list sends them; \`orc mcp --list-tools\` shows what a client would see with your flags):
${TOOLSET_NAMES.map((set) => `  ${set.padEnd(10)} ${TOOLSETS[set].join(', ')}`).join('\n')}
sandbox is for test mode only (--sandbox-tools adds it). --read-only leaves only the tools that read; --tools
offers only the tools it names (of every toolset but sandbox, or of --toolsets when given).
Resources: orc://runs/{id} (a run and its gates), orc://runs/{id}/spec, and
orc://runs/{id}/artifacts/{kind}/{name} (a file get_artifact links to, read whole up to 7 MiB).

Over HTTP (--http): the same tools at http://127.0.0.1:<port>/mcp, for an agent on another machine or in
another container. stdout gets the URL, then a token printed this once (or set ORC_MCP_TOKEN: then it is
printed nowhere); a client sends "Authorization: Bearer <token>" on every request, as
"headers": { "Authorization": "Bearer …" } beside "url" in its configuration. A request without it gets
401; a Host or Origin that is not loopback's or --host's gets 403. Only loopback unless --tls (https, orc's
private CA, its path printed) or --insecure-plain-http. Bodies over 10 MiB get 413; at most --max-sessions
sessions (default 32: at the cap the least recently active one with no request open and no wait running gives way to a new one,
else 503), each closed after --idle-timeout (default 30m) with no request open. Ctrl-C or SIGTERM closes it
(exit 130).
`,
});

export default handled(mcp, () => import('./serve.js'));
