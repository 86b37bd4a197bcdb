#!/usr/bin/env node
// mockyard's command. Node's compile cache (module.enableCompileCache, Node 22.1+) keeps V8's compiled code
// of the bundle between runs, so every start after the first skips compiling it: a quarter of the time to
// the first answer. It must be on before the rest of mockyard is loaded, hence the dynamic import. The
// cache lives in Node's default folder (NODE_COMPILE_CACHE sets another; NODE_DISABLE_COMPILE_CACHE=1 turns
// it off); a folder that cannot be written only costs the saving.
import module from 'node:module';

module.enableCompileCache?.();
await import('./cli-main.js');
