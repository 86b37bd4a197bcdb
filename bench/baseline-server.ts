// Baseline servers for `npm run bench`: the physical limits mockyard is measured against.
//   node dist/bench/baseline-server.js http-buffer <body-file> <content-type>
//   node dist/bench/baseline-server.js fastify-buffer <body-file> <content-type>
//   node dist/bench/baseline-server.js fastify-sqlite <db-file> <plan-file: {statements, params}>
// Each prints "ready <port>" once listening on 127.0.0.1.
import { readFileSync } from 'node:fs';
import http from 'node:http';
import Database from 'better-sqlite3';
import Fastify from 'fastify';

const [kind, a, b] = process.argv.slice(2);

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
    // The same prepared statements the area runs, with the bound values of request ?i=N. The first
    // statement yields the body text (SQLite-built JSON); the others run as the area runs them.
    const db = new Database(a!, { readonly: true, fileMustExist: true });
    const plan = JSON.parse(readFileSync(b!, 'utf8')) as { statements: string[]; params: unknown[][][] };
    const statements = plan.statements.map((sql) => db.prepare(sql).pluck(true));
    app.get('/*', (request, reply) => {
      const i = Number((request.query as { i?: string }).i ?? 0);
      const params = plan.params.length ? plan.params[i % plan.params.length]! : [];
      let body = '';
      statements.forEach((stmt, k) => {
        const value = stmt.get(...((params[k] as unknown[]) ?? []));
        if (k === 0) body = String(value);
      });
      reply.type('application/json').send(body);
    });
  } else {
    throw new Error(`unknown baseline kind ${kind}`);
  }
  await app.listen({ host: '127.0.0.1', port: 0 });
  console.log(`ready ${(app.server.address() as { port: number }).port}`);
}

void main();
