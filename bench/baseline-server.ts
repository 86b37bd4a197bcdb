// Baseline servers for `npm run bench`: the physical limits mockyard is measured against.
//   node dist/bench/baseline-server.js replay-http <capture-file>     mockyard's captured answers, bare node:http
//   node dist/bench/baseline-server.js replay-fastify <capture-file>  the same answers, bare Fastify
//   node dist/bench/baseline-server.js fastify-sqlite <db-file> <plan-file>  the same SQL, Fastify + better-sqlite3
// Answers are keyed by request URL (path and query string, as sent). Each prints "ready <port>" once listening
// on 127.0.0.1.
import { readFileSync } from 'node:fs';
import http from 'node:http';
import Database from '../fixtures/lib/sqlite.js';
import Fastify from 'fastify';
import { readCapture } from './capture.js';

const [kind, a, b] = process.argv.slice(2);

async function main(): Promise<void> {
  if (kind === 'replay-http') {
    const answers = readCapture(a!);
    const server = http.createServer((req, res) => {
      const answer = answers.get(req.url!);
      if (!answer) {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(answer.status, answer.headers);
      res.end(answer.body);
    });
    server.listen(0, '127.0.0.1', () => console.log(`ready ${(server.address() as { port: number }).port}`));
    return;
  }
  const app = Fastify({ logger: false });
  if (kind === 'replay-fastify') {
    const answers = readCapture(a!);
    app.get('/*', (request, reply) => {
      const answer = answers.get(request.url);
      if (!answer) return reply.code(404).send();
      return reply.code(answer.status).headers(answer.headers).send(answer.body);
    });
  } else if (kind === 'fastify-sqlite') {
    // The statements the area runs for each URL, with its bound values: the first yields the `results`
    // JSON text (SQLite-built), the second, when there is one, the count. Each distinct SQL is prepared once.
    const db = new Database(a!, { readonly: true, fileMustExist: true });
    const plans = JSON.parse(readFileSync(b!, 'utf8')) as Record<string, { statements: string[]; params: unknown[][] }>;
    const prepared = new Map<string, Database.Statement>();
    const statement = (sql: string) => {
      let stmt = prepared.get(sql);
      if (!stmt) prepared.set(sql, (stmt = db.prepare(sql).pluck(true)));
      return stmt;
    };
    for (const plan of Object.values(plans)) plan.statements.forEach(statement);
    app.get('/*', (request, reply) => {
      const plan = plans[request.url];
      if (!plan) return reply.code(404).send();
      const [rows, count] = plan.statements.map((sql, k) =>
        statement(sql).get(...((plan.params[k] ?? []) as unknown[])),
      );
      return reply
        .type('application/json')
        .send(count === undefined ? String(rows) : `{"results":${String(rows)},"count":${String(count)}}`);
    });
  } else {
    throw new Error(`unknown baseline kind ${kind}`);
  }
  await app.listen({ host: '127.0.0.1', port: 0 });
  console.log(`ready ${(app.server.address() as { port: number }).port}`);
}

void main();
