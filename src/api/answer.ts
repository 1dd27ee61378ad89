// The answer of one attempt: its status and headers, and its body as a stream whose every chunk re-arms
// the attempt's silence timer. Reading it whole is capped (memory stays bounded); a body cut short fails
// like the broken connection it is.
import { UnexpectedResponseError } from './errors.js';

export interface ResponseBody extends AsyncIterable<Buffer> {
  destroy(err?: Error): void;
  /**
   * A download read off the socket (wire.ts) only: every byte to `write`, synchronously, as views valid
   * during the call; rejects with what `write` throws, or with the network's failure.
   */
  drainInto?(write: (bytes: Uint8Array) => void): Promise<void>;
}

export interface Answer {
  status: number;
  url: URL;
  headers: Record<string, string | string[] | undefined>;
  header(name: string): string | null;
  requestId: string | null;
  body: ResponseBody;
}

/** The most of a JSON answer orc reads (CONTRACT.md, limits on input): memory stays bounded. */
export const MAX_JSON_BYTES = 64 * 1024 * 1024;
/** The most of an error answer orc reads. */
export const MAX_ERROR_BYTES = 1024 * 1024;

export interface RawResponse {
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
  body: ResponseBody & { on(event: string, fn: (...a: unknown[]) => void): unknown };
}

/** The answer, with a body whose every chunk re-arms the attempt's silence timer and whose end disarms it. */
export function toAnswer(res: RawResponse, url: URL, onChunk: () => void, onEnd: () => void): Answer {
  const header = (name: string) => {
    const v = res.headers[name.toLowerCase()];
    return Array.isArray(v) ? (v[0] ?? null) : (v ?? null);
  };
  const raw = res.body;
  raw.on('error', () => {}); // read errors reach the reader through iteration
  // A response cut short ends its iteration quietly in Node; it must fail like the broken connection it is.
  let complete = false;
  (raw as unknown as { once(e: string, f: () => void): void }).once('end', () => (complete = true));
  const body: ResponseBody = {
    async *[Symbol.asyncIterator]() {
      try {
        for await (const chunk of raw as AsyncIterable<Buffer>) {
          onChunk();
          yield chunk;
        }
        if (!complete && (raw as unknown as { aborted?: boolean; complete?: boolean }).complete === false)
          throw Object.assign(new Error('the answer broke off'), { code: 'ECONNRESET' });
      } finally {
        onEnd();
      }
    },
    destroy: (err?: Error) => {
      onEnd();
      raw.destroy(err);
    },
  };
  const drainInto = raw.drainInto?.bind(raw);
  if (drainInto) {
    body.drainInto = (write) =>
      drainInto((bytes) => {
        onChunk();
        write(bytes);
      }).finally(onEnd);
  }
  return { status: res.statusCode, url, headers: res.headers, header, requestId: header('x-request-id'), body };
}

/** The same answer with a body already read (an error's text, handed on as it came). */
export function withText(answer: Answer, text: string): Answer {
  const bytes = Buffer.from(text);
  return {
    ...answer,
    body: {
      async *[Symbol.asyncIterator]() {
        yield bytes;
      },
      destroy: () => {},
    },
  };
}

/** All of a body as text, refusing more than `cap` bytes (it stops reading there: memory stays bounded). */
export async function readText(body: ResponseBody, cap: number, truncateQuietly = false): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > cap) {
      body.destroy();
      if (truncateQuietly) break;
      throw new UnexpectedResponseError(
        `the answer is larger than ${Math.round(cap / 1024 / 1024)} MiB; orc stopped reading it`,
      );
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Reads and drops a body orc does not need (a redirect's): it may break off, nothing is lost. */
export async function drain(body: ResponseBody): Promise<void> {
  try {
    for await (const _ of body);
  } catch {
    // nothing lost
  }
}
