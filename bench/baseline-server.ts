// Baseline servers for `npm run bench`: the physical limits mockyard is measured against.
//   node dist/bench/baseline-server.js http-buffer <body-file> <content-type>
//   node dist/bench/baseline-server.js fastify-buffer <body-file> <content-type>
//   node dist/bench/baseline-server.js fastify-sqlite <db-file> <sql-file> <params-file>
// Each prints "ready <port>" once listening on 127.0.0.1.
import { readFileSync } from 'node:fs';
import http from 'node:http';
import Database from 'better-sqlite3';
import Fastify from 'fastify';

const [kind, a, b, c] = process.argv.slice(2);

async function main(): Promise<void> {
  if (kind === 'http-buffer') {
    const body = readFileSync(a!);
    const server = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': b!, 'content-length': body.length });
      res.end(body);
    });
    server.listen(0, '127.0.0.1', () => console.log(`ready ${(server.address() as { port: number }).port}`));
    return;
  }
  const app = Fastify({ logger: false });
  if (kind === 'fastify-buffer') {
    const body = readFileSync(a!);
    app.get('/*', (_req, reply) => reply.type(b!).send(body));
  } else if (kind === 'fastify-sqlite') {
    // The same prepared SQL the area runs, with the parameter sets of the workload, picked by ?i=N.
    const db = new Database(a!, { readonly: true, fileMustExist: true });
    const stmt = db.prepare(readFileSync(b!, 'utf8'));
    const params = c ? (JSON.parse(readFileSync(c, 'utf8')) as unknown[]) : [];
    const first = stmt.columns()[0]?.name;
    app.get('/*', (request, reply) => {
      const i = Number((request.query as { i?: string }).i ?? 0);
      const p = params.length ? params[i % params.length] : undefined;
      const row = (p === undefined ? stmt.get() : Array.isArray(p) ? stmt.get(...p) : stmt.get(p)) as Record<string, unknown> | undefined;
      reply.type('application/json').send(first ? String(row?.[first] ?? '') : JSON.stringify(row));
    });
  } else {
    throw new Error(`unknown baseline kind ${kind}`);
  }
  await app.listen({ host: '127.0.0.1', port: 0 });
  console.log(`ready ${(app.server.address() as { port: number }).port}`);
}

void main();
