// The proxy's certificate issuer: certificates are made in a process of their own, and at most a bounded
// number wait at once; a name past that is refused at once (CONNECT answers 503) rather than queued.
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CertificateIssuer, CertificateQueueFull } from '../../src/platform/hosts/cert-issuer.js';
import { CA_CERT_FILE, ensureCa } from '../../src/platform/hosts/certificates.js';

const dir = mkdtempSync(path.join(tmpdir(), 'mockyard-issuer-'));
const issuer = new CertificateIssuer(dir, 2);
beforeAll(async () => {
  await ensureCa(dir);
});
afterAll(() => {
  issuer.close();
  rmSync(dir, { recursive: true, force: true });
});

const leafOf = (pem: string) => new X509Certificate(pem.slice(0, pem.indexOf('-----END CERTIFICATE-----') + 25));

describe('certificate issuer', () => {
  it('issues certificates signed by the CA, and refuses a name past its queue at once', async () => {
    const first = issuer.issue(['*.one.archive.org']);
    const second = issuer.issue(['*.two.archive.org']);
    expect(issuer.queued).toBe(2);
    await expect(issuer.issue(['*.three.archive.org'])).rejects.toBeInstanceOf(CertificateQueueFull);
    const ca = new X509Certificate(readFileSync(path.join(dir, CA_CERT_FILE)));
    for (const [leaf, name] of [
      [await first, '*.one.archive.org'],
      [await second, '*.two.archive.org'],
    ] as const) {
      const cert = leafOf(leaf.cert);
      expect(cert.subjectAltName).toBe(`DNS:${name}`);
      expect(cert.verify(ca.publicKey)).toBe(true);
      expect(leaf.key).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    }
    // The queue is free again once they are done.
    expect(issuer.queued).toBe(0);
    expect(leafOf((await issuer.issue(['*.three.archive.org'])).cert).subjectAltName).toBe('DNS:*.three.archive.org');
  });

  it('starts again after being closed', async () => {
    issuer.close();
    expect(leafOf((await issuer.issue(['four.example.test'])).cert).subjectAltName).toBe('DNS:four.example.test');
  });
});
