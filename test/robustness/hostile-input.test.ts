// Issue 27's attack, as an outsider sends it: each input gets a 4xx in its area's own error shape, admin routes
// refuse other sites' host names, secrets stay masked, and declared sizes cost no memory.
import { createHash } from 'node:crypto';
import { XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { testApp } from '../helpers/app.js';
import { enc, errorShapeProblem, loadCatalog } from './fuzz-lib.js';

const { app, store } = await testApp();
const cat = await loadCatalog(app, store);
const JSON_TYPE = { 'content-type': 'application/json' };
const dk = cat.dkan[0]!;
const AGCO_AUTH = { authorization: `Bearer ${cat.agco.tokens[0]}` };

const putScenario = (name: string, body: unknown) =>
  app.inject({
    method: 'PUT',
    url: `/__mockyard/scenarios/${name}`,
    headers: JSON_TYPE,
    payload: typeof body === 'string' ? body : JSON.stringify(body),
  });
const oneItem = (files: unknown[]) => ({ archive: { items: [{ identifier: 'hostile-item', files }] } });

describe('inputs that answered 500', () => {
  it('DKAN POST nested 3,000 deep gets DKAN\'s 400 ("Maximum stack depth exceeded", as json_decode says)', async () => {
    for (const payload of [
      `{"conditions":${'['.repeat(3000)}${']'.repeat(3000)}}`,
      `${'{"a":'.repeat(3000)}1${'}'.repeat(3000)}`,
    ]) {
      const res = await app.inject({
        method: 'POST',
        url: `/dkan/datastore/query/${dk.datasetId}/${dk.index}`,
        headers: JSON_TYPE,
        payload,
      });
      expect(res.statusCode).toBe(400);
      expect(errorShapeProblem('dkan', res)).toBeUndefined();
    }
  });

  it("a scenario PUT nested 5,000 deep gets 400 with mockyard's error body", async () => {
    for (const payload of [
      `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`,
      `{"dkan":${'['.repeat(5000)}${']'.repeat(5000)}}`,
    ]) {
      const res = await putScenario('deep', payload);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ statusCode: 400, error: 'Bad Request' });
    }
    expect((await app.inject('/__mockyard/scenarios/deep')).statusCode).toBe(404);
  });

  it('a base64 file of 4 MiB is stored, and its bytes come back', async () => {
    const bytes = Buffer.alloc(4 * 1024 * 1024, 7);
    bytes.write('hostile', 0);
    const res = await putScenario('b64', oneItem([{ name: 'blob.bin', base64: bytes.toString('base64') }]));
    expect(res.statusCode).toBe(201);
    const file = await app.inject('/scenarios/b64/archive/download/hostile-item/blob.bin');
    expect(file.statusCode).toBe(200);
    expect(file.rawPayload.equals(bytes)).toBe(true);
  });

  it('invalid base64 is a 400 naming the pointer', async () => {
    const res = await putScenario('b64bad', oneItem([{ name: 'x.bin', base64: 'not base64!' }]));
    expect(res.statusCode).toBe(400);
    expect(res.json().pointer).toBe('/archive/items/0/files/0/base64');
  });

  it.each([
    [['a', 'a/b'], '/archive/items/0/files/1/name'],
    [['a/b', 'a'], '/archive/items/0/files/1/name'],
    [['x/y/z', 'x/y'], '/archive/items/0/files/1/name'],
  ])('archive files %j in one item get 400 at %s', async (names, at) => {
    const res = await putScenario('clash', oneItem(names.map((name) => ({ name, content: name }))));
    expect(res.statusCode).toBe(400);
    expect(res.json().pointer).toBe(at);
  });

  it('a file name segment over 255 bytes gets 400, one of 255 is served', async () => {
    const refused = await putScenario('seg', oneItem([{ name: `d/${'a'.repeat(256)}`, content: 'x' }]));
    expect(refused.statusCode).toBe(400);
    const name = 'é'.repeat(127); // 254 bytes
    expect((await putScenario('seg', oneItem([{ name, content: 'x' }]))).statusCode).toBe(201);
    const res = await app.inject(`/scenarios/seg/archive/download/hostile-item/${encodeURIComponent(name)}`);
    expect(res.statusCode).toBe(200);
  });

  // (archive.org's metadata API answers 200 {} for any unknown identifier, long ones too.)
  it.each(['archive/download', 'dkan/datastore/query', 'agco/api/v2/StringDefinitions'])(
    'a path segment of 300 bytes under /%s is a 4xx in the area shape',
    async (route) => {
      const area = route.split('/')[0] as 'archive' | 'dkan' | 'agco';
      const res = await app.inject({ url: `/${route}/${'a'.repeat(300)}/x`, headers: AGCO_AUTH });
      expect(res.statusCode).toBeGreaterThanOrEqual(400);
      expect(res.statusCode).toBeLessThan(500);
      expect(errorShapeProblem(area, res)).toBeUndefined();
    },
  );

  it.each(['archive/metadata/x', 'dkan/datastore/query/x', 'agco/api/v2/Languages'])(
    "a scenario prefix segment of 300 bytes before /%s is the area's 404, naming the rule",
    async (route) => {
      const area = route.split('/')[0] as 'archive' | 'dkan' | 'agco';
      const res = await app.inject({ url: `/scenarios/${'a'.repeat(300)}/${route}`, headers: AGCO_AUTH });
      expect(res.statusCode).toBe(404);
      expect(errorShapeProblem(area, res)).toBeUndefined();
      expect(res.headers['mockyard-error']).toContain('scenario names match');
    },
  );

  it.each([
    'descriptionText=a%00b',
    'descriptionText=a%00b&useFullText=true',
    'stringText=a%00b&includeTranslations=true',
    'stringText=a%00b&includeTranslations=true&useFullText=true',
  ])("AGCO %s gets AGCO's 400", async (query) => {
    const res = await app.inject({ url: `/agco/api/v2/StringDefinitions?${query}`, headers: AGCO_AUTH });
    expect(res.statusCode).toBe(400);
    expect(errorShapeProblem('agco', res)).toBeUndefined();
  });

  it.each(['?descriptionText=a%00b', '?limit=1%00', '/a%00b'])(
    'AGCO StringDefinitions%s in XML: the error is well-formed XML (an echoed NUL written as U+FFFD)',
    async (rest) => {
      const res = await app.inject({
        url: `/agco/api/v2/StringDefinitions${rest}`,
        headers: { ...AGCO_AUTH, accept: 'application/xml' },
      });
      expect(res.statusCode).toBeGreaterThanOrEqual(400);
      expect(res.statusCode).toBeLessThan(500);
      expect(res.body).toMatch(/^<ApiError /);
      expect(res.body).not.toContain('\u0000');
      expect(XMLValidator.validate(res.body)).toBe(true);
    },
  );

  it("a NUL in a DKAN match value gets DKAN's 400, by GET and by POST", async () => {
    const [column] = dk.columns;
    const get = await app.inject(
      `/dkan/datastore/query/${dk.datasetId}/${dk.index}?conditions[0][property]=${enc(column!)}&conditions[0][operator]=match&conditions[0][value]=a%00b`,
    );
    expect(get.statusCode).toBe(400);
    expect(errorShapeProblem('dkan', get)).toBeUndefined();
    const post = await app.inject({
      method: 'POST',
      url: `/dkan/datastore/query/${dk.datasetId}/${dk.index}`,
      headers: JSON_TYPE,
      payload: JSON.stringify({ conditions: [{ property: column, operator: 'match', value: 'a\u0000b' }] }),
    });
    expect(post.statusCode).toBe(400);
    expect(errorShapeProblem('dkan', post)).toBeUndefined();
  });
});

