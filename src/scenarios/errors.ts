// A scenario body that cannot be used: names the JSON pointer of the first problem.

export class ScenarioError extends Error {
  constructor(
    /** JSON pointer into the body (RFC 6901), '' for the whole body; null when the problem is not in the body. */
    readonly pointer: string | null,
    readonly problem: string,
    /** 400 for a bad body; 409/413 for a body past a documented limit. */
    readonly statusCode = 400,
  ) {
    super(pointer === null ? problem : `Scenario body is not valid at ${pointer === '' ? '/' : pointer}: ${problem}`);
  }
}

/** `base` with more segments, each escaped as RFC 6901 says (~ as ~0, / as ~1). */
export function pointer(base: string, ...segments: (string | number)[]): string {
  return base + segments.map((s) => `/${String(s).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}
