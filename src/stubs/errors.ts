// A mapping that cannot be used: the JSON path of the field at fault and what is wrong with it (answered as 422).
export class MappingError extends Error {
  constructor(
    /** Where in the mapping, as a JSON pointer like WireMock's own 422s: `/request/headers/Accept/matches`. */
    readonly field: string,
    message: string,
    readonly status = 422,
  ) {
    super(`${field}: ${message}`);
  }
}

export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
