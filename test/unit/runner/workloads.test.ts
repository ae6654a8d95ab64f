import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  buildCommand,
  loadWorkloads,
  parseWorkloadDefinition,
  resolveParams,
  WorkloadDefinitionError,
  type BuildOptions,
} from '../../../src/main/lab/runner/workloads';
import { findWorkload } from '../../../src/core/sim/workloads';

const RES = resolve(__dirname, '../../../resources');
const catalog = loadWorkloads({ resourcesDir: RES, userDir: null });
const def = (id: string) => catalog.require(id).def;
const env = { CAPLAB_DATA_DIR: '/data/caplab', PATH: '/usr/bin' };
const native = (devices: number[] = [0]): BuildOptions => ({ runtime: 'native', devices, resourcesDir: RES, python: 'python3', env });
const PY = `${RES}/workloads/python`;

describe('built-in definitions', () => {
  it('load without errors and cover the paper workloads', () => {
    expect(catalog.errors.map((e) => e.message)).toEqual([]);
    expect(catalog.definitions.map((d) => d.def.id).sort()).toEqual(['command', 'llama_infer', 'llama_pretrain', 'resnet50', 'sd_unet', 'vit_l_16']);
    for (const d of catalog.definitions) {
      expect(d.builtin).toBe(true);
      expect(d.def.container).toBeDefined();
      if (d.def.kind === 'script') expect(d.def.throughput.adapter).toBe('protocol');
    }
    expect(def('vit_l_16').units).toBe('images');
    expect(def('llama_pretrain').units).toBe('tokens');
  });

  it('one batch_size default: each built-in workload lists the batch its simulated model is calibrated at', () => {
    for (const d of catalog.definitions) {
      const model = findWorkload(d.def.id);
      if (!model) continue;
      expect({ id: d.def.id, batch: d.def.params.batch_size?.default }).toEqual({ id: d.def.id, batch: model.default_batch });
    }
    expect(def('vit_l_16').params.batch_size?.default).toBe(128);
    expect(def('llama_pretrain').params.batch_size?.default).toBe(16);
  });

  it('vit_l_16 natively: argv array and GPU selection in the environment', () => {
    const b = buildCommand(def('vit_l_16'), {}, native([3]));
    expect(b.argv).toEqual(['python3', `${PY}/vision.py`, '--model', 'vit_l_16', '--batch-size', '128', '--precision', 'fp32', '--image-size', '224', '--steps', '0']);
    expect(b.env).toEqual({ PYTHONUNBUFFERED: '1', CUDA_VISIBLE_DEVICES: '3', CUDA_DEVICE_ORDER: 'PCI_BUS_ID' });
    expect(b).toMatchObject({ units: 'images', gpus: 1, container: null, reader: { adapter: 'protocol', file: null, pattern: null } });
    // the run record asks the interpreter {python} expands to for its Python and PyTorch versions
    expect(b.software).toEqual({ python: 'python3' });
  });

  it('booleans add their flags; numeric strings from a plan are accepted', () => {
    const b = buildCommand(def('resnet50'), { batch_size: '128', channels_last: true, max_stable_batch: 'true', precision: 'bf16' }, native());
    expect(b.argv.slice(2)).toEqual(['--model', 'resnet50', '--batch-size', '128', '--precision', 'bf16', '--image-size', '224', '--steps', '0', '--channels-last', '--max-stable-batch']);
  });

  it('several GPUs run under torchrun with one process per GPU', () => {
    const b = buildCommand(def('llama_pretrain'), { layers: 8, grad_accum: 4 }, native([0, 1, 2, 3]));
    expect(b.argv.slice(0, 7)).toEqual(['python3', '-m', 'torch.distributed.run', '--standalone', '--nnodes=1', '--nproc-per-node=4', `${PY}/llama_pretrain.py`]);
    expect(b.argv).toContain('--grad-accum');
    expect(b.env.CUDA_VISIBLE_DEVICES).toBe('0,1,2,3');
    expect(b.gpus).toBe(4);
  });

  it('llama_infer online mode takes its own arguments', () => {
    const b = buildCommand(def('llama_infer'), { mode: 'online', url: 'http://127.0.0.1:8000', request_rate: '4.5', model: 'meta-llama/Meta-Llama-3-8B' }, native([0, 1, 2, 3]));
    expect(b.argv).toEqual([
      'python3', `${PY}/llama_infer.py`, '--prompts', '256', '--input-len', '512', '--output-len', '256', '--steps', '0',
      '--online', '--url', 'http://127.0.0.1:8000', '--model', 'meta-llama/Meta-Llama-3-8B', '--request-rate', '4.5', '--max-concurrency', '256',
    ]);
    const offline = buildCommand(def('llama_infer'), { layers: 4 }, native());
    expect(offline.argv).toContain('--layers');
    expect(offline.argv).not.toContain('--online');
  });

  it('parameters are checked against ranges, types and names, all problems at once', () => {
    expect(() => resolveParams(def('vit_l_16'), { batch_size: 0, precision: 'fp8', colour: 'red' })).toThrowError(
      'workload vit_l_16: params.colour: unknown parameter; known: batch_size, precision, image_size, channels_last, steps, max_stable_batch; params.batch_size: must be an integer between 1 and 8192, got 0; params.precision: must be one of fp32, tf32, bf16, fp16, got "fp8"',
    );
    expect(() => resolveParams(def('vit_l_16'), { batch_size: 2.5 })).toThrowError(/params\.batch_size: must be an integer between 1 and 8192, got 2\.5/);
    expect(() => resolveParams(def('vit_l_16'), { channels_last: 'yes' })).toThrowError(/params\.channels_last: must be true or false, got "yes"/);
    expect(() => resolveParams(def('llama_infer'), { url: '--help' })).toThrowError(/params\.url: must not start with "-"/);
    expect(() => resolveParams(def('llama_infer'), { url: 'http://x/$(reboot)' })).toThrowError(/params\.url: must match/);
  });

  it('refuses more GPUs than the workload supports and a runtime it lacks', () => {
    expect(() => buildCommand(def('vit_l_16'), {}, native([0, 1, 2, 3, 4, 5, 6, 7, 8]))).toThrowError('workload vit_l_16: devices: this workload runs on at most 8 GPU(s); 9 given');
    expect(() => buildCommand(def('vit_l_16'), {}, { ...native(), runtime: 'docker' })).toThrowError(/containerName: required for docker/);
    expect(() => buildCommand(def('vit_l_16'), {}, native([1, 1]))).toThrowError(/devices: must be distinct GPU indexes/);
  });
});

