// The tick object a server keeps (src/platform/http/tick-shape.ts) is a real one of process.nextTick's,
// and while it is held, full collections leave the shape of new tick objects as it was: the condition for
// V8 to keep Node's optimized HTTP code instead of throwing it away after an idle collection.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config.js';
import { Pipeline, type PipelineOptions } from '../../src/platform/http/pipeline.js';
import { keepTickShape } from '../../src/platform/http/tick-shape.js';

const built = pathToFileURL(path.resolve(import.meta.dirname, '../../dist/src/platform/http/tick-shape.js')).href;

// Run in a Node of its own: V8's natives (%HaveSameMap) and gc() need flags that only a new process takes.
const script = `
import { createHook } from 'node:async_hooks';
import { keepTickShape } from ${JSON.stringify(built)};
const kept = keepTickShape();
const made = [];
const hook = createHook({ init(_id, type, _t, resource) { if (type === 'TickObject') made.push(resource); } });
const newTick = () => { made.length = 0; hook.enable(); process.nextTick(() => {}); hook.disable(); return made[0]; };
const before = newTick();
const sameBefore = %HaveSameMap(kept, before);
// The ticks queued so far run before an immediate: the collections below find none queued.
await new Promise((resolve) => setImmediate(resolve));
globalThis.gc(); globalThis.gc();
const after = newTick();
console.log(JSON.stringify({ sameBefore, sameAfter: %HaveSameMap(kept, after) }));
`;

describe('the kept tick object', () => {
  it('is one of process.nextTick own objects: its async id symbols and callback', () => {
    const tick = keepTickShape() as Record<string | symbol, unknown> | null;
    expect(tick).not.toBeNull();
    const symbols = Object.getOwnPropertySymbols(tick).map((s) => s.description);
    expect(symbols).toEqual(expect.arrayContaining(['async_id_symbol', 'trigger_async_id_symbol']));
    expect(typeof tick!.callback).toBe('function');
  });

  it('is held by every pipeline, for as long as its server runs', () => {
    // The constructor reads only the configuration and the areas.
    const options = { config: resolveConfig({ logLevel: 'silent' }, {}), areas: [] } as unknown as PipelineOptions;
    const kept = new Pipeline(options).keptTick;
    expect(Object.getOwnPropertySymbols(kept).map((s) => s.description)).toContain('async_id_symbol');
  });

  it('keeps the shape of new tick objects through full collections', () => {
    const run = spawnSync(
      process.execPath,
      ['--allow-natives-syntax', '--expose-gc', '--input-type=module', '--eval', script],
      { encoding: 'utf8' },
    );
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual({ sameBefore: true, sameAfter: true });
  });
});
