// Whether a coding agent runs orc (the variables the usual ones set), and the help it then gets: the
// non-interactive flags and the exit codes, as the Stripe CLI adds for agents. Nothing else changes.

/** The variable and the agent it names; ORC_AGENT=1 says so by hand. */
const AGENT_VARIABLES: Array<[string, string]> = [
  ['ORC_AGENT', 'ORC_AGENT'],
  ['CLAUDECODE', 'Claude Code'],
  ['CLAUDE_CODE_ENTRYPOINT', 'Claude Code'],
  ['CURSOR_AGENT', 'Cursor'],
  ['CODEX_SANDBOX', 'Codex'],
  ['CODEX_CI', 'Codex'],
  ['GEMINI_CLI', 'Gemini CLI'],
  ['CLINE_ACTIVE', 'Cline'],
  ['AMP_THREAD_ID', 'Amp'],
  ['OPENCODE', 'opencode'],
  ['REPL_ID', 'Replit Agent'],
];

export const AGENT_VARIABLE_NAMES = AGENT_VARIABLES.map(([v]) => v);

export function agentIn(env: NodeJS.ProcessEnv): string | null {
  for (const [name, agent] of AGENT_VARIABLES) {
    const v = env[name];
    if (v !== undefined && v !== '' && v !== '0' && v !== 'false') return agent;
  }
  return null;
}

export function agentHelp(agent: string): string {
  return [
    '',
    `For agents (${agent} seen): orc never prompts without a terminal; give decisions as flags.`,
    '  --json, --jq <expr>       data on stdout; a failure is one JSON object on stderr',
    '  --no-input                exit 2 where orc would ask, naming what is missing',
    '  --approve idea,brand,final, --on-gate exit    decide gates, or stop at one (exit 6)',
    '  --max-wait 10m            bounded waits: exit 7 when the time runs out (the run goes on)',
    '  --yes                     confirm what would be asked (remove, reset)',
    'Exit codes: 0 ok, 1 failure, 2 usage, 3 refused, 4 auth/config, 5 run ended badly, 6 gate pending,',
    '7 --max-wait ran out, 130 interrupted. `orc mcp` serves the same as MCP tools.',
    '',
  ].join('\n');
}
