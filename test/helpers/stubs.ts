// Adding a WireMock mapping through the admin API, as a test's first step.
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';

/** POST /__admin/mappings; the stored mapping's id once WireMock's 201 came back. */
export async function addMapping(app: FastifyInstance, mapping: object): Promise<string> {
  const res = await app.inject({
    method: 'POST',
    url: '/__admin/mappings',
    headers: { 'content-type': 'application/json' },
    payload: mapping,
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json<{ id: string }>().id;
}
