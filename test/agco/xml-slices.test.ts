// A large XML page is rendered in slices (the event loop turns in between) with exactly the bytes of one pass.
import { describe, expect, it } from 'vitest';
import { pagedResponseXml, pagedResponseXmlInSlices } from '../../src/areas/agco/representation.js';
import type { PagedResponse } from '../../src/areas/agco/schemas.js';

const def = (i: number) => ({
  Id: `id${i}`,
  DescriptionForTranslator: `d <&> "${i}"`,
  DoNotTranslate: i % 2 === 0,
  ParameterCount: i,
  Timestamp: 'AAAAAAAAB9E=',
  ...(i % 3 === 0
    ? {}
    : {
        Translations: [
          {
            AuthorId: 1,
            LanguageId: 1033,
            State: 'Approved',
            StringId: `id${i}`,
            StringValue: `v'${i}`,
            Timestamp: 'AAAAAAAAB9I=',
          },
        ],
      }),
});

describe('pagedResponseXmlInSlices', () => {
  it.each([0, 1, 25, 26, 77])('gives the same bytes as one pass for %i definitions', async (n) => {
    const page = {
      Entities: Array.from({ length: n }, (_, i) => def(i)),
      Metadata: { TotalCount: n, Limit: 100, Offset: 0 },
    } as unknown as PagedResponse;
    expect(await pagedResponseXmlInSlices(page)).toBe(pagedResponseXml(page));
  });
});
