import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/unit/**/*.test.ts', 'test/integration/**/*.test.ts', 'src/**/*.test.ts'],
    environment: 'node',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Vitest's default, cores - 1, is one worker on a 2-core machine; the files spend much of their time in child
    // processes waiting on simulated time, so three at least: on 2 cores the suite took 864 s on one worker, 517 s on
    // two (1.3 cores busy), 382 s on three (1.7 cores busy).
    maxWorkers: Math.max(3, availableParallelism() - 1),
    setupFiles: ['test/setup/isolate-host-state.ts'],
  },
});
