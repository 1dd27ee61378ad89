// The nouns of orc, and nothing else: each one's commands, flags and help live in <noun>/command.ts,
// loaded only when that noun is used (`orc --help` needs just these names and summaries).
import type { CommandDef } from './define.js';

export interface Noun {
  name: string;
  summary: string;
  load: () => Promise<{ default: CommandDef }>;
}

export const NOUNS: readonly Noun[] = [
  { name: 'run', summary: 'Create, read, list, cancel and retry runs', load: () => import('./run/command.js') },
  {
    name: 'watch',
    summary: 'Watch a run live (or several, or --all), deciding their gates as they open',
    load: () => import('./watch/command.js'),
  },
  { name: 'gate', summary: 'List and decide the approval gates of a run', load: () => import('./gate/command.js') },
  { name: 'spec', summary: 'Read, edit and compare the App Specs of runs', load: () => import('./spec/command.js') },
  {
    name: 'logs',
    summary: 'Show the log lines of a run: all of them, by stage, or the failing stage with its error',
    load: () => import('./logs/command.js'),
  },
  {
    name: 'scorecard',
    summary:
      'Show the scorecard of a run: scores, pre-flight checks with what to change, and what the scores are made of',
    load: () => import('./scorecard/command.js'),
  },
  { name: 'artifacts', summary: 'List and download what a run produced', load: () => import('./artifacts/command.js') },
  {
    name: 'webhook',
    summary: 'Manage webhooks, check their signatures, and listen to them locally',
    load: () => import('./webhook/command.js'),
  },
  {
    name: 'api',
    summary: 'Make any request to the service (with your key, retries and limits) and print the answer',
    load: () => import('./api/command.js'),
  },
  {
    name: 'doctor',
    summary:
      'Check what orc needs (Node, config, profile and keys, the service, completion, PATH) and say how to fix it',
    load: () => import('./doctor/command.js'),
  },
  {
    name: 'verify',
    summary:
      'Check a target against the contract orc speaks (read-only unless --write) and print every place it differs',
    load: () => import('./verify/command.js'),
  },
  {
    name: 'mcp',
    summary: 'Run a Model Context Protocol server (stdio, or --http), so agents can drive runs and decide gates',
    load: () => import('./mcp/command.js'),
  },
  {
    name: 'profile',
    summary: 'Manage profiles: a base URL with a test key and a live key',
    load: () => import('./profile/command.js'),
  },
  {
    name: 'completion',
    summary: 'Print the shell completion script for bash, zsh or fish',
    load: () => import('./completion/command.js'),
  },
  {
    name: 'sandbox',
    summary: 'Run the local emulator of the Run Orchestration Service',
    load: () => import('./sandbox/command.js'),
  },
];

/** Every command def, for help, completion and tests. */
export async function allCommands(): Promise<CommandDef[]> {
  return Promise.all(NOUNS.map(async (n) => (await n.load()).default));
}
