// The environment a query process starts with: the server's own, with glibc's malloc asked to back its
// large blocks with transparent huge pages (glibc.malloc.hugetlb=1: madvise(MADV_HUGEPAGE) on what it maps,
// glibc 2.35+; other C libraries and older glibc ignore the variable, and so does a kernel with THP off).
//
// A query process reads large values once and keeps them: rank arrays (4 bytes per row) and LIKE texts,
// through SQLite's page cache into Buffers. On a virtual machine, first touching fresh memory 4 KiB at a time
// is what such a read costs: here 64 MB of fresh memory took 210 ms to touch, and reading the 4 MB rank
// array of a 1M-row column 33 ms, against 9 ms with huge pages (docs/performance.md). The server's own
// process is left as it is: its memory is small and reused, and huge pages would only grow what it holds.
const HUGE_PAGES = 'glibc.malloc.hugetlb=1';

export function childEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const tunables = env.GLIBC_TUNABLES;
  // A setting of the user's own wins.
  if (tunables?.includes('glibc.malloc.hugetlb')) return env;
  return { ...env, GLIBC_TUNABLES: tunables ? `${tunables}:${HUGE_PAGES}` : HUGE_PAGES };
}
