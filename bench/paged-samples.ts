// Paged reads (listSamples' store side, issue #10 item 6): a stream of N samples of one GPU read a page at a time,
// against the same samples read in one call into rows (readSamples), in the same run on the same data. The pages
// must cost at most twice the one-shot read per sample; what they buy is memory bounded by one page.
// N defaults to 1 M (the one-shot baseline holds every row in memory); CAPLAB_BENCH_SAMPLES overrides it.
import { join } from 'node:path';
import { openDb } from '../src/main/lab/store/db';
import { createDataset } from '../src/main/lab/store/datasets';
import { upsertDevice } from '../src/main/lab/store/devices';
import { readSamples, SampleWriter, streamFor } from '../src/main/lab/store/sample-blocks';
import { streamRanges } from '../src/main/lab/store/sample-stream';
import { readSamplePage, type SamplePosition } from '../src/main/lab/store/sample-page';
import type { DeviceInfo } from '../src/shared/device';
import { cpuSeconds, type BenchResult } from './harness';

const N = Number(process.env.CAPLAB_BENCH_SAMPLES ?? 1_000_000);
const PAGE = 10_000;
const BATCH = 65_536;

const device = {
  id: 'nvml:0', index: 0, backend: 'nvml', kind: 'gpu', name: 'bench H200', vendor: 'NVIDIA', simulated: false, uuid: 'GPU-bench', pci_bus_id: null, driver: null, vbios: null,
  limit_w: 700, enforced_limit_w: 700, min_limit_w: 200, max_limit_w: 700, default_limit_w: 700,
  sensors: { power_kinds: ['instant'], energy_counter: true, energy_counter_check: 'ok', update_period_ms: 100 },
} satisfies DeviceInfo;

export async function run(dir: string): Promise<BenchResult> {
  const db = openDb(join(dir, 'paged.db'));
  try {
    const datasetId = createDataset(db, { name: 'bench', source: 'bench', format: 'nvidia-smi' });
    const stream = streamFor(db, { dataset_id: datasetId }, upsertDevice(db, 'bench', device));
    const writer = new SampleWriter(db);
    for (let s = 0; s < N; s += BATCH) {
      const n = Math.min(BATCH, N - s);
      const t = Float64Array.from({ length: n }, (_, i) => 1.8e9 + (s + i) * 0.1);
      const wave = (a: number, b: number) => Float64Array.from({ length: n }, (_, i) => a + ((s + i) % b));
      writer.append(stream, { n, t, cols: { power_w: wave(400, 300), energy_mj: Float64Array.from({ length: n }, (_, i) => (s + i) * 50), sm_clock_mhz: wave(1500, 400), temp_c: wave(50, 30), util_gpu: wave(0, 100) }, power_kind: 'instant' });
    }
    writer.close();

    const whole = await cpuSeconds(() => readSamples(db, stream, -Infinity, Infinity).length);
    const ranges = streamRanges(db, { datasetId });
    const heap0 = process.memoryUsage().heapUsed;
    let heapMax = 0;
    const paged = await cpuSeconds(() => {
      let pos: SamplePosition | null = { d: 0, t: null, k: 0 };
      let rows = 0;
      let pages = 0;
      while (pos) {
        const p = readSamplePage(db, ranges, pos, PAGE);
        rows += p.samples.length;
        pages++;
        heapMax = Math.max(heapMax, process.memoryUsage().heapUsed - heap0);
        pos = p.next;
      }
      return { rows, pages };
    });
    if (whole.value !== N || paged.value.rows !== N) throw new Error(`read ${whole.value} / ${paged.value.rows} of ${N} samples`);
    const perCpu = (rows: number, cpu: number) => rows / cpu;
    return {
      name: `paged reads: ${N / 1e6} M samples in pages of ${PAGE}`,
      ratio_label: 'samples per CPU-second, pages / one readSamples call',
      ratio: perCpu(N, paged.cpu_s) / perCpu(N, whole.cpu_s),
      target: 0.5,
      better: 'higher',
      details: {
        samples: N,
        pages: paged.value.pages,
        paged_cpu_s: paged.cpu_s,
        one_call_cpu_s: whole.cpu_s,
        ms_per_page: (paged.cpu_s * 1000) / paged.value.pages,
        paged_heap_growth_mb: heapMax / 2 ** 20,
      },
    };
  } finally {
    db.close();
  }
}
