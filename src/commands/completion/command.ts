// `orc completion <shell>`.
import { arg, command, handled } from '../define.js';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;

export const completion = command({
  name: 'completion',
  summary: 'Print the shell completion script for bash, zsh or fish',
  json: '{ shell, script }',
  args: [arg.word('shell', { complete: SHELLS })],
  examples: [
    'source <(orc completion bash)          # in ~/.bashrc',
    'orc completion zsh > "${fpath[1]}/_orc"  # then restart zsh',
    'orc completion fish > ~/.config/fish/completions/orc.fish',
  ],
});

export default handled(completion, () => import('./print.js'));
