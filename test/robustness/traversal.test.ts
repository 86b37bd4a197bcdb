// Path traversal variants that test/archive/traversal.test.ts (72 raw-socket variants) does not already
// try: triple and nested-percent encodings, more overlong UTF-8 and look-alike slashes and dots, NUL in
// more places, Windows trailing dots and spaces, very long names, and the metadata routes.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readDisk, traversalTarget } from '../archive/helpers.js';
import { rawRequest } from './socket.js';

const { store, config, port, target, other, id, otherId, otherFile, real } = await traversalTarget();
const o = `${otherId}/${otherFile}`;
const oEnc = `${otherId}%2f${otherFile}`;

// What must never appear in an answer: another item's file, a system file, the fixture database.
const secrets = [readDisk(store, otherId, otherFile).toString('utf8'), 'root:x:0:0', 'SQLite format 3'];
// The only bodies a 200 may carry: the item's own files.
const own = new Set(
  target.names.map((n) => readFileSync(path.join(store.filesDir, 'archive', id, n)).toString('utf8')),
);

const FILE_VARIANTS = [
  // double, triple and nested-percent encodings
  `%25252e%25252e%25252f${oEnc}`,
  `..%25252f${oEnc}`,
  `%%32%65%%32%65/${o}`,
  `..%25%32%66${oEnc}`,
  `%252E%252E%255C${otherId}%255C${otherFile}`,
  // encoded backslashes in every case and mix
  `..%5C${otherId}%5C${otherFile}`,
  `..%5c..%5c..%5cetc%5cpasswd`,
  `..\\/${o}`,
  `..%5c/${o}`,
  `%5c%2e%2e%5c${o}`,
  // overlong UTF-8 for '.', '/' and '\\'
  `%e0%80%ae%e0%80%ae/${o}`,
  `%f0%80%80%ae%f0%80%80%ae/${o}`,
  `..%c1%9c${o}`,
  `%c0%2e%c0%2e/${o}`,
  `..%e0%80%af${o}`,
  `..%c0%9v${o}`,
  // look-alike dots and slashes
  `%ef%bc%8e%ef%bc%8e/${o}`,
  `%e2%80%a4%e2%80%a4/${o}`,
  `..%e2%88%95${o}`,
  `..%ef%bc%bc${o}`,
  `..%e2%81%84${o}`,
  `%e2%80%a5/${o}`,
  // NUL in more places
  `..%00%2f${oEnc}`,
  `%2e%00%2e/${o}`,
  `${real}%00/../../${o}`,
  `%00${real}`,
  // Windows trailing dots and spaces, and DOS device names
  `..%20/${o}`,
  `..%09/${o}`,
  `.../${o}`,
  `..../${o}`,
  `..%2e/${o}`,
  `${real}.`,
  `${real}%20`,
  `${real}::$DATA`,
  'CON',
  'aux.txt',
  'NUL',
  // absolute and scheme forms
  '%2f%2fetc%2fpasswd',
  `%2f${encodeURIComponent(path.resolve(config.dataDir, 'mockyard.db')).replace(/^%2F/, '')}`,
  'file%3a%2f%2f%2fetc%2fpasswd',
  '~%2f.ssh%2fid_rsa',
  '%7e/.bashrc',
  // very long names, and dot-dot after them
  `${'a'.repeat(255)}/../../${o}`,
  `${'b'.repeat(5000)}`,
  `${'../'.repeat(1500)}etc/passwd`,
  `${'%2e%2e%2f'.repeat(1000)}etc%2fpasswd`,
  `${'x/'.repeat(3000)}..`,
];

const WHOLE = [
  `/archive/download/%2e%2e/${o}`,
  `/archive/download/%2e%2e%2f%2e%2e/etc/passwd`,
  `/archive/download/${id}%2f..%2f${otherId}/${otherFile}`,
  `/archive/download/..%5c${otherId}/${otherFile}`,
  `/archive/download/${id}%00/${real}`,
  `/archive/download/.../${real}`,
  `/archive/${other.node}/items/%2e%2e/${o}`,
  `/archive/${other.node}/items/${otherId}/..%2f..%2f..%2fetc%2fpasswd`,
  `/archive/..%2f${other.node}/items/${o}`,
  `/archive/metadata/..%2f..%2fetc%2fpasswd`,
  `/archive/metadata/${id}/..%2f..%2f${oEnc}`,
  `/archive/metadata/${id}/files/..%2f..%2f..`,
  `/archive/metadata/%2e%2e`,
  `/archive/metadata/${id}/%2e%2e/%2e%2e/etc/passwd`,
];

const cases = [...FILE_VARIANTS.map((v) => `/archive/download/${id}/${v}`), ...WHOLE];

describe(`path traversal under /archive: ${cases.length} more variants over a real socket`, () => {
  it('adds at least 50 variants to the archive suite', () => {
    expect(cases.length).toBeGreaterThanOrEqual(50);
  });

  it.each(cases)('%s escapes nothing', async (raw) => {
    const res = await rawRequest(port, raw);
    if (process.env.TRAVERSAL_VERBOSE) process.stdout.write(`${res.status} ${raw.slice(0, 100)}\n`);
    expect(res.status, raw).toBeLessThan(500);
    for (const secret of secrets) expect(res.body.includes(secret), 'leaked').toBe(false);
    if (res.status === 200 && raw.startsWith('/archive/download/'))
      expect(own.has(res.body), "a 200 carries one of the item's own files").toBe(true);
    // archive.org answers {} for an item or sub-path that does not exist.
    if (res.status === 200 && raw.startsWith('/archive/metadata/')) expect(res.body).toBe('{}');
    if (res.status >= 400 && res.headers['content-type'])
      expect(res.headers['content-type'], raw).toMatch(/^text\/html/);
  });
});
