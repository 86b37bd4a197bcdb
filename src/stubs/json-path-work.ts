// How much work a JSONPath may do on one document, by the document's shape and the expression's recursive
// descents. jsonpath-plus keeps each value's path while it walks, so a `..` costs about the document's values
// times its depth, and each further `..` multiplies by the values again: `$..*..*` over a 2 KB body nested
// 1,000 deep ran the process out of memory, and `$..*..*..*..*` over an 80-byte header nested 40 deep held
// the event loop for 440 ms. Past the limit an expression finds nothing.
import { workerData } from 'node:worker_threads';
import { shapeOf } from './json-shape.js';

/** Work on the event loop: about 5 ms of jsonpath-plus (a `..` over a 64 KiB body 20 deep is a tenth of it). */
export const EVENT_LOOP_WORK = 200_000;
/**
 * Work on the stubs' regular-expression thread (regex-worker.ts), for large bodies: a `..` over a MiB body (the
 * most a request sends for matching) of 500,000 values 8 deep, about 0.1 s. Each value found is kept with its
 * path: a 500-member union over 30,000 items (15 million values found) took 30 s and 4.5 GB on the thread.
 */
export const THREAD_WORK = 4_000_000;

/**
 * This thread's limit: the event loop's, or the one the regex thread is started with (regex-thread.ts puts
 * THREAD_WORK in its workerData: that thread holds no other client up).
 */
const LIMIT: number = (workerData as { jsonPathWork?: number } | null)?.jsonPathWork ?? EVENT_LOOP_WORK;

/** Recursive descents in an expression (counted anywhere in it: a quoted `..` counts too, erring on the safe side). */
const descents = (expression: string): number => expression.split('..').length - 1;

/**
 * How many times over a step's unions may take each value: the product of their members' counts. jsonpath-plus
 * does not merge what members find twice, so `$[*,*,*]` takes every item three times, and a second such step
 * nine. Commas inside a filter count too, erring on the safe side.
 */
function unionFactor(expression: string): number {
  let factor = 1;
  for (const m of expression.matchAll(/\[([^\]]*)\]/g)) factor *= m[1]!.split(',').length;
  return factor;
}

/**
 * The work an expression may do on a document: values, or values to the power of its descents times depth,
 * times its unions' factor.
 */
export function jsonPathWork(expression: string, doc: unknown): number {
  const { values, depth } = shapeOf(doc);
  const r = descents(expression);
  return (r === 0 ? values : values ** r * depth) * unionFactor(expression);
}

/** Whether this thread evaluates the expression on the document (else it finds nothing). */
export const withinJsonPathWork = (expression: string, doc: unknown): boolean => jsonPathWork(expression, doc) <= LIMIT;
