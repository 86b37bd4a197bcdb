// The memory budget of answers being sent (src/platform/http/answer-budget.ts), alone and behind the AGCO list.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import { setImmediate as turn } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { resolveConfig } from '../../src/config.js';
import { Runtime } from '../../src/platform/controls/runtime.js';
import { FixtureStore } from '../../src/platform/data/fixture-store.js';
import { Stores } from '../../src/platform/data/stores.js';
import { AnswerBudget } from '../../src/platform/http/answer-budget.js';

/** A reply whose response fails (its client gone) when the test says so; resolves once that is known. */
const reply = () => {
  const raw = new PassThrough();
  const close = () => {
    raw.destroy();
    return turn();
  };
  return { raw, close };
};

describe('AnswerBudget', () => {
  it('holds an answer until its response closes, and refuses one that does not fit beside those held', async () => {
    const budget = new AnswerBudget(1000);
    const first = reply();
    expect(budget.hold(first, 600)).toBe(true);
    expect(budget.held).toBe(600);
    const second = reply();
    expect(budget.hold(second, 500)).toBe(false);
    expect(budget.held).toBe(600);
    expect(budget.hold(second, 400)).toBe(true);
    expect(budget.held).toBe(1000);
    await first.close();
    expect(budget.held).toBe(400);
    expect(budget.hold(reply(), 600)).toBe(true);
    await second.close();
    expect(budget.held).toBe(600);
  });

  it('lets one answer larger than the whole budget through when nothing else is held', async () => {
    const budget = new AnswerBudget(1000);
    const big = reply();
    expect(budget.hold(big, 5000)).toBe(true);
    expect(budget.hold(reply(), 1)).toBe(false);
    expect(budget.refusal(1)).toMatch(/^1 MB of answers are being sent to other clients/);
    await big.close();
    expect(budget.held).toBe(0);
  });
});

describe('an answer whose client left while it was being made', () => {
  it('is not held: the budget is back to nothing once the response is known to be gone', async () => {
    const budget = new AnswerBudget(1000);
    const held = new Promise<number>((resolve) => {
      const server = http.createServer((_req, res) => {
        // The page is ready only after its client has gone (a query process took its time).
        res.once('close', async () => {
          budget.hold({ raw: res }, 600);
          res.end('x'.repeat(600));
          await turn();
          server.close();
          resolve(budget.held);
        });
      });
      server.listen(0, '127.0.0.1', () => {
        const { port } = server.address() as AddressInfo;
        const request = http.get({ port, host: '127.0.0.1' });
        request.on('error', () => undefined);
        // Gone as soon as the server has the request.
        server.once('request', () => setImmediate(() => request.destroy()));
      });
    });
    expect(await held).toBe(0);
  });
});

describe('the AGCO list behind the budget', async () => {
  const config = resolveConfig({ logLevel: 'silent', answerCacheMb: 0 });
  const stores = new Stores(FixtureStore.open(config.dataDir));
  const runtime = new Runtime(config, { answersInFlightBytes: 64 * 1024 });
  const app = await buildApp(config, stores, { runtime });
  await app.ready();
  afterAll(async () => {
    await app.close();
    stores.close();
  });
  const list = (limit: number) =>
    app.inject({
      url: `/agco/api/v2/StringDefinitions?limit=${limit}&includeTranslations=true`,
      headers: { authorization: 'Bearer test-token' },
    });

  it('answers 503 with Retry-After in the ATS error shape while other answers fill the budget, and 200 once they are sent', async () => {
    const ok = await list(5);
    expect(ok.statusCode).toBe(200);
    const size = ok.rawPayload.length;

    const other = reply();
    expect(runtime.answersInFlight.hold(other, 64 * 1024 - size + 1)).toBe(true);
    const refused = await list(5);
    expect(refused.statusCode).toBe(503);
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.json()).toMatchObject({
      ErrorCode: 503,
      UserMessage: 'The service is busy. Try again.',
      DeveloperMessage: expect.stringMatching(/answers are being sent to other clients/),
    });

    await other.close();
    const again = await list(5);
    expect(again.statusCode).toBe(200);
    expect(again.rawPayload.equals(ok.rawPayload)).toBe(true);
    // Each answer was given back when its response was done.
    expect(runtime.answersInFlight.held).toBe(0);
  });
});
