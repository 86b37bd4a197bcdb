// `Prefer: code=N` on every operation of all five areas, for every error status the real service's contract
// lists for it, plus 500 and 503: the status, in the area's own shape (checked against the contract), marked.
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { AREAS } from '../../src/areas/index.js';
import { testApp } from '../helpers/app.js';
import { contractProblems } from '../helpers/contract.js';

const CONTRACTS = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'contracts');
const LETTER_FILE = Object.fromEntries(
  readdirSync(CONTRACTS)
    .filter((f) => f.endsWith('.openapi.json'))
    .map((f) => [f[0]?.toUpperCase(), f]),
);

interface Case {
  area: string;
  operationId: string;
  method: string;
  url: string;
  statuses: number[];
  documented: Set<number>;
}

function cases(): Case[] {
  const out: Case[] = [];
  for (const area of AREAS) {
    const file = LETTER_FILE[area.letter];
    if (!file) continue;
    const doc = JSON.parse(readFileSync(path.join(CONTRACTS, file), 'utf8')) as {
      paths: Record<string, Record<string, { operationId?: string; responses?: Record<string, unknown> }>>;
    };
    for (const [p, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        if (!op?.operationId || !op.responses) continue;
        const documented = new Set(
          Object.keys(op.responses)
            .map(Number)
            .filter((s) => s >= 400),
        );
        // Path parameters get any value: the forced answer is chosen before the handler reads them.
        const filled = p.replace(/\{[^}]+\}/g, 'x');
        out.push({
          area: area.name,
          operationId: op.operationId,
          method: method.toUpperCase(),
          url: `${area.prefix}${filled}`,
          statuses: [...new Set([...documented, 500, 503])].sort((a, b) => a - b),
          documented,
        });
      }
    }
  }
  return out;
}

const { app } = await testApp();
const all = cases();

describe('Prefer: code= on every area', () => {
  it('covers every area', () => {
    expect(new Set(all.map((c) => c.area))).toEqual(new Set(AREAS.map((a) => a.name)));
  });

  for (const c of all) {
    it(`${c.area} ${c.operationId}: ${c.statuses.join(', ')}`, async () => {
      for (const status of c.statuses) {
        const res = await app.inject({
          method: c.method as 'GET',
          url: c.url.replace(/^\/dkan\/api\/1/, '/dkan'),
          headers: { prefer: `code=${status}`, 'content-type': 'application/json' },
          ...(c.method === 'POST' ? { payload: '{}' } : {}),
        });
        expect(res.statusCode, `${c.method} ${c.url} code=${status}: ${res.headers['mockyard-error'] ?? ''}`).toBe(
          status,
        );
        expect(res.headers['mockyard-simulated']).toBe(`code=${status}`);
        if (c.documented.has(status))
          expect(contractProblems(c.operationId, res), `${c.operationId} ${status}`).toEqual([]);
        else expect(res.body.length, `${c.operationId} ${status} has a body`).toBeGreaterThan(0);
      }
    });
  }
});
