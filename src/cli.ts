#!/usr/bin/env node
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
import module from 'node:module';
import v8 from 'node:v8';

v8.setFlagsFromString('--semi-space-growth-factor=1');
module.enableCompileCache?.();
await import('./cli-main.js');
