import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseProtocolLine, type ProtocolEvent } from '../../src/shared/protocol';
import { RunProgress, type RunOutcome } from '../../src/main/lab/runner/progress';
import { buildCommand, loadWorkloads } from '../../src/main/lab/runner/workloads';

/**
 * The built-in Python workloads. Without a GPU (and usually without PyTorch) on the test machines, this checks:
 * that every script compiles, that their flags match the definitions, the protocol module, the online client
 * against a fake server (standard library only), and, where `python3 -c "import torch"` works (or
 * CAPLAB_TEST_PYTHON names an interpreter with torch), tiny CPU runs of every workload through RunProgress.
 */
const RES = resolve(__dirname, '../../resources');
const PYDIR = join(RES, 'workloads/python');
const PY = process.env.CAPLAB_TEST_PYTHON ?? 'python3';
const tmp = mkdtempSync(join(tmpdir(), 'caplab-py-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const pyEnv = { ...process.env, PYTHONPYCACHEPREFIX: join(tmp, 'pycache'), PYTHONDONTWRITEBYTECODE: '1', PYTHONUNBUFFERED: '1' };

const hasPython = spawnSync(PY, ['-c', 'import sys; sys.exit(0)'], { env: pyEnv }).status === 0;
const torchCheck = hasPython ? spawnSync(PY, ['-c', 'import torch, torchvision, transformers'], { env: pyEnv, encoding: 'utf8', timeout: 120_000 }) : null;
const hasTorch = torchCheck?.status === 0;
const noTorchReason = !hasPython ? `${PY} not found` : `${PY} cannot import torch, torchvision and transformers (${(torchCheck?.stderr ?? '').trim().split('\n').at(-1)})`;
if (!hasTorch) console.warn(`workload-scripts: tiny CPU runs skipped: ${noTorchReason}`);

const catalog = loadWorkloads({ resourcesDir: RES, userDir: null });

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
  events: ProtocolEvent[];
  invalid: string[];
}

function runPython(argv: string[], timeoutMs = 240_000): Promise<Ran> {
  return new Promise((res) => {
    const child = spawn(argv[0]!, argv.slice(1), { cwd: PYDIR, env: pyEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      const events: ProtocolEvent[] = [];
      const invalid: string[] = [];
      for (const l of stdout.split('\n')) {
        const p = parseProtocolLine(l);
        if (p.kind === 'event') events.push(p.event);
        else if (p.kind === 'invalid') invalid.push(`${l}: ${p.error}`);
      }
      res({ code, stdout, stderr, events, invalid });
    });
  });
}

function throughRunner(r: Ran, warmupSteps: number, windowSteps: number): RunOutcome {
  const p = new RunProgress({ warmup: { steps: warmupSteps }, window: { steps: windowSteps } });
  for (const l of r.stdout.split('\n')) p.pushLine(l);
  return p.finish({ exitCode: r.code });
}

describe.skipIf(!hasPython)('workload scripts without PyTorch', () => {
  it('every script compiles', () => {
    const files = readdirSync(PYDIR).filter((f) => f.endsWith('.py'));
    expect(files.sort()).toEqual(['caplab_bench.py', 'caplab_protocol.py', 'llama_infer.py', 'llama_pretrain.py', 'sd_unet.py', 'vision.py']);
    const r = spawnSync(PY, ['-m', 'py_compile', ...files.map((f) => join(PYDIR, f))], { env: pyEnv, encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it('import only torch, torchvision, timm, transformers, pynvml and the standard library', () => {
    const allowed = new Set(['torch', 'torchvision', 'timm', 'transformers', 'pynvml', 'caplab_protocol', 'caplab_bench', 'sd_unet', 'vision']);
    const check = `
import ast, sys, pathlib
std = set(sys.stdlib_module_names)
bad = []
for f in sorted(pathlib.Path(sys.argv[1]).glob('*.py')):
    for node in ast.walk(ast.parse(f.read_text())):
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module] if isinstance(node, ast.ImportFrom) and node.level == 0 else []
        for n in names:
            top = n.split('.')[0]
            if top not in std and top not in set(sys.argv[2].split(',')):
                bad.append(f'{f.name}: {n}')
print('\\n'.join(bad))
`;
    const r = spawnSync(PY, ['-c', check, PYDIR, [...allowed].join(',')], { env: pyEnv, encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stdout.trim()).toBe('');
  });

  it('caplab_protocol prints valid, flushed protocol lines and maps exceptions to error kinds and exit codes', async () => {
    const code = `
import sys
sys.path.insert(0, ${JSON.stringify(PYDIR)})
from caplab_protocol import Protocol, guard, ConfigError
p = Protocol()
kind = sys.argv[1]
with guard(p):
    p.start("w", "images", gpus=2, batch_size=8)
    p.phase("warmup"); p.step(1, 16, 0.25); p.metric("loss", 1.5); p.phase("measure"); p.step(2, 16, 0.0)
    p.summary(16, 0.25, 64.0); p.phase("done")
    if kind == "oom": raise RuntimeError("CUDA out of memory. Tried to allocate 1.00 GiB")
    if kind == "crash": raise ValueError("bad value")
    if kind == "config": raise ConfigError("no GPU")
`;
    const ok = await runPython([PY, '-c', code, 'ok']);
    expect(ok.code).toBe(0);
    expect(ok.invalid).toEqual([]);
    expect(ok.events.map((e) => e.ev)).toEqual(['start', 'phase', 'step', 'metric', 'phase', 'step', 'summary', 'phase']);
    expect(ok.events[0]).toMatchObject({ workload: 'w', units: 'images', gpus: 2, batch_size: 8 });
    expect(ok.events[5]).toMatchObject({ ev: 'step', n: 2, units: 16 });
    for (const [kind, exit] of [['oom', 3], ['crash', 1], ['config', 2]] as const) {
      const r = await runPython([PY, '-c', code, kind]);
      expect(r.code).toBe(exit);
      expect(r.events.at(-1)).toMatchObject({ ev: 'error', kind });
    }
  });

  it('llama_infer --online drives an OpenAI-compatible server (a local fake) with the standard library only', async () => {
    const server = spawn(PY, [resolve(__dirname, '../fixtures/workloads/fake_openai_server.py'), '--lifetime', '60'], { env: pyEnv, stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      const port = await new Promise<string>((res) => server.stdout.once('data', (d) => res(String(d).trim())));
      const built = buildCommand(catalog.require('llama_infer').def, { mode: 'online', url: `http://127.0.0.1:${port}`, request_rate: '200', max_concurrency: 8, output_len: 6, input_len: 12, prompts: 4 }, { runtime: 'native', devices: [0], resourcesDir: RES, python: PY });
      const r = await runPython([...built.argv, '--num-requests', '40', '--report-interval', '0.2', '--warmup-steps', '1'], 60_000);
      expect(r.invalid).toEqual([]);
      expect(r.code, r.stderr).toBe(0);
      const steps = r.events.filter((e): e is Extract<ProtocolEvent, { ev: 'step' }> => e.ev === 'step');
      expect(steps.reduce((a, s) => a + s.units, 0)).toBe(40 * 6);
      const names = new Set(r.events.filter((e) => e.ev === 'metric').map((e) => (e as { name: string }).name));
      expect([...names].sort()).toEqual(['e2e_ms', 'requests', 'ttft_ms']);
      if (steps.length >= 2) expect(throughRunner(r, 1, 1).status).toBe('done');
    } finally {
      server.kill('SIGKILL');
    }
  });

  it('llama_infer --online against nothing: a config error, not a hang', async () => {
    const r = await runPython([PY, 'llama_infer.py', '--online', '--url', 'http://127.0.0.1:9', '--tiny', '--report-interval', '0.2'], 30_000);
    expect(r.code).toBe(2);
    expect(r.events.at(-1)).toMatchObject({ ev: 'error', kind: 'config' });
    expect(throughRunner(r, 1, 1)).toMatchObject({ status: 'failed', failure: { reason: 'config' } });
  });
});

describe.skipIf(!hasTorch)(`tiny CPU runs of every workload (needs torch: ${hasTorch ? 'present' : noTorchReason})`, () => {
  const tiny = ['--device', 'cpu', '--tiny', '--warmup-steps', '1'];
  const cases: [string, Record<string, string | number | boolean>, string, number][] = [
    ['resnet50', { steps: 3, batch_size: 2 }, 'images', 2],
    ['vit_l_16', { steps: 3, batch_size: 2 }, 'images', 2],
    ['sd_unet', { steps: 3, batch_size: 2, precision: 'fp32' }, 'images', 2],
    ['llama_pretrain', { steps: 3, batch_size: 2, grad_accum: 2 }, 'tokens', 2 * 2 * 32],
    ['llama_infer', { steps: 3, batch_size: 4, prompts: 8 }, 'tokens', 4 * 8],
  ];
  it.each(cases)('%s', async (id, params, units, perStep) => {
    const built = buildCommand(catalog.require(id).def, params, { runtime: 'native', devices: [0], resourcesDir: RES, python: PY });
    const r = await runPython([...built.argv, ...tiny]);
    expect(r.code, r.stderr.slice(-2000)).toBe(0);
    expect(r.invalid).toEqual([]);
    expect(r.events[0]).toMatchObject({ ev: 'start', units, gpus: 1 });
    const steps = r.events.filter((e) => e.ev === 'step');
    expect(steps).toHaveLength(3);
    for (const s of steps) expect(s).toMatchObject({ units: perStep });
    expect(r.events.at(-1)).toMatchObject({ ev: 'summary', units: perStep * 2 });
    const out = throughRunner(r, 1, 2);
    expect(out.status).toBe('done');
    if (out.status === 'done') expect(out.window).toMatchObject({ steps: 2, units: perStep * 2, unit_name: units });
  }, 300_000);

  it('CAPLAB_STEP_REPORT_S sums the steps between events (at most one a period) and keeps every unit', async () => {
    const built = buildCommand(catalog.require('resnet50').def, { steps: 4, batch_size: 2 }, { runtime: 'native', devices: [0], resourcesDir: RES, python: PY });
    const child = { ...pyEnv, CAPLAB_STEP_REPORT_S: '3600' };
    const r = await new Promise<Ran>((res) => {
      const p = spawn(built.argv[0]!, [...built.argv.slice(1), ...tiny], { cwd: PYDIR, env: child, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      p.stdout.on('data', (d) => (stdout += d));
      p.on('close', (code) => res({ code, stdout, stderr: '', events: stdout.split('\n').flatMap((l) => { const x = parseProtocolLine(l); return x.kind === 'event' ? [x.event] : []; }), invalid: [] }));
    });
    expect(r.code).toBe(0);
    // One event at the workload's own warm-up boundary (step 1), one for the rest (steps 2-4) at the end.
    const steps = r.events.filter((e): e is Extract<ProtocolEvent, { ev: 'step' }> => e.ev === 'step');
    expect(steps.map((s) => [s.n, s.units])).toEqual([[1, 2], [4, 6]]);
  }, 300_000);

  it('max-stable-batch grows the batch until (simulated) out of memory and reports the largest stable size', async () => {
    const r = await runPython([PY, 'vision.py', '--model', 'vit_l_16', ...tiny, '--batch-size', '1', '--max-stable-batch', '--simulate-oom-above', '11', '--probe-only']);
    expect(r.code).toBe(0);
    expect(r.events).toEqual([expect.objectContaining({ ev: 'metric', name: 'max_stable_batch', value: 11 })]);
    expect(r.stdout).toMatch(/batch 16: out of memory[\s\S]*batch 11: ok/);
  }, 300_000);

  it('out of memory during training: error event of kind oom, exit code 3, classified as oom', async () => {
    const r = await runPython([PY, 'vision.py', '--model', 'vit_l_16', ...tiny, '--batch-size', '1', '--steps', '5', '--simulate-oom-at-step', '3']);
    expect(r.code).toBe(3);
    expect(r.events.at(-1)).toMatchObject({ ev: 'error', kind: 'oom' });
    expect(throughRunner(r, 1, 3)).toMatchObject({ status: 'failed', failure: { reason: 'oom', exitCode: 3 } });
  }, 300_000);
});
