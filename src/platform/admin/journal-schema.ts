// The journal's entries as /__mockyard/requests and the dashboard's API describe them (one schema for both).
import { Type, type Static } from 'typebox';

const stringMap = (description?: string) =>
  Type.Record(
    Type.String(),
    Type.Union([Type.String(), Type.Array(Type.String())]),
    description ? { description } : {},
  );

export const JournalEntrySchema = Type.Object({
  id: Type.Integer({ description: 'Increases with every journaled request' }),
  method: Type.String(),
  area: Type.Union([Type.String(), Type.Null()], {
    description: 'null for a request outside every area (a stub saw it)',
  }),
  operationId: Type.Union([Type.String(), Type.Null()], { description: 'null for a path the area does not have' }),
  path: Type.String(),
  query: stringMap('api_key values masked as ***'),
  headers: stringMap('Secrets (authorization, x-api-token, cookie, the admin token) masked as ***'),
  status: Type.Union([Type.Integer(), Type.Null()], {
    description: 'null when no response was sent (fault=reset or empty, or the client went away)',
  }),
  durationMs: Type.Number(),
  timestamp: Type.String({ format: 'date-time', description: 'When the request arrived' }),
  fault: Type.Union([Type.String(), Type.Null()]),
  forced: Type.Boolean({ description: 'The status came from Prefer: code or the error rate' }),
  scenario: Type.Union([Type.String(), Type.Null()], { description: 'The scenario the request was made in, or null' }),
  requestBody: Type.Union([Type.String(), Type.Null()], {
    description: 'The request body as text, secrets masked, cut at --journal-body-bytes (marked); null when none',
  }),
  responseHeaders: stringMap('The answer headers'),
  responseBody: Type.Union([Type.String(), Type.Null()], {
    description: 'The answer body as text, cut like the request body; binary bodies are described, not shown',
  }),
  stub: Type.Union([Type.Object({ id: Type.String(), name: Type.Union([Type.String(), Type.Null()]) }), Type.Null()], {
    description: 'The stub mapping (GET /__admin/mappings/{id}) that answered, or null when none did',
  }),
});

export type JournalEntryDto = Static<typeof JournalEntrySchema>;
