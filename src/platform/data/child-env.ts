// The environment a query process starts with: the server's own, with glibc's malloc told to keep a query
// process's large blocks in its heap and back them with transparent huge pages (GLIBC_TUNABLES; glibc 2.35+
// for hugetlb; other C libraries ignore the variable, and so does a kernel with THP off):
// - glibc.malloc.hugetlb=1: madvise(MADV_HUGEPAGE) on the memory malloc takes from the kernel;
// - glibc.malloc.mmap_threshold=32 MiB (glibc's largest): blocks below it come from the heap, which grows
//   in one piece that huge pages can cover, instead of a mapping of their own per block (a 4 MB mapping is
//   rarely aligned to 2 MiB, so it got at most one huge page and 4 KiB pages for the rest);
// - glibc.malloc.trim_threshold=64 MiB: memory a query freed stays in the heap for the next query instead
//   of going back to the kernel and being faulted in again.
// GLIBC_TUNABLES wins over the older names the server's launchers set for the server itself
// (MALLOC_MMAP_THRESHOLD_, MALLOC_TRIM_THRESHOLD_ at 1 MiB; src/cli.ts), which the processes inherit.
//
// A query process reads large values once and keeps them: rank arrays (4 bytes per row) and LIKE texts,
// through SQLite into Buffers, and it makes orders and filters of the same size. On a virtual machine,
// first touching fresh memory 4 KiB at a time is what such work costs: here a fresh 4 MB array took 15 ms
// to fill with 4 KiB pages, 8 ms with the hugetlb setting alone and about 0.5 ms with all three; reading
// the 7.7 MB LIKE text of a 1M-row decimal column 17-27 ms, against 4 ms (docs/performance.md). The
// server's own process is left as it is: its memory is small and reused, and huge pages would only grow
// what it holds.
const TUNABLES = {
  'glibc.malloc.hugetlb': '1',
  'glibc.malloc.mmap_threshold': String(32 * 1024 * 1024),
  'glibc.malloc.trim_threshold': String(64 * 1024 * 1024),
};

/**
 * V8's flags for a query process. --initial-old-space-size=64 (MB): the old generation's first limit, which
 * V8 then keeps while the live heap stays far below it. Under the DKAN mix, with V8's default, a query
 * process (about 8 MB of old objects, a 16 MB young generation) started incremental marking by task about 20
 * times a second and made a full collection every 0.5 s; their concurrent marking took 13-20% of a core
 * (perf). The same jobs run in a loop without the channel, or the channel fed jobs that query nothing, did
 * not. With 64 MB: a full collection every 5-10 s, 0.26-0.29 ms of CPU per job instead of 0.30-0.34, and the
 * committed heap at 44-46 MB (41.7 before); 32 or 48 MB did not stop the restarts (docs/performance.md).
 * --no-memory-reducer, as the server's own launchers give it (src/cli.ts): a process idle for a few seconds
 * otherwise runs full collections that drop its optimized code. The DKAN mix's 5 s of load after 15 s idle
 * had a p99 of 13.8-21.6 ms without it and 7.1-15.6 ms with it (three runs each, docs/performance.md).
 */
export const QUERY_PROCESS_FLAGS: readonly string[] = ['--initial-old-space-size=64', '--no-memory-reducer'];

export function childEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const own = env.GLIBC_TUNABLES ?? '';
  // A setting of the user's own wins.
  const added = Object.entries(TUNABLES)
    .filter(([name]) => !own.split(':').some((t) => t.startsWith(`${name}=`)))
    .map(([name, value]) => `${name}=${value}`);
  if (added.length === 0) return env;
  return { ...env, GLIBC_TUNABLES: [own, ...added].filter(Boolean).join(':') };
}
