// `orc run create`: a run from an idea (pitch, audience, monetization) or from source (a repo URL or an App Spec).
import { existsSync, readFileSync } from 'node:fs';
import { MONETIZATION_VALUES } from '../../contract/events.js';
import { useEnglishMessages } from '../../lib/zod-messages.js';
import { REPO_URL, RunCreateParams } from '../../contract/schemas.js';
import type { Context } from '../context.js';
import { ApiError } from '../../api/errors.js';
import { RetoldError, UsageError, exitCodeOf } from '../../exit/errors.js';
import type { FlagsOf } from '../define.js';
import type { create as def } from './command.js';
import { printRun } from './show.js';
import { describeIssue } from '../../contract/issues.js';

export type CreateFlags = FlagsOf<typeof def>;

/** Which flag sets each field of the request, so an error about a field can name the flag. */
export const FLAG_FOR_FIELD: Record<string, string> = {
  mode: '--mode',
  idea: '--pitch, --audience and --monetization',
  'idea.pitch': '--pitch',
  'idea.audience': '--audience',
  'idea.monetization': '--monetization',
  source: '--source',
};

export function flagForField(field: string): string | undefined {
  return FLAG_FOR_FIELD[field] ?? (field.startsWith('source.') ? '--source' : undefined);
}

export default async function create(ctx: Context, _args: [], flags: CreateFlags): Promise<number> {
  const watching = flags.watch || flags.onGate !== undefined || flags.approve !== undefined || flags.untilGate;
  // The watch flags are checked before anything is created: a bad one must not leave a run behind.
  const followModule = watching ? await import('../watch/follow.js') : null;
  followModule?.parseFollowFlags(ctx, flags);
  const params = await buildParams(ctx, flags);
  const api = await ctx.api();
  let run;
  try {
    run = await api.runs.create(params, flags.idempotencyKey ? { idempotencyKey: flags.idempotencyKey } : {});
  } catch (err) {
    const flag = err instanceof ApiError && err.field ? flagForField(err.field) : undefined;
    if (err instanceof ApiError && flag)
      throw new RetoldError(`${err.field} (${flag}): ${err.message}`, exitCodeOf(err), err.hint);
    throw err;
  }
  // A replayed create (the same Idempotency-Key as an earlier one) made nothing new: say so, not "Created".
  const what = run.replayed
    ? `${run.id} already existed (created earlier with the same idempotency key; nothing new was made)`
    : `Created ${run.id}`;
  if (followModule) {
    // Under --json the stream of events is the output (every envelope carries run_id).
    if (!ctx.io.json) ctx.io.info(`${what}; watching it (Ctrl-C stops watching, the run goes on).`);
    return followModule.follow(ctx, run.id, flags);
  }
  await printRun(ctx, run);
  if (!ctx.io.json) ctx.io.info(`${what}. Follow it with \`orc watch ${run.id}\`, or \`orc run get ${run.id}\`.`);
  return 0;
}

export async function buildParams(ctx: Context, flags: CreateFlags): Promise<RunCreateParams> {
  const mode = flags.mode ?? (flags.source !== undefined ? 'ship' : 'idea');
  let params: unknown;
  if (mode === 'idea') {
    if (flags.source !== undefined)
      throw new UsageError('--source is for ship mode; an idea run takes --pitch, --audience and --monetization');
    const idea: { pitch?: string | undefined; audience?: string | undefined; monetization?: string | undefined } = {
      pitch: flags.pitch,
      audience: flags.audience,
      monetization: flags.monetization,
    };
    const missing = (['pitch', 'audience', 'monetization'] as const).filter((k) => !idea[k]?.trim());
    if (missing.length && !ctx.io.canPrompt)
      throw new UsageError(
        `missing ${missing.map((k) => `--${k}`).join(', ')}: an idea run needs a pitch, an audience and a monetization`,
        `Monetization is one of ${MONETIZATION_VALUES.join(', ')}.`,
      );
    if (missing.length) {
      const prompter = await ctx.prompter();
      if (!idea.pitch?.trim()) idea.pitch = await prompter.input('Pitch: what is the app?', { required: true });
      if (!idea.audience?.trim()) idea.audience = await prompter.input('Audience: who is it for?', { required: true });
      if (!idea.monetization?.trim())
        idea.monetization = await prompter.select(
          'Monetization',
          MONETIZATION_VALUES.map((value) => ({ value })),
        );
    }
    if (!(MONETIZATION_VALUES as readonly string[]).includes(idea.monetization!))
      throw new UsageError(
        `--monetization must be one of ${MONETIZATION_VALUES.join(', ')}, not ${JSON.stringify(idea.monetization)}`,
      );
    params = { mode, idea };
  } else {
    for (const k of ['pitch', 'audience', 'monetization'] as const)
      if (flags[k] !== undefined) throw new UsageError(`--${k} is for idea mode; a ship run takes --source`);
    let source = flags.source;
    if (source === undefined && ctx.io.canPrompt)
      source = await (await ctx.prompter()).input('Source: a repository URL, or the path of an App Spec (JSON)', {
        required: true,
      });
    if (source === undefined)
      throw new UsageError(
        'missing --source: a ship run needs a repository URL, a spec.json path, or - for a spec on stdin',
      );
    params = { mode, source: await readSource(ctx, source) };
  }
  useEnglishMessages();
  const parsed = RunCreateParams.safeParse(params);
  if (!parsed.success) {
    const { field, message } = describeIssue(parsed.error.issues, params);
    const flag = flagForField(field);
    throw Object.assign(new UsageError(flag ? `${flag} (${field}): ${message}` : `${field || 'input'}: ${message}`), {
      field: flag ?? field,
    });
  }
  return parsed.data;
}

/** `--source`: `-` (stdin: a spec as JSON, or a URL), a path to a spec.json, or a repository URL. */
async function readSource(ctx: Context, source: string): Promise<string | Record<string, unknown>> {
  let text: string;
  let from: string;
  if (source === '-') {
    text = await ctx.io.readStdin();
    from = 'stdin';
  } else if (REPO_URL.test(source)) {
    return source;
  } else if (existsSync(source)) {
    try {
      text = readFileSync(source, 'utf8');
    } catch (err) {
      throw new UsageError(
        `--source: cannot read ${source}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
      );
    }
    from = source;
  } else {
    throw new UsageError(
      `--source: ${JSON.stringify(source)} is neither a repository URL (https://… or git@…:…) nor a file`,
    );
  }
  const trimmed = text.trim();
  if (from === 'stdin' && REPO_URL.test(trimmed)) return trimmed;
  let spec: unknown;
  try {
    spec = JSON.parse(trimmed);
  } catch (err) {
    throw new UsageError(`--source: ${from} is not JSON: ${(err as Error).message}`);
  }
  if (spec === null || typeof spec !== 'object' || Array.isArray(spec))
    throw new UsageError(`--source: the App Spec in ${from} must be a JSON object`);
  return spec as Record<string, unknown>;
}
