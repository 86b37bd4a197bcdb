// re2-wasm 1.0.2 keeps every compiled expression in one WebAssembly heap of a fixed 16 MiB per loaded module
// (built without memory growth), which JavaScript's collector does not see: an RE2 is freed only by its
// wrapper's delete(). When the heap is full the module aborts, and every later compile or match in it throws,
// for good. So an expression compiled here is freed when the object holding it is collected (or at once, by
// `free`), and a module that aborted is dropped and loaded afresh: the expressions compiled in it are compiled
// again, from their sources, where they are next used.
import { createRequire } from 'node:module';
import { sep } from 'node:path';
import type { RE2 } from 're2-wasm';

type Re2Class = typeof RE2;
interface Wrapper {
  delete(): void;
}

const requireHere = createRequire(import.meta.url);

/** Frees the heap's copy of an expression whose holder was collected (its module may have aborted since). */
const freeing = new FinalizationRegistry<Wrapper>((wrapper) => {
  try {
    wrapper.delete();
  } catch {
    // Its module aborted: its heap goes with it.
  }
});

/**
 * The module compiles go to: Node's module cache holds it, as it holds any module; the WebAssembly heap is the
 * process's, whichever server in it compiles.
 */
class Re2Module {
  #class: Re2Class | null = null;
  /** Patterns that filled a fresh module's heap by themselves: refused again without a try (at most 1,000). */
  readonly #tooBig = new Set<string>();
  tooBig(source: string): boolean {
    return this.#tooBig.has(source);
  }
  remember(source: string): void {
    this.#tooBig.add(source);
    for (const old of this.#tooBig) if (this.#tooBig.size > 1000) this.#tooBig.delete(old);
  }
  readonly #path = requireHere.resolve('re2-wasm');
  /** Whether re2-wasm is in Node's module cache. */
  loaded(): boolean {
    return requireHere.cache[this.#path] !== undefined;
  }
  get(): Re2Class {
    // Also when Node's cache no longer has it (dropped by `reload`, or by whoever manages the cache).
    if (this.#class === null || !this.loaded()) this.#class = (requireHere('re2-wasm') as { RE2: Re2Class }).RE2;
    return this.#class;
  }
  /** After an abort: the next `get` instantiates re2-wasm anew, with an empty heap. */
  reload(failed: Re2Class): void {
    if (this.#class !== failed) return;
    for (const key of Object.keys(requireHere.cache))
      if (key.includes(`${sep}re2-wasm${sep}`)) delete requireHere.cache[key];
    this.#class = null;
  }
}

const modules = new Re2Module();

const TOO_BIG = "the pattern needs more memory than re2-wasm's 16 MiB heap holds";

/** Loads re2-wasm (once; again after an abort) and gives its RE2 class. */
export const loadRe2 = (): Re2Class => modules.get();

/** Whether re2-wasm has been loaded in this process (is in Node's module cache). */
export const re2Loaded = (): boolean => modules.loaded();

/** An abort of the WebAssembly module (its heap full), not a pattern RE2 refuses (a SyntaxError). */
const aborted = (err: unknown): boolean => err instanceof Error && err.name === 'RuntimeError';

/** One compiled expression, kept working across the module's reloads. */
export class Re2Expression {
  #re: RE2;
  #module: Re2Class;

  /** Throws RE2's SyntaxError for a pattern it cannot run. */
  constructor(
    readonly source: string,
    readonly flags: string,
  ) {
    [this.#re, this.#module] = this.#compile();
  }

  test(text: string): boolean {
    if (this.#module !== modules.get()) [this.#re, this.#module] = this.#compile();
    try {
      return this.#re.test(text);
    } catch (err) {
      if (!aborted(err)) throw err;
      modules.reload(this.#module);
      [this.#re, this.#module] = this.#compile();
      return this.#re.test(text);
    }
  }

  /** Frees the heap's copy now (the expression is not used again). */
  free(): void {
    const wrapper = (this.#re as unknown as { wrapper: Wrapper }).wrapper;
    freeing.unregister(this);
    try {
      wrapper.delete();
    } catch {
      // Its module aborted.
    }
  }

  #compile(): [RE2, Re2Class] {
    // Each try loads a module of 16 MiB, which the collector frees only when it gets to it.
    if (modules.tooBig(this.source)) throw new SyntaxError(TOO_BIG);
    for (let attempt = 0; ; attempt++) {
      const Re2 = modules.get();
      try {
        const re = new Re2(this.source, this.flags);
        freeing.unregister(this);
        freeing.register(this, (re as unknown as { wrapper: Wrapper }).wrapper, this);
        return [re, Re2];
      } catch (err) {
        if (!aborted(err)) throw err;
        // The module is dead either way; a pattern that fills even a fresh one is refused as RE2's error.
        modules.reload(Re2);
        if (attempt > 0) {
          modules.remember(this.source);
          throw new SyntaxError(TOO_BIG);
        }
      }
    }
  }
}
