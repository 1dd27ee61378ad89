// A throwaway HTTP server on 127.0.0.1:0 whose every answer the test writes by hand.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface HandServer {
  url: string;
  seen: IncomingMessage[];
  close(): Promise<void>;
}

export async function handServer(
  handle: (req: IncomingMessage, res: ServerResponse, n: number) => void,
): Promise<HandServer> {
  const seen: IncomingMessage[] = [];
  const server = createServer((req, res) => {
    seen.push(req);
    handle(req, res, seen.length);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
  };
}

export const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': 'req_hand', ...headers });
  res.end(JSON.stringify(body));
};
