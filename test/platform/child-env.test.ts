import { describe, expect, it } from 'vitest';
import { childEnv } from '../../src/platform/data/child-env.js';

describe('a query process environment', () => {
  it("keeps the server's variables and asks glibc's malloc for huge pages", () => {
    const env = { PATH: '/bin', NODE_OPTIONS: '--trace-warnings' };
    expect(childEnv(env)).toEqual({ ...env, GLIBC_TUNABLES: 'glibc.malloc.hugetlb=1' });
    // The server's own environment object is not changed.
    expect(env).not.toHaveProperty('GLIBC_TUNABLES');
  });

  it("adds to the user's own tunables", () => {
    expect(childEnv({ GLIBC_TUNABLES: 'glibc.malloc.arena_max=2' }).GLIBC_TUNABLES).toBe(
      'glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1',
    );
  });

  it("leaves a user's own huge page setting alone", () => {
    const env = { GLIBC_TUNABLES: 'glibc.malloc.hugetlb=0' };
    expect(childEnv(env)).toBe(env);
  });
});
