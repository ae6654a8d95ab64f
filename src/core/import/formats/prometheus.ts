// Prometheus /api/v1/query_range JSON ({"status":"success","data":{"resultType":"matrix","result":[{metric,
// values:[[t,"v"],...]}]}}) of dcgm-exporter metrics. A response is held whole (capped), since JSON has no
// record boundary to stream on; range responses are bounded by Prometheus's 11,000 points per series.
// zod's mini build with its English messages only: every parse thread loads this module with the format registry,
// and the full build costs ~70 ms of start-up there (bench/results/import.md). The locale is the one the full
// build sets on load, so setting it here changes nothing for code that uses both.
import { cutText } from '../../../shared/format';
import * as z from 'zod/mini';
import { en } from 'zod/locales';
import { BatchBuilder, type Channel } from '../batch';
import type { ParserOptions, StreamParser } from '../parser';
import { ImportError, ReportBuilder } from '../report';
import type { FormatModule } from '../format-module';

export const PROMETHEUS_MAX_BYTES = 256 * 1024 * 1024;

const METRICS: Record<string, { channel: Channel; unit: string; kind?: 'average' | 'instant' }> = {
  DCGM_FI_DEV_POWER_USAGE: { channel: 'power_avg_w', unit: 'W', kind: 'average' },
  DCGM_FI_DEV_POWER_USAGE_INSTANT: { channel: 'power_instant_w', unit: 'W', kind: 'instant' },
  DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION: { channel: 'energy_mj', unit: 'mJ' },
  DCGM_FI_DEV_SM_CLOCK: { channel: 'sm_clock_mhz', unit: 'MHz' },
  DCGM_FI_DEV_MEM_CLOCK: { channel: 'mem_clock_mhz', unit: 'MHz' },
  DCGM_FI_DEV_GPU_TEMP: { channel: 'temp_c', unit: 'C' },
  DCGM_FI_DEV_GPU_UTIL: { channel: 'util_gpu', unit: '%' },
  DCGM_FI_DEV_MEM_COPY_UTIL: { channel: 'util_mem', unit: '%' },
  DCGM_FI_DEV_FB_USED: { channel: 'mem_used_mb', unit: 'MiB' },
  DCGM_FI_DEV_POWER_MGMT_LIMIT: { channel: 'limit_w', unit: 'W' },
};

z.config(en());

const Response = z.object({
  status: z.literal('success'),
  data: z.object({
    resultType: z.literal('matrix'),
    result: z.array(z.object({ metric: z.record(z.string(), z.string()), values: z.array(z.tuple([z.number(), z.string()])) })),
  }),
});

export function prometheusParser(opts: ParserOptions): StreamParser {
  const rep = new ReportBuilder('prometheus', opts.file);
  const out = new BatchBuilder(opts.emit, opts.batchRows, opts.spareBatch);
  const parts: string[] = [];
  let size = 0;
  return {
    report: rep.r,
    push: (text) => {
      size += text.length;
      if (size > PROMETHEUS_MAX_BYTES) throw new ImportError(opts.file, null, `Prometheus response larger than ${PROMETHEUS_MAX_BYTES >> 20} MiB: query a shorter range or a larger step`);
      parts.push(text);
    },
    end: () => {
      const text = parts.join('');
      if (!text.trim()) throw new ImportError(opts.file, null, 'empty file');
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch (e) {
        throw new ImportError(opts.file, null, `not valid JSON: ${(e as Error).message}`);
      }
      const parsed = Response.safeParse(json);
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        throw new ImportError(opts.file, null, `not a Prometheus range-query (matrix) response: ${issue.path.join('.')}: ${issue.message}`);
      }
      parsed.data.data.result.forEach((series, k) => {
        const name = series.metric.__name__ ?? '';
        const m = METRICS[name];
        if (!m) {
          rep.warn(`metric "${cutText(name) || '(unnamed)'}" is not imported`);
          return;
        }
        rep.column({ source: name, channel: m.channel, unit: m.unit, sensor_kind: m.kind ?? null, note: null });
        const host = series.metric.Hostname ?? series.metric.instance ?? '';
        const gpu = series.metric.gpu ?? series.metric.device ?? '0';
        const uuid = series.metric.UUID ?? null;
        const dev = rep.device(uuid ?? `${host ? host + '/' : ''}gpu:${gpu}`, {
          kind: 'gpu',
          index: /^\d+$/.test(gpu) ? Number(gpu) : null,
          name: series.metric.modelName ?? null,
          uuid,
          pci_bus_id: series.metric.pci_bus_id ?? null,
        });
        series.values.forEach(([t, v], j) => {
          const x = Number(v);
          if (!Number.isFinite(t)) {
            rep.skip(k, 'bad timestamp in a series');
            return;
          }
          const i = out.row(t, dev);
          out.set(i, m.channel, Number.isFinite(x) ? x : NaN);
          rep.commit(out, i, k, t, dev, `series ${k + 1} (${name}), point ${j + 1}`);
        });
      });
      out.flush();
      return { report: rep.r, segments: [] };
    },
  };
}

export const prometheusFormat: FormatModule<'prometheus'> = {
  format: 'prometheus',
  // Between CapLab's two rules: a query response names its resultType or success before any "caplab".
  detect: [{ content: 'json', priority: 20, test: ({ head }) => /"resultType"\s*:/.test(head) || /"status"\s*:\s*"success"/.test(head) }],
  reader: { kind: 'stream', parser: prometheusParser, encoding: 'utf8' },
};
