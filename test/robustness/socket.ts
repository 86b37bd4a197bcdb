// One HTTP/1.1 request over a real socket with the request target sent byte for byte.
import net from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

function dechunk(body: Buffer): Buffer {
  const out: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = body.indexOf('\r\n', at);
    if (eol < 0) break;
    const size = parseInt(body.subarray(at, eol).toString('latin1'), 16);
    if (!size) break;
    out.push(body.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
  return Buffer.concat(out);
}

/** Sends `GET <target>` (a string written as latin1, or raw bytes) and reads until the server closes. */
export function rawRequest(
  port: number,
  target: string | Buffer,
  headers: Record<string, string> = {},
  timeoutMs = 10_000,
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      const all = Buffer.concat(chunks);
      const split = all.indexOf('\r\n\r\n');
      if (split < 0) return reject(new Error(`no HTTP response (${all.length} bytes)`));
      const head = all.subarray(0, split).toString('latin1').split('\r\n');
      const out: Record<string, string> = {};
      for (const line of head.slice(1)) {
        const i = line.indexOf(':');
        out[line.slice(0, i).toLowerCase()] = line.slice(i + 1).trim();
      }
      const rest = all.subarray(split + 4);
      const body = out['transfer-encoding'] === 'chunked' ? dechunk(rest) : rest;
      resolve({ status: Number(head[0]!.split(' ')[1]), headers: out, body: body.toString('utf8') });
    });
    const extra = Object.entries(headers)
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('');
    const start = Buffer.from('GET ', 'latin1');
    const t = typeof target === 'string' ? Buffer.from(target, 'latin1') : target;
    socket.end(
      Buffer.concat([
        start,
        t,
        Buffer.from(` HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n${extra}\r\n`, 'latin1'),
      ]),
    );
  });
}
