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
    // processes waiting on simulated time (1.26 cores busy with two workers on 2 cores), so two at least.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    setupFiles: ['test/setup/isolate-host-state.ts'],
  },
});
