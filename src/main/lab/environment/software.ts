// The workloads' software for the run record, taken when a sweep starts: each native workload's Python asked for
// its own versions (Python, PyTorch and the CUDA / ROCm it was built with), each container image's id and digests
// from its runtime, the host's CUDA driver and ROCm versions. Every probe is an argv array, time-boxed; what cannot
// be learnt is recorded as absent with the reason, never guessed.
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import type { ImageRecord, PythonRecord, SoftwareRecord } from '../../../shared/export';

const PROBE_MS = 20_000;

/** What to ask: a workload's Python, or its container image through a runtime binary. */
export type SoftwareTarget = { workload: string; kind: 'python'; python: string; env: NodeJS.ProcessEnv } | { workload: string; kind: 'image'; runtime: string; binary: string; image: string; env: NodeJS.ProcessEnv };

/** Prints one JSON line; PyTorch's absence is reported, not raised. */
const PYTHON_PROBE = `import json, sys
r = {"python": sys.version.split()[0], "pytorch": None, "cuda": None, "hip": None, "cudnn": None, "note": None}
try:
    import torch
    r["pytorch"] = torch.__version__
    r["cuda"] = getattr(torch.version, "cuda", None)
    r["hip"] = getattr(torch.version, "hip", None)
    try:
        v = torch.backends.cudnn.version()
        r["cudnn"] = None if v is None else str(v)
    except Exception:
        pass
except Exception as e:
    r["note"] = "PyTorch absent: " + type(e).__name__ + ": " + str(e)
print(json.dumps(r))`;

interface Ran {
  stdout: string;
  error: string | null;
}

function run(argv: string[], env: NodeJS.ProcessEnv, timeoutMs: number): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(argv[0]!, argv.slice(1), { env, timeout: timeoutMs, killSignal: 'SIGKILL', maxBuffer: 1 << 20 }, (err, stdout, stderr) => {
      const e = err as (NodeJS.ErrnoException & { killed?: boolean }) | null;
      let error: string | null = null;
      if (e?.code === 'ENOENT') error = `${argv[0]}: not found`;
      else if (e?.killed) error = `${argv.join(' ')} timed out after ${Math.round(timeoutMs / 1000)} s`;
      else if (e) error = `${argv[0]} failed: ${(String(stderr).trim().split('\n').pop() || e.message).slice(0, 300)}`;
      resolve({ stdout: String(stdout), error });
    });
  });
}

export async function probePython(t: Extract<SoftwareTarget, { kind: 'python' }>, timeoutMs = PROBE_MS): Promise<PythonRecord> {
  const r = await run([t.python, '-c', PYTHON_PROBE], t.env, timeoutMs);
  const base = { workload: t.workload, executable: t.python, python: null, pytorch: null, pytorch_cuda: null, pytorch_rocm: null, cudnn: null };
  if (r.error) return { ...base, note: r.error };
  try {
    const j = JSON.parse(r.stdout.trim().split('\n').pop() ?? '') as { python: string; pytorch: string | null; cuda: string | null; hip: string | null; cudnn: string | null; note: string | null };
    return { ...base, python: j.python, pytorch: j.pytorch, pytorch_cuda: j.cuda, pytorch_rocm: j.hip, cudnn: j.cudnn, note: j.note };
  } catch {
    return { ...base, note: `${t.python} printed no version record: ${r.stdout.slice(0, 200)}` };
  }
}

export async function probeImage(t: Extract<SoftwareTarget, { kind: 'image' }>, timeoutMs = PROBE_MS): Promise<ImageRecord> {
  const base = { workload: t.workload, runtime: t.runtime, image: t.image, id: null, digests: [] };
  if (t.runtime === 'apptainer') return { ...base, note: 'apptainer images have no registry digest; the image reference is recorded' };
  const r = await run([t.binary, 'image', 'inspect', t.image], t.env, timeoutMs);
  if (r.error) return { ...base, note: r.error };
  try {
    const [img] = JSON.parse(r.stdout) as { Id?: string; RepoDigests?: string[] }[];
    if (!img) return { ...base, note: `${t.runtime} image inspect returned nothing for ${t.image}` };
    return { ...base, id: img.Id ?? null, digests: img.RepoDigests ?? [], note: img.RepoDigests?.length ? null : 'a local image: no repository digest' };
  } catch {
    return { ...base, note: `${t.runtime} image inspect printed no JSON` };
  }
}

/** The CUDA version the NVIDIA driver supports (`nvidia-smi --version`); null without nvidia-smi. */
async function cudaDriver(env: NodeJS.ProcessEnv): Promise<string | null> {
  const r = await run(['nvidia-smi', '--version'], env, 10_000);
  return /CUDA Version\s*:\s*([0-9.]+)/.exec(r.stdout)?.[1] ?? null;
}

/** The installed ROCm version (ROCm's own version file); null without ROCm. */
async function rocmVersion(env: NodeJS.ProcessEnv): Promise<string | null> {
  const root = env.ROCM_PATH || '/opt/rocm';
  return (await readFile(`${root}/.info/version`, 'utf8').catch(() => '')).trim() || null;
}

/** Probes every target (in parallel, each time-boxed) and the host's CUDA driver and ROCm. */
export async function probeSoftware(targets: SoftwareTarget[], env: NodeJS.ProcessEnv, timeoutMs = PROBE_MS): Promise<SoftwareRecord> {
  const seen = new Set<string>();
  const unique = targets.filter((t) => {
    const key = t.kind === 'python' ? `p:${t.python}` : `i:${t.binary}:${t.image}`;
    return !seen.has(key) && seen.add(key);
  });
  const [pythons, images, cuda, rocm] = await Promise.all([
    Promise.all(unique.filter((t) => t.kind === 'python').map((t) => probePython(t, timeoutMs))),
    Promise.all(unique.filter((t) => t.kind === 'image').map((t) => probeImage(t, timeoutMs))),
    cudaDriver(env),
    rocmVersion(env),
  ]);
  return { pythons, images, cuda_driver: cuda, rocm, note: targets.length ? null : 'no Python or container workload to ask' };
}

/** The record of a sweep on simulated GPUs: its workloads are CapLab's own (Node.js), with no Python or image. */
export const SIMULATED_SOFTWARE: SoftwareRecord = { pythons: [], images: [], cuda_driver: null, rocm: null, note: 'simulated workloads (CapLab’s own, in Node.js): no Python, PyTorch, CUDA or container image was used' };
