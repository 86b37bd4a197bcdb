#!/usr/bin/env -S node --v8-pool-size=1 --no-sparkplug
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
// Node's flags on the #! line, as `npm start` and the image's ENTRYPOINT give them too (the bench starts the
// server with the same; test/platform/launchers.test.ts keeps them equal):
// - --v8-pool-size=1: one V8 helper thread instead of four. Each helper that allocates gets a glibc malloc
//   arena of its own; the server's resident memory after the bench's mixed load went from 103-106 MB to 99 MB,
//   at the same throughput (mockyard's requests are short; its heap is small).
// - --no-sparkplug: no baseline-compiled copy of warm functions beside their bytecode (97 MB instead of 99);
//   hot paths are optimised by TurboFan as before, and start-up and cached throughput were unchanged.
import module from 'node:module';
import v8 from 'node:v8';

v8.setFlagsFromString('--semi-space-growth-factor=1');
module.enableCompileCache?.();
await import('./cli-main.js');
