import { AdapterError, excerpt, fileName, parseNumber, splitLines, type AdapterOptions, type ThroughputAdapter, type ThroughputResult } from './types';

/**
 * Online/offline serving benchmarks: SGLang `python -m sglang.bench_serving` and vLLM `vllm bench serve`.
 * Both print a result block
 *   ============ Serving Benchmark Result ============
 *   Successful requests:                     1000
 *   Benchmark duration (s):                  43.12
 *   Total generated tokens:                  198343
 *   Output token throughput (tok/s):         4599.76
 *   ---------------Time to First Token----------------
 *   Mean TTFT (ms):                          ...
 *   ==================================================
 * and save JSON (SGLang `--output-file`, one JSON object per line; vLLM `--save-result`, one object) with
 * `duration, completed, total_output_tokens, output_throughput, mean_ttft_ms, ...`.
 * SGLang `python -m sglang.bench_offline_throughput` (the engine in-process, no server) prints the same kind of
 * block under `====== Offline Throughput Benchmark Result =======` (Backend: engine, ..., Last generation
 * throughput, Output token throughput, Total token throughput), read by the same adapter.
 * Count = generated (output) tokens, seconds = benchmark duration, rate = output token throughput.
 */

type Fields = Record<string, number | string>;

const LABELS: Record<string, string> = {
  'backend': 'backend',
  'traffic request rate': 'request_rate',
  'max request concurrency': 'max_concurrency',
  'maximum request concurrency': 'max_concurrency',
  'request rate configured (rps)': 'request_rate',
  'successful requests': 'completed',
  'failed requests': 'failed',
  'benchmark duration (s)': 'duration',
  'total input tokens': 'total_input_tokens',
  'total generated tokens': 'total_output_tokens',
  'total generated tokens (retokenized)': 'total_output_tokens_retokenized',
  'request throughput (req/s)': 'request_throughput',
  'request goodput (req/s)': 'request_goodput',
  'input token throughput (tok/s)': 'input_throughput',
  'output token throughput (tok/s)': 'output_throughput',
  'peak output token throughput (tok/s)': 'max_output_tokens_per_s',
  'peak concurrent requests': 'max_concurrent_requests',
  'total token throughput (tok/s)': 'total_token_throughput',
  'last generation throughput (tok/s)': 'last_gen_throughput',
  'concurrency': 'concurrency',
};
/** Fields that must be numbers when present. */
const NUMERIC = new Set(['last_gen_throughput', 'completed', 'failed', 'duration', 'total_input_tokens', 'total_output_tokens', 'total_output_tokens_retokenized', 'request_throughput', 'input_throughput', 'output_throughput', 'total_token_throughput']);
const LATENCY_LABEL = /^(mean|median|std|max|p\d+(?:\.\d+)?) (ttft|itl|tpot|e2e latency|e2el) \(ms\)$/;
const LATENCY_KEY = /^(mean|median|std|max|p\d+(?:\.\d+)?)_(ttft|itl|tpot|e2e_latency|e2el)_ms$/;
const metricName = (m: string) => (m.startsWith('e2e') ? 'e2e' : m.replace(' ', '_'));

/** The heading of a result block: bench_serving / vllm bench serve, or SGLang's bench_offline_throughput. */
const HEADING = /^=+ *(Serving|Offline Throughput) Benchmark Result *=+$/i;

interface Block {
  line: number;
  /** Which benchmark printed it. */
  kind: 'serving' | 'offline';
  fields: Fields;
  latency: Record<string, Record<string, number>>;
  other: Record<string, number>;
}

