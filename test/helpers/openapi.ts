// Every sandbox answer a contract test sees, checked against orc's OpenAPI document (src/contract/openapi.ts)
// by a JSON Schema validator orc does not otherwise use (@cfworker/json-schema, 2020-12): the document is
// proven by what the service answers, not only by itself.
import { Validator } from '@cfworker/json-schema';
import { openApiDocument } from '../../src/contract/openapi.js';

type Json = Record<string, any>;
let doc: Json | null = null;
const validators = new Map<string, Validator>();

/** The path template of the document that `path` is, or null (`/v1/runs/run_x/gates/idea:approve`). */
function template(paths: Json, path: string): string | null {
  for (const t of Object.keys(paths)) {
    const re = new RegExp(`^${t.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/:]+')}$`);
    if (re.test(path)) return t;
  }
  return null;
}

/** Checks one answer; throws naming the operation and what is wrong. Routes outside the document
 * (/_sandbox/, /files/, /healthz) and answers that are not JSON are not its business. */
export function checkAnswer(method: string, rawPath: string, status: number, body: unknown): void {
  doc ??= openApiDocument('test');
  const path = rawPath.split('?')[0]!;
  const t = template(doc.paths, path);
  if (!t || body === undefined) return;
  const op = doc.paths[t][method.toLowerCase()];
  if (!op) return; // 405: the envelope is checked by the tests that ask for it
  const response = op.responses[String(status)] ?? op.responses.default;
  const schema = response?.content?.['application/json']?.schema;
  if (!schema) return;
  const key = `${method} ${t} ${String(status)}`;
  let v = validators.get(key);
  if (!v) {
    v = new Validator({ ...schema, components: doc.components } as never, '2020-12', false);
    validators.set(key, v);
  }
  const result = v.validate(body);
  if (!result.valid)
    throw new Error(
      `the answer to ${method} ${path} (${status}) does not match the OpenAPI document (${key}): ${result.errors
        .map((e) => `${e.instanceLocation} ${e.error}`)
        .slice(0, 3)
        .join('; ')}`,
    );
}

/** Whether the document allows this request: its body against the operation's request schema, and its
 * header parameters against theirs. (The other half of checkAnswer: what a client may send.) */
export function allowsRequest(method: string, path: string, body: unknown, headers: Record<string, string> = {}) {
  doc ??= openApiDocument('test');
  const t = template(doc.paths, path);
  const op = t ? doc.paths[t][method.toLowerCase()] : undefined;
  if (!op) throw new Error(`the document has no ${method} ${path}`);
  const check = (schema: Json, value: unknown) =>
    new Validator({ ...schema, components: doc!.components } as never, '2020-12', false).validate(value).valid;
  const params = (op.parameters ?? []).filter((p: Json) => p.in === 'header');
  for (const p of params) {
    const value = Object.entries(headers).find(([k]) => k.toLowerCase() === p.name.toLowerCase())?.[1];
    if (value === undefined ? p.required : !check(p.schema, value)) return false;
  }
  const schema = op.requestBody?.content?.['application/json']?.schema;
  return schema ? check(schema, body) : true;
}

/** The headers the document declares for this answer: every one, and the ones it says are always sent. */
export function declaredHeaders(method: string, path: string, status: number) {
  doc ??= openApiDocument('test');
  const ops = doc.paths[template(doc.paths, path)!];
  // A 405 answers a method the path does not take: each of the path's operations declares it.
  const op = ops[method.toLowerCase()] ?? (status === 405 ? Object.values(ops)[0] : undefined);
  const response = op.responses[String(status)] ?? op.responses.default;
  const resolve = (h: Json) => (h.$ref ? doc!.components.headers[h.$ref.split('/').pop()] : h);
  const entries = Object.entries((response.headers ?? {}) as Json).map(([n, h]) => [n.toLowerCase(), resolve(h)]);
  return { all: entries.map(([n]) => n).sort(), required: entries.filter(([, h]) => h.required).map(([n]) => n) };
}
