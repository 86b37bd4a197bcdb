// The work the query executor's processes can do, by name: plain statements, and whole DKAN, AGCO and archive
// search answers.
import { definitionsAnswer } from './areas/agco/queries.js';
import { searchAnswer } from './areas/archive/search.js';
import { csvPage, dkanAnswer } from './areas/dkan/answer.js';
import type { TakeBytes } from './platform/data/answer-arena.js';
import type { FixtureStore } from './platform/data/fixture-store.js';
import { runSteps, type Step } from './platform/data/steps.js';

/**
 * A task reads only the store it is given and returns structured-clone data; bytes it returns may be taken
 * from `bytes`, memory the caller reuses once the answer has gone (a query process's AnswerArena).
 */
export type Task = (store: FixtureStore, input: never, bytes?: TakeBytes) => unknown;

export const TASKS = {
  steps: (store: FixtureStore, input: readonly Step[]) => runSteps(store, input),
  'dkan:answer': dkanAnswer,
  'dkan:csvPage': csvPage,
  'agco:definitions': definitionsAnswer,
  'archive:search': searchAnswer,
} satisfies Record<string, Task>;

export type TaskName = keyof typeof TASKS;
export type TaskInput<N extends TaskName> = Parameters<(typeof TASKS)[N]>[1];
export type TaskResult<N extends TaskName> = ReturnType<(typeof TASKS)[N]>;
/**
 * How a task's result reaches its caller: bytes arrive as a list of parts, since a process sends a long
 * answer in slices (src/query-child.ts); anything else as it was returned.
 */
export type Delivered<R> = R extends Uint8Array ? Uint8Array[] : R;
/** Bytes the executor delivers whole or in parts, one message each (SLICE_BYTES at most). */
export const SLICE_BYTES = 1 << 20;