describe('scenario sizes', () => {
  it('a declared 64 MiB file is served whole, with the md5 its metadata lists', async () => {
    const size = 64 * 1024 * 1024;
    const res = await putScenario('sized', oneItem([{ name: 'big.iso', size }]));
    expect(res.statusCode).toBe(201);
    const meta = await app.inject('/scenarios/sized/archive/metadata/hostile-item');
    const listed = meta.json().files.find((f: { name: string }) => f.name === 'big.iso');
    expect(listed.size).toBe(String(size));
    const file = await app.inject('/scenarios/sized/archive/download/hostile-item/big.iso');
    expect(file.statusCode).toBe(200);
    expect(file.rawPayload.length).toBe(size);
    expect(createHash('md5').update(file.rawPayload).digest('hex')).toBe(listed.md5);
    const range = await app.inject({
      url: '/scenarios/sized/archive/download/hostile-item/big.iso',
      headers: { range: 'bytes=1000-1009' },
    });
    expect(range.statusCode).toBe(206);
    expect(range.rawPayload.equals(file.rawPayload.subarray(1000, 1010))).toBe(true);
    expect((await app.inject({ method: 'DELETE', url: '/__mockyard/scenarios/sized' })).statusCode).toBe(200);
  });

  it('a declared size over 64 MiB gets 413, not 400', async () => {
    const res = await putScenario('huge', oneItem([{ name: 'huge.iso', size: 64 * 1024 * 1024 + 1 }]));
    expect(res.statusCode).toBe(413);
    expect(res.json()).toMatchObject({ statusCode: 413, error: 'Payload Too Large' });
  });
});

describe('the total scenarios hold', () => {
  it('refuses a scenario past the total with 413 and keeps every stored one', async () => {
    const { Scenarios } = await import('../../src/scenarios/registry.js');
    const scenarios = new Scenarios(null, { scenarios: 100, totalBytes: 3 * 1024 * 1024 });
    try {
      const body = oneItem([{ name: 'one.bin', size: 1024 * 1024 }]);
      const first = await scenarios.putText('first', JSON.stringify(body));
      const second = await scenarios.putText('second', JSON.stringify(body));
      const refused = scenarios.putText('third', JSON.stringify(body));
      await expect(refused).rejects.toMatchObject({ statusCode: 413 });
      expect(scenarios.list().map((s) => s.name)).toEqual(['first', 'second']);
      expect(scenarios.bytes).toBe(first.scenario.bytes + second.scenario.bytes);
      // Replacing one counts its new size instead of its old one.
      expect((await scenarios.putText('second', JSON.stringify(oneItem([])))).replaced).toBe(true);
      expect((await scenarios.putText('third', JSON.stringify(body))).replaced).toBe(false);
    } finally {
      scenarios.close();
    }
  });
});

describe('many delayed requests', () => {
  it('print no MaxListenersExceededWarning', async () => {
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on('warning', onWarning);
    try {
      const all = Array.from({ length: 25 }, () =>
        app.inject({ url: '/appcenter/v0.1/user', headers: { prefer: 'delay=20' } }),
      );
      await Promise.all(all);
      // Node emits process warnings on the next tick.
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
  });
});
