// What a run leaves behind and what it prints: real processes in a real pty.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { PtyRun } from '../../../src/main/lab/runner/pty-run';
import { killTagged, newRunTag, RUN_TAG_ENV, taggedProcesses } from '../../../src/main/lab/runner/tagged-processes';
import { isAlive } from '../../../src/main/lab/runner/process-tree';
import { LineSplitter } from '../../../src/shared/protocol';

function parentOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}

describe('processes of a run', () => {
  it('a double-forked daemon (fork -> setsid -> fork) outlives its run and tree kill, and is ended by its run tag', { timeout: 30_000 }, async () => {
    const tag = newRunTag();
    const run = new PtyRun({ argv: ['/bin/sh', '-c', "setsid /bin/sh -c 'sleep 600 & echo daemon $!' & sleep 0.5"], env: { ...process.env, [RUN_TAG_ENV]: tag } });
    expect((await run.exited).exitCode).toBe(0);
    // The tree kill of the run's end finds nothing: the daemon left the tree.
    await run.kill();
    const daemons = taggedProcesses(tag);
    expect(daemons.length).toBeGreaterThan(0);
    // Out of the run's process tree: re-parented away from the run's shell.
    for (const pid of daemons) expect(parentOf(pid)).not.toBe(run.pid);
    const killed = await killTagged(tag);
    expect(killed.sort()).toEqual(daemons.sort());
    expect(daemons.filter(isAlive)).toEqual([]);
    expect(taggedProcesses(tag)).toEqual([]);
  });
});

describe('output of a run', () => {
  it('a line without newlines is split in linear time and kept to 64 KiB with the cut counted', () => {
    const s = new LineSplitter();
    const chunk = 'x'.repeat(4096);
    const started = performance.now();
    for (let i = 0; i < 4096; i++) expect(s.push(chunk)).toEqual([]);
    const [line] = s.push('\nnext');
    expect(performance.now() - started).toBeLessThan(5000);
    expect(line!.length).toBeLessThan(64 * 1024 + 64);
    expect(line).toMatch(/… \[16711680 characters cut\]$/);
    expect(s.flush()).toEqual(['next']);
  });

  it('a workload printing 16 MB without a newline is read fully and stores a bounded tail', { timeout: 60_000 }, async () => {
    const run = new PtyRun({ argv: [process.execPath, '-e', "process.stdout.write('y'.repeat(16 << 20))"] });
    const exit = await run.exited;
    expect(exit.exitCode).toBe(0);
    const tail = run.outputTail();
    expect(tail.length).toBeLessThan(70 * 1024);
    expect(tail).toMatch(/^y+… \[\d+ characters cut\]$/);
  });
});
