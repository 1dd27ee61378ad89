// `orc api <METHOD> <path|url>`: any request to the service with the profile's key, retries and limits,
// through the one request path, the way `gh api` works.
import { arg, command, flag, handled } from '../../cli/spec.js';

export const METHODS = ['GET', 'POST', 'PATCH', 'PUT', 'DELETE', 'HEAD'] as const;

export const api = command({
  name: 'api',
  summary: 'Make any request to the service (with your key, retries and limits) and print the answer',
  json: 'the answer body as it came; with --paginate, one array of every item',
  args: [arg.word('method', { complete: METHODS }), arg.word('path')],
  flags: {
    data: flag.string('json|@file|-', 'the request body: JSON text, @file, or - for stdin', { complete: 'files' }),
    field: flag.multi('key=value', 'a field of a JSON body (dotted keys nest; true, false, null and numbers are typed); on GET, a query parameter; repeatable', { short: 'f' }),
    header: flag.multi('Name: value', 'a request header; repeatable', { short: 'H' }),
    paginate: flag.bool('follow next_cursor and print one JSON array of every item of every page'),
    include: flag.bool('print the status line and headers on stderr first'),
  },
  examples: [
    'orc api GET /v1/runs',
    'orc api GET /v1/runs --paginate | jq length',
    'orc api POST /v1/runs -f mode=idea -f idea.pitch="A habit tracker" -f idea.audience=runners -f idea.monetization=freemium',
    'orc api PATCH /v1/runs/run_8fJ2kQ/spec --data \'{"tagline":"Run every day"}\'',
    'orc api GET /v1/runs/run_8fJ2kQ --include',
  ],
});

export default handled(api, () => import('./request.js'));
