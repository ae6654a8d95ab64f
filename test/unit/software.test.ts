// The run record's software probes, against the real python3 of this machine and stand-in runtimes.
import { afterAll, describe, expect, it } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../helpers/tmp';
import { probeImage, probePython, probeSoftware } from '../../src/main/lab/environment/software';

const tmp = tempDir('caplab-software-');
afterAll(() => tmp.cleanup());
const script = (name: string, body: string) => {
  const f = join(tmp.dir, name);
  writeFileSync(f, `#!/bin/sh\n${body}\n`);
  chmodSync(f, 0o755);
  return f;
};
const env = { ...process.env, PATH: `${tmp.dir}:${process.env.PATH}` };

describe('workload software for the run record', () => {
  it('asks the real python3 for its version and records PyTorch as absent, with the reason, where it is not installed', async () => {
    const want = execFileSync('/usr/bin/python3', ['-c', 'import sys; print(sys.version.split()[0])'], { encoding: 'utf8' }).trim();
    const t = spawnSync('/usr/bin/python3', ['-c', 'import torch; print(torch.__version__)'], { encoding: 'utf8' });
    const torch = t.status === 0 ? t.stdout.trim() : null;
    const r = await probePython({ workload: 'w', kind: 'python', python: '/usr/bin/python3', env });
    expect(r).toMatchObject({ workload: 'w', executable: '/usr/bin/python3', python: want, pytorch: torch });
    if (torch === null) expect(r.note).toMatch(/^PyTorch absent: ModuleNotFoundError: No module named 'torch'/);
  }, 60_000);

  it('names a Python that is not there, and one that does not answer in time', async () => {
    expect((await probePython({ workload: 'w', kind: 'python', python: join(tmp.dir, 'python9'), env })).note).toMatch(/python9: not found/);
    const slow = script('slowpython', 'exec sleep 30');
    const r = await probePython({ workload: 'w', kind: 'python', python: slow, env }, 500);
    expect(r).toMatchObject({ python: null, pytorch: null });
    expect(r.note).toMatch(/timed out after/);
  }, 60_000);

  it('records a container image’s id and repository digests from the runtime’s image inspect', async () => {
    const docker = script('docker', `[ "$1 $2" = "image inspect" ] || exit 9
if [ "$3" = "nvcr.io/nvidia/pytorch:24.10-py3" ]; then echo '[{"Id":"sha256:0123abcd","RepoDigests":["nvcr.io/nvidia/pytorch@sha256:feedbeef"]}]'; else echo "Error: No such image: $3" >&2; exit 1; fi`);
    expect(await probeImage({ workload: 'w', kind: 'image', runtime: 'docker', binary: docker, image: 'nvcr.io/nvidia/pytorch:24.10-py3', env })).toEqual({
      workload: 'w', runtime: 'docker', image: 'nvcr.io/nvidia/pytorch:24.10-py3', id: 'sha256:0123abcd', digests: ['nvcr.io/nvidia/pytorch@sha256:feedbeef'], note: null,
    });
    const missing = await probeImage({ workload: 'w', kind: 'image', runtime: 'docker', binary: docker, image: 'nope:1', env });
    expect(missing).toMatchObject({ id: null, digests: [] });
    expect(missing.note).toMatch(/No such image: nope:1/);
  }, 60_000);

  it('reads the CUDA driver version from nvidia-smi and asks each Python once', async () => {
    script('nvidia-smi', `[ "$1" = --version ] && printf 'NVIDIA-SMI version  : 580.159.04\\nCUDA Version        : 13.0\\n'`);
    const r = await probeSoftware(
      [
        { workload: 'a', kind: 'python', python: '/usr/bin/python3', env },
        { workload: 'b', kind: 'python', python: '/usr/bin/python3', env },
      ],
      { ...env, ROCM_PATH: join(tmp.dir, 'no-rocm') },
    );
    expect(r.cuda_driver).toBe('13.0');
    expect(r.rocm).toBeNull();
    expect(r.pythons.map((p) => p.workload)).toEqual(['a']);
  }, 60_000);
});