function parseBlocks(text: string, file: string): Block[] {
  const lines = splitLines(text);
  const blocks: Block[] = [];
  let cur: Block | null = null;
  lines.forEach((raw, i) => {
    const l = raw.trim();
    const heading = HEADING.exec(l);
    if (heading) {
      cur = { line: i + 1, kind: heading[1]!.toLowerCase() === 'serving' ? 'serving' : 'offline', fields: {}, latency: {}, other: {} };
      blocks.push(cur);
      return;
    }
    if (!cur) return;
    if (/^=+$/.test(l)) {
      cur = null;
      return;
    }
    if (/^-+.*-+$/.test(l) || !l) return;
    const m = /^([^:]+?):\s*(.*)$/.exec(l);
    if (!m) return;
    const label = m[1]!.trim();
    const value = m[2]!.trim();
    if (value === '') return; // a sub-heading such as "Per-position acceptance (%):"
    const lower = label.toLowerCase();
    const lat = LATENCY_LABEL.exec(lower);
    if (lat) {
      const n = parseNumber(value);
      if (n === null) throw new AdapterError(`${label} is not a number: "${excerpt(value, 40)}"`, file, i + 1);
      const metric = metricName(lat[2]!);
      (cur.latency[metric] ??= {})[lat[1]!] = n;
      return;
    }
    const key = LABELS[lower];
    const n = parseNumber(value);
    if (key) {
      if (NUMERIC.has(key) && n === null) throw new AdapterError(`${label} is not a number: "${excerpt(value, 40)}"`, file, i + 1);
      cur.fields[key] = n ?? value;
    } else if (n !== null) cur.other[label] = n;
  });
  return blocks;
}

function toolOf(fields: Fields, raw: string, kind: Block['kind'] = 'serving'): 'sglang' | 'vllm' {
  if (kind === 'offline' || 'backend' in fields || 'total_output_tokens_retokenized' in fields || 'concurrency' in fields) return 'sglang';
  if (/E2E Latency|retokenized/.test(raw)) return 'sglang';
  return 'vllm';
}

function result(adapter: string, fields: Fields, latency: Record<string, Record<string, number>>, opts: AdapterOptions, file: string, line: number | null, extra: Record<string, unknown>): ThroughputResult {
  const num = (k: string) => (typeof fields[k] === 'number' ? (fields[k] as number) : null);
  const out = num('output_throughput');
  const duration = num('duration');
  const tokens = num('total_output_tokens');
  let rate = out;
  if (rate === null) {
    // Some versions print no output throughput line: derive it from tokens and duration.
    if (tokens !== null && duration) rate = tokens / duration;
    else throw new AdapterError('no output token throughput in the result', file, line);
  }
  return {
    adapter,
    units: opts.units ?? 'tokens',
    count: tokens,
    seconds: duration,
    rate,
    window: null,
    window_derived: 'the result has no absolute time: the benchmark duration it reports (its own timing of the benchmark phase)',
    details: {
      completed: num('completed'),
      failed: num('failed'),
      request_throughput: num('request_throughput'),
      input_throughput: num('input_throughput'),
      total_token_throughput: num('total_token_throughput'),
      total_input_tokens: num('total_input_tokens'),
      request_rate: fields.request_rate ?? null,
      max_concurrency: fields.max_concurrency ?? null,
      backend: fields.backend ?? null,
      ttft_ms: latency.ttft ?? null,
      itl_ms: latency.itl ?? null,
      tpot_ms: latency.tpot ?? null,
      e2e_ms: latency.e2e ?? null,
      ...extra,
    },
  };
}

function blockAdapter(name: 'sglang' | 'vllm', title: string): ThroughputAdapter {
  return {
    name,
    title,
    defaultUnits: 'tokens',
    defaultSkip: 0,
    skipCounts: 'unused (the last result block is reported)',
    detect(text) {
      if (!/=+ *(Serving|Offline Throughput) Benchmark Result *=+/i.test(text)) return 0;
      const blocks = (() => {
        try {
          return parseBlocks(text, '');
        } catch {
          return [];
        }
      })();
      const last = blocks[blocks.length - 1];
      const tool = last ? toolOf(last.fields, text, last.kind) : /Backend:|retokenized/.test(text) ? 'sglang' : 'vllm';
      return tool === name ? 0.9 : 0.85;
    },
    read(text, opts) {
      const file = fileName(opts);
      const blocks = parseBlocks(text, file);
      if (!blocks.length) throw new AdapterError("no '==== Serving Benchmark Result ====' (or '==== Offline Throughput Benchmark Result ====') block found", file, null);
      const last = blocks[blocks.length - 1]!;
      return result(name, last.fields, last.latency, opts, file, last.line, {
        tool: toolOf(last.fields, text, last.kind),
        benchmark: last.kind === 'offline' ? 'bench_offline_throughput' : 'bench_serving',
        last_gen_throughput: typeof last.fields.last_gen_throughput === 'number' ? last.fields.last_gen_throughput : undefined,
        block_line: last.line,
        blocks: blocks.length,
        other: Object.keys(last.other).length ? last.other : undefined,
        all_blocks: blocks.length > 1 ? blocks.map((b) => ({ line: b.line, output_throughput: b.fields.output_throughput ?? null, request_rate: b.fields.request_rate ?? null })) : undefined,
      });
    },
  };
}

