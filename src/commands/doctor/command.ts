// `orc doctor`: Node, the config folder, the profile and its keys, the service and the key, completion, PATH.
import { command, handled } from '../define.js';

export const doctor = command({
  name: 'doctor',
  summary: 'Check what orc needs (Node, config, profile and keys, the service, completion, PATH) and say how to fix it',
  json: '{ ok, checks: [{ id, status: pass|warn|fail, message, fix }] }',
  examples: [
    'orc doctor',
    'orc doctor --json | jq ".checks[] | select(.status != \\"pass\\")"',
    'orc doctor --profile prod --live',
  ],
});

export default handled(doctor, () => import('./check.js'));
