import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli';

const FIX = resolve(__dirname, '../fixtures/adapters');
const tmp = mkdtempSync(join(tmpdir(), 'caplab-tp-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const env = { CAPLAB_DATA_DIR: join(tmp, 'data'), CAPLAB_WORKLOADS_DIR: join(tmp, 'workloads') };

describe('caplab throughput (real child process)', () => {
  it('--json prints adapter, units, count, seconds and rate', async () => {
    const r = await runCli(['throughput', join(FIX, 'litgpt-metrics.csv'), '--json'], env);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(Object.keys(j).slice(0, 6)).toEqual(['file', 'adapter', 'units', 'count', 'seconds', 'rate']);
    expect(j).toMatchObject({ file: 'litgpt-metrics.csv', adapter: 'litgpt', units: 'tokens', count: 98304, gpus: 4 });
    expect(j.seconds).toBeCloseTo(0.768, 9);
    expect(j.rate).toBeCloseTo(128000, 3);
    expect(j.rate_per_gpu).toBeCloseTo(32000, 3);
  }, 60_000);

  it('auto-detects each format', async () => {
    for (const [file, adapter, rate] of [
      ['protocol.log', 'protocol', 128],
      ['hpcai-vision.log', 'hpcai-vision', 300],
      ['vllm-bench.txt', 'vllm', 1019.92],
    ] as const) {
      const r = await runCli(['throughput', join(FIX, file), '--json'], env);
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ adapter, rate });
    }
  }, 60_000);

  it('text output names the adapter, units, count, window and rate', async () => {
    const r = await runCli(['throughput', join(FIX, 'protocol.log')], env);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('adapter  protocol (detected)');
    expect(r.stdout).toContain('units    images');
    expect(r.stdout).toContain('count    256');
    expect(r.stdout).toContain('window   2 s (2023-11-14T22:13:22.000Z .. 2023-11-14T22:13:24.000Z)');
    expect(r.stdout).toContain('rate     128 images/s (64 per GPU, 2 GPUs)');
  }, 60_000);

  it('a regex adapter configured on the command line', async () => {
    const r = await runCli(['throughput', join(FIX, 'regex-custom.log'), '--pattern', String.raw`(?P<units>\d+) tokens in (?P<seconds>[\d.]+) s`, '--skip', '1', '--units', 'tokens', '--json'], env);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ adapter: 'regex', units: 'tokens', count: 2048, seconds: 1, rate: 2048 });
  }, 60_000);

  it('garbage and bad input: exit 2 with the file and line named', async () => {
    const g = await runCli(['throughput', join(FIX, 'garbage.log'), '--json'], env);
    expect(g.code).toBe(2);
    expect(g.stdout).toBe('');
    expect(g.stderr).toMatch(/^caplab throughput: .*garbage\.log:1: cannot tell which tool wrote this/);
    const bad = await runCli(['throughput', join(FIX, 'litgpt-bad.csv'), '--adapter', 'litgpt'], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('litgpt-bad.csv:4: expected 24 columns as in the header, found 25');
    const missing = await runCli(['throughput', join(tmp, 'nope.log')], env);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('nope.log: no such file');
    const unknown = await runCli(['throughput', join(FIX, 'mllog.log'), '--adapter', 'fancy'], env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/--adapter must be auto or one of protocol, mllog, /);
  }, 60_000);
});

describe('caplab workloads', () => {
  it('--json lists built-in and user definitions with their parameters; bad user files are reported', async () => {
    const user = join(tmp, 'workloads');
    mkdirSync(user, { recursive: true });
    writeFileSync(join(user, 'mine.yaml'), 'id: mine\ntitle: Mine\nunits: requests\nnative:\n  argv: ["./serve-bench"]\n');
    writeFileSync(join(user, 'bad.yaml'), 'id: bad\ntitle: Bad\nunits: tokens\nparams:\n  n: { type: int, default: 0, min: 1 }\nnative:\n  argv: ["x", "{n}"]\n');
    const r = await runCli(['workloads', '--json'], env);
    expect(r.code).toBe(0);
    const list = JSON.parse(r.stdout) as { id: string; title: string; units: string; params: Record<string, unknown>; builtin: boolean }[];
    expect(list.map((w) => w.id)).toEqual(['command', 'llama_infer', 'llama_pretrain', 'resnet50', 'sd_unet', 'vit_l_16', 'mine']);
    expect(list.find((w) => w.id === 'vit_l_16')).toMatchObject({ title: 'ViT-L/16 image-classification training', units: 'images', builtin: true, params: { batch_size: { type: 'int', default: 128, min: 1 } } });
    expect(list.at(-1)).toMatchObject({ id: 'mine', units: 'requests', builtin: false, params: {} });
    expect(r.stderr).toContain(`skipped ${join(user, 'bad.yaml')}: params.n.default: must be an integer >= 1, got 0`);
  }, 60_000);
});
