// `orc api [METHOD] <path|url>` (GET when the method is left out): any request to the service with the
// profile's key, retries and limits,
// through the one request path, the way `gh api` works.
import { arg, command, flag, handled } from '../define.js';

export const METHODS = ['GET', 'POST', 'PATCH', 'PUT', 'DELETE', 'HEAD'] as const;

export const api = command({
  name: 'api',
  summary: 'Make any request to the service (with your key, retries and limits) and print the answer',
  json: 'the answer body as it came; with --paginate, one array of every item; with --openapi, the OpenAPI 3.1 document (3.2 with --oas 3.2)',
  args: [arg.optionalWord('method', { complete: METHODS }), arg.optionalWord('path')],
  flags: {
    data: flag.string('json|@file|-', 'the request body: JSON text, @file, or - for stdin', { complete: 'files' }),
    field: flag.multi(
      'key=value',
      'a field of a JSON body (dotted keys nest; true, false, null and numbers are typed); on GET, a query parameter; repeatable',
      { short: 'f' },
    ),
    header: flag.multi('Name: value', 'a request header; repeatable', { short: 'H' }),
    paginate: flag.bool('follow next_cursor and print one JSON array of every item of every page'),
    include: flag.bool('print the status line and headers on stderr first'),
    openapi: flag.bool(
      'print the OpenAPI 3.1 document of the service (made from the contract orc speaks; nothing is sent)',
    ),
    oas: flag.choice(
      'version',
      ['3.1', '3.2'],
      "with --openapi: the document's OpenAPI version (3.2 also describes each message of the event stream)",
      { default: '3.1' },
    ),
  },
  examples: [
    'orc api /v1/runs',
    'orc api GET /v1/runs --paginate | jq length',
    'orc api POST /v1/runs -f mode=idea -f idea.pitch="A habit tracker" -f idea.audience=runners -f idea.monetization=freemium',
    'orc api PATCH /v1/runs/run_8fJ2kQ/spec --data \'{"tagline":"Run every day"}\'',
    'orc api GET /v1/runs/run_8fJ2kQ --include',
    'orc api --openapi > openapi.json',
    'orc api --openapi --oas 3.2 > openapi-3.2.json',
  ],
});

export default handled(api, () => import('./request.js'));
