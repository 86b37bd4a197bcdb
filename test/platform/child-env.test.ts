import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { LAUNCH_ENV } from '../../bench/lib.js';
import { childEnv } from '../../src/platform/data/child-env.js';

/** glibc's loader prints the tunables a process would start with (glibc 2.33+, x86-64). */
const LOADER = '/lib64/ld-linux-x86-64.so.2';
const tunables = (env: NodeJS.ProcessEnv) =>
  spawnSync(LOADER, ['--list-tunables'], { encoding: 'utf8', env: env as Record<string, string> }).stdout;
const hasTunableList = existsSync(LOADER) && /glibc\.malloc\.mmap_threshold/.test(tunables({}));

const OURS = 'glibc.malloc.hugetlb=1:glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=67108864';

describe('a query process environment', () => {
  it("keeps the server's variables and asks glibc's malloc for heap blocks on huge pages", () => {
    const env = { PATH: '/bin', NODE_OPTIONS: '--trace-warnings' };
    expect(childEnv(env)).toEqual({ ...env, GLIBC_TUNABLES: OURS });
    // The server's own environment object is not changed.
    expect(env).not.toHaveProperty('GLIBC_TUNABLES');
  });

  it("adds to the user's own tunables", () => {
    expect(childEnv({ GLIBC_TUNABLES: 'glibc.malloc.arena_max=2' }).GLIBC_TUNABLES).toBe(
      `glibc.malloc.arena_max=2:${OURS}`,
    );
  });

  it("leaves each of a user's own malloc settings alone", () => {
    expect(childEnv({ GLIBC_TUNABLES: 'glibc.malloc.hugetlb=0' }).GLIBC_TUNABLES).toBe(
      'glibc.malloc.hugetlb=0:glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=67108864',
    );
    // A name that merely starts like one of ours is not the same setting.
    expect(childEnv({ GLIBC_TUNABLES: 'glibc.malloc.mmap_threshold=4096' }).GLIBC_TUNABLES).toBe(
      'glibc.malloc.mmap_threshold=4096:glibc.malloc.hugetlb=1:glibc.malloc.trim_threshold=67108864',
    );
    const all = {
      GLIBC_TUNABLES: 'glibc.malloc.trim_threshold=1:glibc.malloc.hugetlb=0:glibc.malloc.mmap_threshold=1',
    };
    expect(childEnv(all)).toBe(all);
  });

  it.runIf(hasTunableList)("wins over the malloc settings the launchers give the server's own process", () => {
    const server = tunables({ ...LAUNCH_ENV });
    expect(server).toMatch(/glibc\.malloc\.mmap_threshold: 0x100000 /);
    expect(server).toMatch(/glibc\.malloc\.trim_threshold: 0x100000 /);
    const child = tunables(childEnv({ ...LAUNCH_ENV }));
    expect(child).toMatch(/glibc\.malloc\.mmap_threshold: 0x2000000 /);
    expect(child).toMatch(/glibc\.malloc\.trim_threshold: 0x4000000 /);
    expect(child).toMatch(/glibc\.malloc\.arena_max: 0x2 /);
  });
});
