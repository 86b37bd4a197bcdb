// mockyard's own answers, captured once from the running server, for the replay baselines to serve byte for byte.
import { readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';

export interface CapturedAnswer {
  status: number;
  /** mockyard's response headers, less those a server writes for itself per connection or per moment. */
  headers: Record<string, string | string[]>;
  body: Buffer;
}

// Date is written by every node:http server (the baselines too); the others describe the connection, not the answer.
const NOT_REPLAYED = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);

/** GETs one URL (path and query sent as given, with the workload's headers) and keeps status, headers and body. */
export function captureOne(
  base: string,
  requestPath: string,
  headers: Record<string, string>,
): Promise<CapturedAnswer> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    http
      .get({ host: url.hostname, port: url.port, path: requestPath, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const body = Buffer.concat(chunks);
          const kept: Record<string, string | string[]> = {};
          for (const [name, value] of Object.entries(res.headers)) {
            if (value !== undefined && !NOT_REPLAYED.has(name)) kept[name] = value;
          }
          // A streamed (chunked) answer is replayed whole, with its length.
          kept['content-length'] = String(body.length);
          resolve({ status: res.statusCode ?? 0, headers: kept, body });
        });
      })
      .on('error', reject);
  });
}

/** Each distinct URL once, in order. */
export async function capture(
  base: string,
  paths: readonly string[],
  headers: Record<string, string>,
): Promise<Map<string, CapturedAnswer>> {
  const answers = new Map<string, CapturedAnswer>();
  for (const p of paths) if (!answers.has(p)) answers.set(p, await captureOne(base, p, headers));
  return answers;
}

/** One file: a JSON index line, then the bodies back to back. */
export function writeCapture(file: string, answers: ReadonlyMap<string, CapturedAnswer>): void {
  const index = [...answers].map(([url, a]) => ({ url, status: a.status, headers: a.headers, length: a.body.length }));
  writeFileSync(
    file,
    Buffer.concat([Buffer.from(`${JSON.stringify(index)}\n`), ...[...answers.values()].map((a) => a.body)]),
  );
}

export function readCapture(file: string): Map<string, CapturedAnswer> {
  const data = readFileSync(file);
  const newline = data.indexOf(0x0a);
  const index = JSON.parse(data.subarray(0, newline).toString('utf8')) as {
    url: string;
    status: number;
    headers: Record<string, string | string[]>;
    length: number;
  }[];
  const answers = new Map<string, CapturedAnswer>();
  let offset = newline + 1;
  for (const { url, status, headers, length } of index) {
    answers.set(url, { status, headers, body: Buffer.from(data.subarray(offset, offset + length)) });
    offset += length;
  }
  return answers;
}