export const sglangAdapter = blockAdapter('sglang', 'SGLang bench_serving result block');
export const vllmAdapter = blockAdapter('vllm', 'vLLM bench serve result block');

function jsonRecords(text: string, file: string): { line: number; obj: Record<string, unknown> }[] {
  const trimmed = text.trim();
  if (!trimmed) throw new AdapterError('empty file', file, 1);
  // One (possibly pretty-printed) document first; else JSON lines.
  try {
    const doc: unknown = JSON.parse(trimmed);
    const arr = Array.isArray(doc) ? doc : [doc];
    return arr.filter((o): o is Record<string, unknown> => !!o && typeof o === 'object').map((obj) => ({ line: 1, obj }));
  } catch {
    /* not a single document */
  }
  const out: { line: number; obj: Record<string, unknown> }[] = [];
  splitLines(text).forEach((l, i) => {
    if (!l.trim()) return;
    let v: unknown;
    try {
      v = JSON.parse(l);
    } catch {
      throw new AdapterError(`not a JSON line: ${excerpt(l.trim(), 60)}`, file, i + 1);
    }
    if (!v || typeof v !== 'object' || Array.isArray(v)) throw new AdapterError('JSON line is not an object', file, i + 1);
    out.push({ line: i + 1, obj: v as Record<string, unknown> });
  });
  return out;
}

export const servingJsonAdapter: ThroughputAdapter = {
  name: 'serving-json',
  title: 'SGLang / vLLM benchmark JSON (lines) with duration, completed, total_output_tokens, output_throughput',
  defaultUnits: 'tokens',
  defaultSkip: 0,
  skipCounts: 'unused (the last record is reported)',
  detect(text) {
    const t = text.trimStart();
    return t.startsWith('{') && text.includes('"output_throughput"') && text.includes('"duration"') ? 0.88 : 0;
  },
  read(text, opts) {
    const file = fileName(opts);
    const recs = jsonRecords(text, file).filter((r) => 'output_throughput' in r.obj || 'total_output_tokens' in r.obj);
    if (!recs.length) throw new AdapterError('no record with output_throughput or total_output_tokens', file, 1);
    const last = recs[recs.length - 1]!;
    const fields: Fields = {};
    const latency: Record<string, Record<string, number>> = {};
    for (const [k, v] of Object.entries(last.obj)) {
      const lat = LATENCY_KEY.exec(k);
      if (lat && typeof v === 'number') {
        (latency[metricName(lat[2]!)] ??= {})[lat[1]!] = v;
        continue;
      }
      if (typeof v === 'number' || typeof v === 'string') fields[k] = v;
      else if (v === null && (k === 'max_concurrency' || k === 'request_rate')) fields[k] = 'not set';
    }
    for (const k of NUMERIC) {
      if (k in fields && typeof fields[k] !== 'number') {
        const n = parseNumber(String(fields[k]));
        if (n === null) throw new AdapterError(`${k} is not a number: "${excerpt(String(fields[k]), 40)}"`, file, last.line);
        fields[k] = n;
      }
    }
    const o = last.obj;
    const tool = 'total_output_tokens_retokenized' in o || 'mean_e2e_latency_ms' in o || 'input_throughput' in o ? 'sglang' : 'mean_e2el_ms' in o || 'request_goodput' in o || 'total_token_throughput' in o ? 'vllm' : 'unknown';
    return result('serving-json', fields, latency, opts, file, last.line, { tool, record_line: last.line, records: recs.length, model: o.model_id ?? o.model ?? null });
  },
};
