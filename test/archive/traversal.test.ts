import fc from 'fast-check';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveDownload } from '../../src/areas/archive/queries.js';
import { rawGet, readDisk, traversalTarget } from './helpers.js';

const { store, port, target, other, id, otherId, otherFile, real } = await traversalTarget();
const nested = target.names.find((n) => n.includes('/'))!;
const [dir, leaf] = [nested.slice(0, nested.lastIndexOf('/')), nested.slice(nested.lastIndexOf('/') + 1)];
// Bytes that must never leak: another item's file and a system file.
const secrets = [readDisk(store, otherId, otherFile), Buffer.from('root:')];

const o = `${otherId}/${otherFile}`;
const oEnc = `${otherId}%2f${otherFile}`;
const VARIANTS: string[] = [
  `../${o}`,
  `../../${o}`,
  `./../${o}`,
  `${dir}/../../${o}`,
  `${dir}/../${leaf}`,
  `./${real}`,
  `${dir}/./${leaf}`,
  `${dir}//${leaf}`,
  `..%2f${oEnc}`,
  `..%2F${otherId}%2F${otherFile}`,
  `%2e%2e/${o}`,
  `%2e%2e%2f${oEnc}`,
  `%2E%2E%2F${oEnc}`,
  `.%2e/${o}`,
  `%2e./${o}`,
  `..%252f${oEnc}`,
  `%252e%252e%252f${oEnc}`,
  `..%5c${otherId}%5c${otherFile}`,
  `..\\${otherId}\\${otherFile}`,
  `%5c..%5c${o}`,
  `${dir}%5c..%5c..%5c${o}`,
  `..%255c${o}`,
  `..%ef%bc%8f${o}`,
  `..;/${o}`,
  `%2e%2e;/${o}`,
  '%2fetc%2fpasswd',
  '/etc/passwd',
  '//etc/passwd',
  `%2f${id}%2f${real}`,
  'C:%5cWindows%5cwin.ini',
  'C:/Windows/win.ini',
  '%5c%5cserver%5cshare',
  'file:%2f%2f%2fetc%2fpasswd',
  '../../../../etc/passwd',
  '..%2f..%2f..%2f..%2f..%2f..%2fetc%2fpasswd',
  '....//....//....//etc/passwd',
  '...%2f...%2fetc%2fpasswd',
  `${real}%00`,
  `${real}%00.jpg`,
  `%00../../${o}`,
  `..%00/${o}`,
  '%00',
  `${real}%2f..%2f..%2f${oEnc}`,
  `${encodeURIComponent(real)}/../../${o}`,
  'a'.repeat(1025),
  'a/'.repeat(600),
  `${'../'.repeat(400)}etc/passwd`,
  `${'%2e%2e%2f'.repeat(200)}etc%2fpasswd`,
  `${real}%2f`,
  `${real}/.`,
  `${real}/..`,
  '.',
  '..',
  '%2e',
  '%2e%2e',
  `${dir}/`,
  dir,
  `${real}%3f/../../${o}`,
  `${real}%23/../../${o}`,
  `%2e%2e%2f%2e%2e%2f${oEnc}%3fcnt=0`,
];
// Whole-path variants: the identifier itself, and the data-node route, tried the same way.
const WHOLE: string[] = [
  `/archive/download/..%2f${otherId}/${otherFile}`,
  `/archive/download/%2e%2e/${otherId}/${otherFile}`,
  `/archive/download/./${o}`,
  `/archive/download/../download/${o}`,
  `/archive/download/${id}/..%2f..%2f${oEnc}`,
  `/archive/${other.node}/items/${id}/../${o}`,
  `/archive/${other.node}/items/..%2f${otherId}/${otherFile}`,
  `/archive/${target.node}/items/${id}/%2e%2e%2f${oEnc}`,
  `/archive/download/${id}%00/${real}`,
];
// Rejected by Fastify's router before any archive code runs (invalid percent-encoding, a path
// parameter over maxParamLength): `frameworkErrors` answers 400/414 with the archive's own HTML page.
const PRE_ROUTING: string[] = [
  `/archive/download/${id}/..%c0%af${o}`,
  `/archive/download/${id}/%c0%ae%c0%ae/${o}`,
  `/archive/download/${id}/%u002e%u002e/${o}`,
  `/archive/download/${id}/..%u2216${o}`,
  `/archive/download/${'a'.repeat(2000)}/${real}`,
];

describe('path traversal under /archive', () => {
  it('has a corpus of at least 50 variants', () => {
    expect(VARIANTS.length + WHOLE.length).toBeGreaterThanOrEqual(50);
    expect(VARIANTS.length + WHOLE.length + PRE_ROUTING.length).toBeGreaterThanOrEqual(70);
  });

  it.each([...VARIANTS.map((v) => `/archive/download/${id}/${v}`), ...WHOLE])(
    '%s answers the 404 page and leaks nothing',
    async (raw) => {
      const res = await rawGet(port, raw);
      expect(res.status, raw).toBe(404);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.body.toString('utf8')).toContain('<title>404 Not Found</title>');
      for (const secret of secrets) expect(res.body.includes(secret)).toBe(false);
    },
  );

  it.each(PRE_ROUTING)('%s is refused before routing and leaks nothing', async (raw) => {
    const res = await rawGet(port, raw);
    expect([400, 414]).toContain(res.status);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    for (const secret of secrets) expect(res.body.includes(secret)).toBe(false);
  });

  it('serves a listed file over the same raw connection (the corpus is not failing for another reason)', async () => {
    const res = await rawGet(port, `/archive/download/${id}/${encodeURIComponent(real)}`);
    expect(res.status).toBe(200);
    expect(res.body.equals(readDisk(store, id, real))).toBe(true);
  });

  it('resolves only listed names, and only to paths inside the item folder, for any string', () => {
    const itemDir = path.join(store.filesDir, 'archive', id);
    const listed = new Set(target.names);
    const pieces = fc.constantFrom(
      '..',
      '.',
      '',
      '/',
      '\\',
      '\0',
      '%2e',
      'etc',
      'passwd',
      otherId,
      otherFile,
      ...target.names,
    );
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.array(pieces, { maxLength: 6 }).map((a) => a.join('/')),
          fc.array(pieces, { maxLength: 6 }).map((a) => a.join('')),
        ),
        (name) => {
          const found = resolveDownload(store, id, name);
          if (found.ok) {
            expect(listed.has(name)).toBe(true);
            expect(path.resolve(itemDir, found.file.name).startsWith(itemDir + path.sep)).toBe(true);
          }
        },
      ),
      { numRuns: 2000 },
    );
  });
});
