// Stub mappings whose regular expressions meet the largest body mockyard matches (1 MiB), from several clients
// at once, while a client polls health every 50 ms: no health answer may take longer than 100 ms.
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeHealth, stallMonitor, startCli, type Cli } from './helpers.js';

let server: Cli;
beforeAll(async () => {
  server = await startCli([], stallMonitor);
  server.child.kill('SIGWINCH'); // the monitor starts afresh: start-up is not measured
});
afterAll(async () => {
  await server?.stop();
  console.log(/event-loop-stall: .*/.exec(server?.output() ?? '')?.[0]);
});

function send(
  method: string,
  url: string,
  body: string | Buffer,
  type = 'text/plain',
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method, agent: false, headers: { 'content-type': type, 'content-length': Buffer.byteLength(body) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode!, body: Buffer.concat(chunks).toString() }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

// Patterns that backtrack catastrophically in a backtracking engine, and an `or` of many, all over one path.
const EVIL = ['(a+)+$', '(a|aa)+$', '(.*a){20}', '(\\w+\\s?)*$', '([a-z]*)*b'];

describe('hostile stub patterns', () => {
  it('keep every health probe within 100 ms while 1 MiB bodies are matched', { timeout: 120_000 }, async () => {
    const mappings = [
      ...EVIL.map((re, i) => ({
        priority: i + 1,
        request: { method: 'POST', urlPath: '/evil', bodyPatterns: [{ matches: re }] },
        response: { status: 200, body: `pattern ${i}` },
      })),
      {
        request: {
          method: 'POST',
          urlPath: '/evil',
          bodyPatterns: [{ or: EVIL.map((re) => ({ matches: `x${re}` })) }],
        },
        response: { status: 200, body: 'or' },
      },
      {
        request: { method: 'POST', urlPathPattern: '/ev.*', bodyPatterns: [{ doesNotMatch: '(a+)+b' }] },
        response: { status: 201, body: 'fell through every evil pattern' },
      },
    ];
    const imported = await send(
      'POST',
      `${server.url}/__admin/mappings/import`,
      JSON.stringify({ mappings }),
      'application/json',
    );
    expect(imported.status, imported.body).toBe(200);

    const body = `${'a'.repeat(1024 * 1024 - 8)}!`;
    const probe = probeHealth(server.url, 50);
    const answers: { status: number; body: string }[] = [];
    for (let round = 0; round < 3; round++)
      answers.push(...(await Promise.all(Array.from({ length: 4 }, () => send('POST', `${server.url}/evil`, body)))));
    const { latencies, failures } = await probe.stop();

    expect(failures).toEqual([]);
    // No evil pattern matches the body; the last mapping does: every pattern really ran.
    for (const a of answers) expect(a).toEqual({ status: 201, body: 'fell through every evil pattern' });
    expect(latencies.length).toBeGreaterThan(5);
    const worst = Math.max(...latencies);
    console.log(`health probes: ${latencies.length}, longest ${worst.toFixed(1)} ms`);
    expect(worst).toBeLessThanOrEqual(100);
  });
});