describe('containers', () => {
  const base = { devices: [0, 1], env, containerName: 'caplab-7-12', cidfile: '/tmp/caplab-7-12.cid' };

  it('docker on NVIDIA: name, cidfile, --gpus with quoted device list, image, torchrun inside', () => {
    const b = buildCommand(def('llama_pretrain'), { layers: 8 }, { ...base, runtime: 'docker', runDir: '/data/caplab/runs/7-12' });
    expect(b.argv).toEqual([
      'docker', 'run', '--rm', '--init', '--name', 'caplab-7-12', '--cidfile', '/tmp/caplab-7-12.cid', '--label', 'caplab=1',
      '--gpus', '"device=0,1"', '--ipc=host', '--shm-size', '16g', '--network', 'host', '-v', '/data/caplab/runs/7-12:/caplab/run',
      '-e', 'PYTHONUNBUFFERED=1', 'caplab-workloads:cuda',
      'python3', '-m', 'torch.distributed.run', '--standalone', '--nnodes=1', '--nproc-per-node=2', '/opt/caplab/resources/workloads/python/llama_pretrain.py',
      '--layers', '8', '--batch-size', '16', '--seq-len', '512', '--grad-accum', '1', '--precision', 'bf16', '--steps', '0',
    ]);
    expect(b.env).toEqual({});
    expect(b.container).toEqual({ runtime: 'docker', name: 'caplab-7-12', cidfile: '/tmp/caplab-7-12.cid' });
    // the run record asks this image's digest, through the same runtime binary
    expect(b.software).toEqual({ runtime: 'docker', binary: 'docker', image: 'caplab-workloads:cuda' });
    const one = buildCommand(def('vit_l_16'), {}, { ...base, devices: [5], runtime: 'docker' });
    expect(one.argv.slice(one.argv.indexOf('--gpus'), one.argv.indexOf('--gpus') + 2)).toEqual(['--gpus', 'device=5']);
  });

  it('podman on NVIDIA uses CDI devices', () => {
    const b = buildCommand(def('sd_unet'), {}, { ...base, devices: [2, 3], runtime: 'podman', cidfile: undefined });
    expect(b.argv.slice(0, 16)).toEqual([
      'podman', 'run', '--rm', '--init', '--name', 'caplab-7-12', '--label', 'caplab=1',
      '--device', 'nvidia.com/gpu=2', '--device', 'nvidia.com/gpu=3', '--security-opt', 'label=disable', '--ipc=host', '--shm-size',
    ]);
    expect(b.argv).toContain('caplab-workloads:cuda');
  });

  it('docker on AMD passes /dev/kfd and /dev/dri and selects GPUs with ROCR_VISIBLE_DEVICES', () => {
    const b = buildCommand(def('vit_l_16'), {}, { ...base, runtime: 'docker', vendor: 'amd' });
    const i = b.argv.indexOf('--label') + 2;
    expect(b.argv.slice(i, i + 8)).toEqual(['--device', '/dev/kfd', '--device', '/dev/dri', '--group-add', 'video', '--security-opt', 'seccomp=unconfined']);
    expect(b.argv).toContain('ROCR_VISIBLE_DEVICES=0,1');
    expect(b.argv).toContain('caplab-workloads:rocm');
    expect(b.argv).not.toContain('--gpus');
  });

  it('apptainer: --nv or --rocm, GPUs by environment, .sif from the data folder', () => {
    const nv = buildCommand(def('resnet50'), { batch_size: 32 }, { runtime: 'apptainer', devices: [1], env });
    expect(nv.argv.slice(0, 9)).toEqual(['apptainer', 'exec', '--cleanenv', '--nv', '--env', 'CUDA_VISIBLE_DEVICES=1', '--env', 'PYTHONUNBUFFERED=1', '/data/caplab/images/caplab-cuda.sif']);
    expect(nv.argv[9]).toBe('python3');
    expect(nv.container).toEqual({ runtime: 'apptainer', name: null, cidfile: null });
    const amd = buildCommand(def('resnet50'), {}, { runtime: 'apptainer', devices: [0], vendor: 'amd', env, image: 'docker://rocm/pytorch:latest', runtimeBinary: '/opt/bin/apptainer' });
    expect(amd.argv.slice(0, 9)).toEqual(['/opt/bin/apptainer', 'exec', '--cleanenv', '--rocm', '--env', 'PYTHONUNBUFFERED=1', '--env', 'ROCR_VISIBLE_DEVICES=0', 'docker://rocm/pytorch:latest']);
  });

  it('the runtime executable can be replaced through the environment', () => {
    const b = buildCommand(def('vit_l_16'), {}, { ...base, runtime: 'podman', env: { ...env, CAPLAB_PODMAN: '/usr/local/bin/podman-remote' } });
    expect(b.argv[0]).toBe('/usr/local/bin/podman-remote');
  });
});

