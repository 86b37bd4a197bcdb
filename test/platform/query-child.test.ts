import { fork } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { queryChildScript } from '../../src/platform/data/query-child-script.js';

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
