import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config.js';
import { FixtureStore } from '../../src/platform/data/fixture-store.js';
import { forkQueryProcess, queryChildScript } from '../../src/platform/data/query-child-script.js';
import type { ChildMessage, JobAnswer, JobMessage } from '../../src/platform/data/query-job.js';
import { until } from '../helpers/wait.js';

describe('a query process whose server is gone', () => {
  it('exits quietly instead of crashing on its first message', async () => {
    // The server's end of the channel is closed before the child has run a line of its own: its "ready"
    // message then meets a closed pipe (EPIPE), as when the server is killed outright.
    const child = fork(queryChildScript(), [], {
      serialization: 'advanced',
      execArgv: [],
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
    });
    child.disconnect();
    // Its exit, and the end of its stderr: by then everything it wrote there has been read. (The child's own
    // 'close' does not come once the parent has disconnected the channel.)
    const [[code]] = (await Promise.all([once(child, 'exit'), once(child.stderr!, 'close')])) as [
      [number | null],
      unknown,
    ];
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });
});

describe('a query process given a batch of jobs', () => {
  it('answers them in order, a few per message, and skips one the server takes back before it starts', async () => {
    await withQueryProcess(async ({ child, messages, job }) => {
      // The first job holds the process long enough for the skip to arrive before the third would start.
      const jobs = [job(1, HOLD_SQL), ...[2, 3, 4, 5, 6].map((id) => job(id, `SELECT ${id} * 10`))];
      child.send({ jobs });
      child.send({ skip: [3] });
      await until(() => answered(messages).includes(6));
      const answers = messages.filter((m): m is { answers: JobAnswer[]; cpuMs: number } => 'answers' in m);
      expect(answered(messages)).toEqual([1, 2, 4, 5, 6]);
      expect(answers.flatMap((m) => m.answers.map((a) => a.result))).toEqual([[3_000_000], [20], [40], [50], [60]]);
      // Grouped at most FLUSH_ANSWERS to a message (how many go together depends on the machine's speed).
      expect(Math.max(...answers.map((m) => m.answers.length))).toBeLessThanOrEqual(2);
    });
  });

  it('runs a job the server took back and sent again in its new batch, not in the batch it left', async () => {
    await withQueryProcess(async ({ child, messages, job }) => {
      // A batch, the server taking back its followers, and a new batch that has one of them fourth, sent while
      // job 0 holds the process. However the process reads them (all at once after job 0, or the first batch
      // with job 0), the first batch comes to job 3 (its third) before the new batch does: the server, which
      // expects the new batch's answers in its order, would pass over an answer to 3 ahead of 6 and wait for 3
      // until its budget ran out.
      child.send(job(0, HOLD_SQL));
      child.send({ jobs: [job(1), job(2), job(3)] });
      child.send({ skip: [2, 3] });
      child.send({ jobs: [job(4), job(5), job(6), job(3)] });
      await until(() => answered(messages).includes(3) && answered(messages).includes(6));
      const ids = answered(messages);
      // The new batch answered in its order, 3 once (the test sent it before the first batch's lead was
      // answered, which the server does not: how the two batches interleave is not the point). Job 2 runs
      // when the skip is read only after the first batch came to it: the server ignores that answer.
      expect(ids.filter((id) => id >= 3)).toEqual([4, 5, 6, 3]);
      expect(ids.filter((id) => id !== 2).toSorted((a, b) => a - b)).toEqual([0, 1, 3, 4, 5, 6]);
      expect(ids.filter((id) => id === 2).length).toBeLessThanOrEqual(1);
    });
  });
});

/** A statement that holds a process for a few hundred milliseconds: what is sent meanwhile waits in its channel. */
const HOLD_SQL =
  'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 3000000) SELECT count(*) FROM c';

interface QueryProcess {
  child: ChildProcess;
  /** Everything the process has said, in order. */
  messages: ChildMessage[];
  /** A job of one statement on the default store (by default `SELECT <id>`). */
  job: (id: number, sql?: string) => JobMessage;
}

/** Runs `test` with a query process of its own, once it is ready; the process is killed afterwards. */
async function withQueryProcess(test: (p: QueryProcess) => Promise<void>): Promise<void> {
  const store = FixtureStore.open(resolveConfig({}).dataDir);
  const child = forkQueryProcess(queryChildScript());
  child.ref();
  child.channel?.ref();
  const messages: ChildMessage[] = [];
  child.on('message', (m: ChildMessage) => messages.push(m));
  try {
    await until(() => messages.some((m) => 'ready' in m));
    const job = (id: number, sql = `SELECT ${id}`): JobMessage => ({
      id,
      path: store.dbPath!,
      fingerprint: store.fingerprint,
      task: 'steps',
      input: [{ op: 'pluckGet', sql, params: [] }],
    });
    await test({ child, messages, job });
  } finally {
    child.kill('SIGKILL');
    store.close();
  }
}

const answered = (messages: ChildMessage[]): number[] =>
  messages.flatMap((m) => ('answers' in m ? m.answers.map((a) => a.id) : 'id' in m && !('slice' in m) ? [m.id] : []));