describe('the generic command workload', () => {
  const cmd = def('command');

  it('takes an argv list (or a JSON array from a plan) and an adapter, never a shell string', () => {
    const b = buildCommand(cmd, { argv: ['./bench', '--steps', '100', '; rm -rf /'], adapter: 'mllog', units: 'requests' }, native());
    expect(b.argv).toEqual(['./bench', '--steps', '100', '; rm -rf /']);
    expect(b).toMatchObject({ units: 'requests', reader: { adapter: 'mllog', file: null, pattern: null } });
    const fromPlan = buildCommand(cmd, { argv: '["litgpt", "pretrain", "--config", "c.yaml"]', adapter: 'litgpt', file: '{run_dir}/out/metrics.csv' }, { ...native(), runDir: '/runs/3' });
    expect(fromPlan.argv).toEqual(['litgpt', 'pretrain', '--config', 'c.yaml']);
    expect(fromPlan.reader.file).toBe('/runs/3/out/metrics.csv');
    expect(() => buildCommand(cmd, { argv: './bench --steps 100' }, native())).toThrowError(/params\.argv: must be a list of strings \(or a JSON array of strings\), not a shell string/);
  });

  it('checks the adapter and the regex pattern', () => {
    expect(() => buildCommand(cmd, { argv: ['x'], adapter: 'nope' }, native())).toThrowError(/params\.adapter: unknown adapter "nope"/);
    expect(() => buildCommand(cmd, { argv: ['x'], adapter: 'regex' }, native())).toThrowError(/params\.pattern: the regex adapter needs a pattern/);
    const b = buildCommand(cmd, { argv: ['x'], adapter: 'regex', pattern: '(?<rate>[0-9.]+) it/s' }, native());
    expect(b.reader).toEqual({ adapter: 'regex', file: null, pattern: '(?<rate>[0-9.]+) it/s' });
  });

  it('in a container it needs an image', () => {
    expect(() => buildCommand(cmd, { argv: ['x'] }, { runtime: 'docker', devices: [0], containerName: 'caplab-1-1', env })).toThrowError(/params\.image: required here/);
    const b = buildCommand(cmd, { argv: ['python3', 'train.py'], image: 'nvcr.io/nvidia/pytorch:24.10-py3' }, { runtime: 'docker', devices: [0], containerName: 'caplab-1-1', env });
    expect(b.argv.slice(-3)).toEqual(['nvcr.io/nvidia/pytorch:24.10-py3', 'python3', 'train.py']);
  });
});

