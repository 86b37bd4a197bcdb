// The stub workload's mapping set: 1,000 WireMock mappings in a --mappings directory, written once per run.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const STUB_MAPPINGS = 1000;
let dir: string | undefined;

/**
 * Mappings as a real suite has them: mostly exact paths with a method and a header or query matcher,
 * a tenth path patterns, all in one directory; the measured request hits one near the middle.
 */
export function stubMappingsDir(): string {
  if (dir) return dir;
  dir = mkdtempSync(path.join(os.tmpdir(), 'mockyard-bench-stubs-'));
  mkdirSync(path.join(dir, 'mappings'));
  const mappings = Array.from({ length: STUB_MAPPINGS }, (_, i) =>
    i % 10 === 9
      ? {
          request: { method: 'GET', urlPathPattern: `/svc-${i}/items/[0-9]+` },
          response: { status: 200, jsonBody: { pattern: i }, headers: { 'Content-Type': 'application/json' } },
        }
      : {
          request: {
            method: i % 3 === 0 ? 'POST' : 'GET',
            urlPath: `/svc-${i % 50}/orders/${i}`,
            headers: { Accept: { contains: 'json' } },
            queryParameters: { v: { matches: '[0-9]+' } },
          },
          response: {
            status: 200,
            jsonBody: { order: i, lines: [{ sku: `S-${i}`, qty: 1 }] },
            headers: { 'Content-Type': 'application/json' },
          },
        },
  );
  writeFileSync(path.join(dir, 'mappings', 'all.json'), JSON.stringify({ mappings }));
  return dir;
}

/** A request the 1,000 mappings answer (mapping 502: GET, exact path, header and query matched). */
export const STUB_PATH = '/svc-2/orders/502?v=1';
