// `orc artifacts …`: what a run produced, listed, and pulled to disk.
import { ARTIFACT_KINDS } from '../../contract/events.js';
import { arg, command, flag, handled } from '../define.js';

export const list = command({
  name: 'list',
  summary: 'The artifacts of a run: kind, status, size, files, sha256',
  json: 'the manifest: an array of { kind, status, content_type, size, sha256, files, updated_at }',
  args: [arg.id('run', { complete: 'runs' })],
  examples: [
    'orc artifacts list run_8fJ2kQ',
    'orc artifacts list run_8fJ2kQ --json | jq \'.[] | select(.status == "ready") | .kind\'',
  ],
});

export const pull = command({
  name: 'pull',
  summary: 'Download artifacts, checked by sha256, resumable (every ready kind, or those named)',
  json: '{ run, dir, files: [{ kind, name, path, size, sha256, state: downloaded|resumed|present }], pending: [kind], failed: [{ kind, name, path, error }] }',
  args: [arg.optionalId('run', { complete: 'runs' }), arg.rest('kind', { complete: ARTIFACT_KINDS })],
  flags: {
    dir: flag.string('dir', 'where to put them (default: ./<run id>/)', { complete: 'files' }),
    concurrency: flag.int('n', 'files downloaded at a time', { min: 1, max: 32, default: 4 }),
  },
  examples: [
    'orc artifacts pull run_8fJ2kQ',
    'orc artifacts pull run_8fJ2kQ ipa --dir build/',
    'orc artifacts pull run_8fJ2kQ screenshots metadata --json',
  ],
});

export default command({
  name: 'artifacts',
  summary: 'List and download what a run produced',
  examples: [
    'orc artifacts list run_8fJ2kQ',
    'orc artifacts pull run_8fJ2kQ',
    'orc artifacts pull run_8fJ2kQ ipa --dir build/',
  ],
  subcommands: [handled(list, () => import('./list.js')), handled(pull, () => import('./pull.js'))],
});
