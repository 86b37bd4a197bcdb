// Shutdown with long forced delays in flight: pending delays end at once with their responses, and the process exits 0.
import { afterAll, describe, expect, it } from 'vitest';
import { get, sleep, startCli, type Cli } from './helpers.js';

let server: Cli | undefined;
afterAll(() => server?.stop());

describe('SIGTERM with Prefer: delay=30000 requests in flight', () => {
  it('answers them at once and exits 0 within 5 s', { timeout: 60_000 }, async () => {
    server = await startCli();
    const { url } = server;
    const delayed = [
      ...Array.from({ length: 8 }, (_, i) => get(`${url}/dkan/datastore/query/x/${i}`, { prefer: 'delay=30000' })),
      get(`${url}/marketcheck/popular/cars?api_key=k&car_type=used`, { prefer: 'delay=30000' }),
      get(`${url}/archive/metadata/none`, { prefer: 'delay=20000-30000' }),
    ];
    await sleep(500);
    const signalled = Date.now();
    server.child.kill('SIGTERM');
    const results = await Promise.all(delayed);
    const answeredAfter = Date.now() - signalled;
    const exit = await server.exited;
    // Every delayed request got its full answer (DKAN's 404 for an unknown dataset is its answer).
    expect(results.map((r) => r.status)).toEqual([404, 404, 404, 404, 404, 404, 404, 404, 200, 200]);
    expect(JSON.parse(results[0]!.body.toString())).toMatchObject({
      message: expect.stringContaining('No resource found'),
    });
    expect(answeredAfter).toBeLessThan(5000);
    expect(exit.code).toBe(0);
    expect(exit.at - signalled).toBeLessThan(5000);
  });
});
