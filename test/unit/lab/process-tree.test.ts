import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { isAlive, killTree, processTree } from '../../../src/main/lab/runner/process-tree';
import { PtyRun } from '../../../src/main/lab/runner/pty-run';

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('process tree', () => {
  it('kills a process and its grandchildren, even ones that ignore SIGTERM', async () => {
    // sh -> (sh ignoring TERM -> sleep) and a plain sleep.
    const root = spawn('sh', ['-c', "sh -c 'trap \"\" TERM; sleep 300 & wait' & sleep 300 & wait"], { stdio: 'ignore' });
    await wait(300);
    const tree = processTree(root.pid!);
    expect(tree.length).toBeGreaterThanOrEqual(4);
    await killTree(root.pid!, 500);
    await wait(100);
    expect(tree.filter(isAlive)).toEqual([]);
  });
});

describe('pty runner', () => {
  it('runs argv in a real pty, splits lines and keeps a capped tail', async () => {
    const lines: string[] = [];
    const run = new PtyRun({ argv: ['sh', '-c', 'for i in $(seq 1 200); do echo line $i; done; tty; exit 3'], keepBytes: 200, onLine: (l) => lines.push(l) });
    const exit = await run.exited;
    expect(exit.exitCode).toBe(3);
    expect(lines[0]).toBe('line 1');
    expect(lines).toContain('line 200');
    expect(lines.some((l) => l.startsWith('/dev/pts/'))).toBe(true);
    expect(run.outputTail().length).toBeLessThanOrEqual(200);
    expect(run.outputTail(1)).toMatch(/^\/dev\/pts\//);
  });

  it('passes arguments verbatim: no shell interprets them', async () => {
    const lines: string[] = [];
    const run = new PtyRun({ argv: ['printf', '%s\\n', '$(echo injected); rm -rf /tmp/never'], onLine: (l) => lines.push(l) });
    await run.exited;
    expect(lines[0]).toBe('$(echo injected); rm -rf /tmp/never');
  });

  it('kill ends the whole tree of a hung workload', async () => {
    const run = new PtyRun({ argv: ['sh', '-c', 'sleep 300 & sleep 300; wait'] });
    await wait(300);
    const tree = processTree(run.pid);
    expect(tree.length).toBeGreaterThanOrEqual(2);
    await run.kill(500);
    await wait(100);
    expect(tree.filter(isAlive)).toEqual([]);
  });
});
