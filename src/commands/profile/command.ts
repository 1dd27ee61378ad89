// `orc profile …`: base URLs with their test and live keys.
import { arg, command, flag, handled } from '../define.js';

export const add = command({
  name: 'add',
  summary: 'Add or update a profile; keys from a masked prompt or stdin, never arguments',
  json: 'the profile, keys redacted, and where each key is kept',
  args: [arg.word('name')],
  flags: {
    baseUrl: flag.string('url', 'the service address (https://…)'),
    withKey: flag.bool('read the key(s) from stdin, one a line (sk_test_… and/or sk_live_…)'),
    caFile: flag.string(
      'pem',
      'trust the CA certificates in this PEM file for this profile, besides the system\'s ("" to stop)',
      { complete: 'files' },
    ),
  },
  examples: [
    'orc profile add prod --base-url https://api.example.com',
    'orc profile add staging --base-url https://staging.example.com --ca-file ./company-ca.pem',
    'printf "%s\\n" "$TEST_KEY" "$LIVE_KEY" | orc profile add ci --base-url https://api.example.com --with-key',
  ],
});

export const list = command({
  name: 'list',
  summary: 'List profiles (keys redacted)',
  json: 'an array of profiles, keys redacted, and where each key is kept',
  examples: ['orc profile list', 'orc profile list --json'],
});
export const use = command({
  name: 'use',
  summary: 'Make a profile the active one',
  json: '{ active_profile }',
  args: [arg.word('name', { complete: 'profiles' })],
  examples: ['orc profile use prod', 'orc profile use sandbox'],
});
export const show = command({
  name: 'show',
  summary: 'Show a profile and where each key is kept',
  json: 'the profile, keys redacted, where each key is kept, and the config file',
  args: [arg.optionalWord('name', { complete: 'profiles' })],
  examples: ['orc profile show', 'orc profile show prod --json'],
});
export const remove = command({
  name: 'remove',
  summary: 'Remove a profile and its keys (asks first at a terminal; --yes otherwise)',
  json: '{ name, removed: true }',
  args: [arg.word('name', { complete: 'profiles' })],
  flags: { yes: flag.bool('remove without asking', { short: 'y' }) },
  examples: ['orc profile remove old', 'orc profile remove old --yes --json'],
});

export default command({
  name: 'profile',
  summary: 'Manage profiles: a base URL with a test key and a live key',
  examples: ['orc profile add prod --base-url https://api.example.com', 'orc profile list', 'orc profile use prod'],
  subcommands: [
    handled(add, () => import('./add.js')),
    handled(list, () => import('./list.js')),
    handled(use, () => import('./use.js')),
    handled(show, () => import('./show.js')),
    handled(remove, () => import('./remove.js')),
  ],
});
