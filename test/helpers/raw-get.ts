// A GET over a real socket, for what app.inject never reaches: the server's request listener before Fastify
// (the pipeline's front path).
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';

export interface Got {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** GET `path` from 127.0.0.1:`port` with `headers`; the whole answer once it has ended. */
export function rawGet(port: number, path: string, headers: Record<string, string> = {}): Promise<Got> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ port, host: '127.0.0.1', path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}
