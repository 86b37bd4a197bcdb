// Work done when a response is done hangs on one 'close' listener: a streamed AGCO page in a scenario, with
// the journal on, no longer makes Node warn of a possible EventEmitter memory leak.
import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import { whenResponseDone } from '../../src/platform/http/response-done.js';
import { PATH, qs } from '../agco/helpers.js';
import { testApp } from '../helpers/app.js';
import { inScenario, longPageDefinitions, putScenario } from '../scenarios/helpers.js';

const { app } = await testApp();

describe('whenResponseDone', () => {
  it('runs the work registered for a response once, in order, on its close, from one listener', () => {
    const res = new EventEmitter() as unknown as ServerResponse;
    const ran: string[] = [];
    for (const name of ['store', 'scenario', 'journal']) whenResponseDone(res, () => ran.push(name));
    expect(res.listenerCount('close')).toBe(1);
    expect(ran).toEqual([]);
    res.emit('close');
    res.emit('close');
    expect(ran).toEqual(['store', 'scenario', 'journal']);
    // Registered after the close it has seen: run at once.
    whenResponseDone(res, () => ran.push('late'));
    expect(ran.at(-1)).toBe('late');
    expect(res.listenerCount('close')).toBe(0);
  });
});

describe('a streamed answer in a scenario', () => {
  const warnings: Error[] = [];
  const onWarning = (w: Error) => warnings.push(w);
  process.on('warning', onWarning);
  afterAll(() => {
    process.off('warning', onWarning);
  });

  it('gives no MaxListenersExceededWarning (it did: 11 close listeners on the response)', async () => {
    // It crosses from the query process in slices and is sent as a stream.
    await putScenario(app, 'long-page', { agco: { definitions: longPageDefinitions() } });
    const res = await app.inject({
      url: `${PATH}${qs({ limit: 6000, includeTranslations: true })}`,
      headers: inScenario('long-page', { authorization: 'Bearer mockyard-agco-token', accept: 'application/json' }),
    });
    expect(res.statusCode).toBe(200);
    expect(Number(res.headers['content-length'])).toBe(res.rawPayload.length);
    expect(res.rawPayload.length).toBeGreaterThan(2 * 1024 * 1024);
    // Node emits the warning on the next tick of the listener that passes the limit.
    await new Promise((resolve) => setImmediate(resolve));
    expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
    // The journal still recorded the request when its response was done.
    const journal = await app.inject({ url: '/__mockyard/requests?limit=5' });
    expect(journal.body).toContain('/StringDefinitions');
  });
});
