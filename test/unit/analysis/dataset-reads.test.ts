// analyzeDataset reads each segment's samples once: a segment analysed as a run needs them for its energy and for
// its run input, over the same padded window, and the second ask is served from the first read.
import { describe, expect, it, vi } from 'vitest';
import { importPaths } from '../../../src/main/lab/datasets/importer';
import { analyzeDataset } from '../../../src/main/lab/datasets/analysis';
import { readSamples } from '../../../src/main/lab/store/sample-blocks';
import { openDb } from '../../../src/main/lab/store/db';

// Every read of a stream's window, counted where the store decodes it.
vi.mock('../../../src/main/lab/store/sample-blocks', async (original) => {
  const store = await original<typeof import('../../../src/main/lab/store/sample-blocks')>();
  return { ...store, readSamples: vi.fn(store.readSamples) };
});

describe('analyzeDataset', () => {
  it('reads each window of each stream once, energy and sweep analysis together', async () => {
    const db = openDb(':memory:');
    try {
      // hpc-ai-perf-bench logs of ViT-L/16 on an H100 at two caps: one segment per cap, each with a cap and units.
      const out = await importPaths(db, ['test/fixtures/import/hpcai-tree'], { format: 'auto', zone: 'UTC', parse_thread: 'inline' });
      const read = vi.mocked(readSamples);
      read.mockClear();
      const a = analyzeDataset(db, out.dataset!.id);
      expect(a.sweep?.groups.length).toBeGreaterThan(0);
      expect(a.segments.every((s) => s.energy.energy_j !== null)).toBe(true);
      const windows = read.mock.calls.map(([, stream, from, to]) => `${stream} ${from} ${to}`);
      expect(windows.length).toBeGreaterThanOrEqual(a.segments.length);
      expect(new Set(windows).size).toBe(windows.length);
    } finally {
      db.close();
    }
  });
});
