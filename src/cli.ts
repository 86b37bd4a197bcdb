#!/usr/bin/env -S MALLOC_ARENA_MAX=2 MALLOC_MMAP_THRESHOLD_=1048576 MALLOC_TRIM_THRESHOLD_=1048576 node --no-allocation-site-pretenuring --no-memory-reducer --single-threaded-gc
// mockyard's command. Node's compile cache (module.enableCompileCache, Node 22.1+) keeps V8's compiled code
// of the bundle between runs, so every start after the first skips compiling it: a quarter of the time to
// the first answer. It must be on before the rest of mockyard is loaded, hence the dynamic import. The
// cache lives in Node's default folder (NODE_COMPILE_CACHE sets another; NODE_DISABLE_COMPILE_CACHE=1 turns
// it off); a folder that cannot be written only costs the saving.
//
// The young generation keeps its first size (1 MB per semi-space) instead of growing to 16 MB or more:
// answers are short-lived garbage, a small nursery is scavenged in well under a millisecond, and a grown
// one stays resident after the load has gone (it grew to 8 MB while the bundle loaded, when this was set
// later). V8 reads the flag whenever it considers growing the nursery, so setting it at run time works
// (`--max-semi-space-size` would not). Only the CLI sets it: a program that embeds mockyard keeps its own
// heap settings.
//
// Node's flags on the #! line, as `npm start` and the image's ENTRYPOINT give them too (the bench starts the
// server with the same; test/platform/launchers.test.ts keeps them equal).
//
// First --no-allocation-site-pretenuring. While the bundle loads and the routes are built nearly every object
// survives, so V8 learns from the scavenges of those first seconds that objects made where a request is
// handled live long, and from then on makes them in the old generation: a request answered within about a
// second of the start (a CI job's first call, a health check) left the process about 15% slower on cached
// answers for the rest of its life (A metadata: 24-26k req/s against 28-31k when the first request came 2 s
// after the start; with the flag 28-30k either way, start-up unchanged). It cannot be set at run time: V8
// reads it when the heap is made. A program that embeds mockyard chooses its own flags.
//
// And --no-memory-reducer: a few seconds into an idle spell V8's memory reducer runs two full collections to
// give back a few MB of heap (29 to 23 MB committed here). With no request in flight, the hidden classes
// that optimized code holds only weakly have no object left, so they die, and `--trace-deopt` showed about
// 150 functions thrown away at that collection ("reason: weak objects": Node's HTTP path, Fastify's reply,
// the query executor's dispatch). The first second of traffic after it then ran about a third slower while
// all of it was optimized again: over the DKAN query mix on one core, 915-1,150 req/s with the server at
// 0.49-0.63 ms of CPU per request, against 1,430-1,710 req/s and 0.22-0.28 ms without the reducer (ten idle
// spells against five; docs/performance.md). Without it, full collections come from allocation, under
// load, while requests keep those classes alive. Like the flag above, V8 reads it only when the heap is
// made (v8.setFlagsFromString does not stop the reducer).
//
// And --single-threaded-gc: V8 collects on the main thread only, without its helper threads. Where the
// server may run on one CPU (a pinned process, a one-CPU cpuset, the bench), those threads only take turns
// with the main thread and the query processes: each full collection (every 3-4 s under the DKAN query mix,
// concurrent marking) held the queue up, and every second or third one-second window had a p99 of 20-70 ms
// against 8-10 ms in the others. With the flag every window of the same runs stayed at 7-13 ms (20 windows,
// two runs; docs/performance.md). On two CPUs, unpinned, it cost nothing measurable (2,400-2,850 req/s
// against 2,260-2,745, p99 alike): the heap is 20-30 MB, and its collections are short on one thread.
// V8 reads it only when the heap is made (setting it later stopped the process with a failed check).
//
// The #! line (and the image, and the bench) also sets MALLOC_ARENA_MAX=2: glibc's malloc then keeps at most
// two arenas instead of one per thread that allocates (libuv's pool, V8's helpers), about 4 MB less resident
// memory after the bench's mixed load at the same throughput. glibc reads it when the process starts, so it
// cannot be set from here; other C libraries ignore it. `npm start` runs in whatever shell npm uses (cmd.exe
// on Windows), so it does not set it.
//
// With it, MALLOC_MMAP_THRESHOLD_ and MALLOC_TRIM_THRESHOLD_ at 1 MiB (glibc's names for the tunables
// glibc.malloc.mmap_threshold and trim_threshold): by default glibc raises both after the first large block
// is freed (up to 32 and 64 MiB), and then keeps that much freed memory at the top of its heap; fixed, the
// server gives it back. After the bench's mixed load: 99 MB instead of 102-103 MB resident (anonymous
// 44 MB instead of 47). Not lower: at 128 KiB, each 256 KiB read of a download got a mapping of its own,
// faulted in afresh, and a 1 GiB download fell to 0.2 GB/s. A user's own GLIBC_TUNABLES wins over these
// names, and the query processes get their own settings (platform/data/child-env.ts).
import module from 'node:module';
import v8 from 'node:v8';

v8.setFlagsFromString('--semi-space-growth-factor=1');
module.enableCompileCache?.();
// The tool subcommands (`mockyard fixtures`, `mockyard ca`) do not load the server and the areas.
const { TOOL_COMMANDS, makeProgram, runProgram } = await import('./cli-program.js');
if (TOOL_COMMANDS.includes(process.argv[2] ?? '')) await runProgram(makeProgram());
else await import('./cli-main.js');