describe('definition files', () => {
  const dir = mkdtempSync(join(tmpdir(), 'caplab-wl-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const good = ['id: my_bench', 'title: My benchmark', 'units: tokens', 'params:', '  n: { type: int, default: 4, min: 1, max: 8 }', 'native:', '  argv: ["./bench", "-n", "{n}"]', ''].join('\n');

  it('user folder definitions load beside the built-ins; bad files are reported by file, line and field', () => {
    const user = join(dir, 'user');
    mkdirSync(user);
    writeFileSync(join(user, 'mine.yaml'), good);
    writeFileSync(join(user, 'broken.yaml'), ['id: broken', 'title: Broken', 'units: watts', 'native:', '  argv: ["x"]', ''].join('\n'));
    writeFileSync(join(user, 'z-dup.yml'), good.replace('title: My benchmark', 'title: Again'));
    const c = loadWorkloads({ resourcesDir: RES, env: { CAPLAB_WORKLOADS_DIR: user } });
    expect(c.get('my_bench')).toMatchObject({ builtin: false, file: join(user, 'mine.yaml') });
    expect(c.get('vit_l_16')?.builtin).toBe(true);
    const msgs = c.errors.map((e) => e.message);
    expect(msgs).toContain(`${join(user, 'broken.yaml')}:3: units: Invalid option: expected one of "images"|"tokens"|"requests"`);
    expect(msgs).toContain(`${join(user, 'z-dup.yml')}: id: "my_bench" is already defined in ${join(user, 'mine.yaml')}`);
    expect(buildCommand(c.require('my_bench').def, { n: 2 }, native()).argv).toEqual(['./bench', '-n', '2']);
    expect(() => c.require('nope')).toThrowError(/workload nope: unknown workload; known: command, llama_infer/);
  });

  const bad = (text: string) => {
    try {
      parseWorkloadDefinition(text, 'w.yaml');
    } catch (e) {
      expect(e).toBeInstanceOf(WorkloadDefinitionError);
      return (e as WorkloadDefinitionError).message;
    }
    throw new Error('expected an error');
  };

  it('YAML syntax errors name the line', () => {
    expect(bad('id: x\ntitle: [unclosed\nunits: tokens\n')).toMatch(/^w\.yaml:\d+: YAML: /);
  });

  it('semantic errors name the field', () => {
    expect(bad(good.replace('"{n}"', '"{m}"'))).toBe('w.yaml: native.argv[2]: unknown placeholder {m}');
    expect(bad(good.replace('default: 4', 'default: 40'))).toBe('w.yaml: params.n.default: must be an integer between 1 and 8, got 40');
    expect(bad(good.replace('"{n}"', '"--n={python}"'))).toBe('w.yaml: native.argv[2]: {python} expands to several arguments and must stand alone');
    expect(bad(`${good}args: [{ when: verbose, args: [-v] }]\n`)).toBe('w.yaml: args[0].when: unknown parameter "verbose"');
    expect(bad(`${good}multi_gpu: { max_gpus: 4 }\n`)).toBe('w.yaml: multi_gpu.max_gpus: more than 1 needs a launcher (torchrun or single-process)');
    expect(bad(`${good}throughput: { adapter: fancy }\n`)).toMatch(/^w\.yaml: throughput\.adapter: unknown adapter "fancy"/);
    expect(bad(good.replace('native:\n  argv: ["./bench", "-n", "{n}"]\n', ''))).toBe('w.yaml:1: native: a workload needs `native`, `container` or both');
    expect(bad(`${good}colour: red\n`)).toMatch(/^w\.yaml:1: definition: Unrecognized key: "colour"/);
  });
});

describe('definitions match their scripts', () => {
  const scriptFlags = (script: string): Set<string> => {
    const text = ['caplab_bench.py', script].map((f) => readFileSync(join(PY, f), 'utf8')).join('\n');
    return new Set([...text.matchAll(/add_argument\(\s*"(--[a-z0-9-]+)"/g)].map((m) => m[1]!));
  };
  const variants: Record<string, Record<string, string | number | boolean>[]> = {
    resnet50: [{ channels_last: true, max_stable_batch: true }],
    vit_l_16: [{ channels_last: true, max_stable_batch: true }],
    sd_unet: [{ max_stable_batch: true }],
    llama_pretrain: [{ activation_checkpointing: true, max_stable_batch: true }],
    llama_infer: [{ max_stable_batch: true }, { mode: 'online' }],
  };
  it.each(Object.entries(variants))('every flag %s passes is one its script declares', (id, sets) => {
    for (const params of sets) {
      const argv = buildCommand(def(id), params, native()).argv;
      const script = argv[1]!.split('/').at(-1)!;
      const flags = scriptFlags(script);
      const used = argv.slice(2).filter((a) => a.startsWith('--'));
      expect(used.length).toBeGreaterThan(2);
      expect(used.filter((f) => !flags.has(f))).toEqual([]);
    }
  });
});
