import { afterAll, describe, expect, it } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { runCli } from '../helpers/cli';
import { installFakeRapl, installNvidiaSmi, makeShimDir } from '../helpers/gpu-shims';

// The real-hardware path of a sweep (workload definition -> argv -> pty -> protocol, nvidia-smi backend) against a
// shim nvidia-smi that streams like the real tool; on the GPU machine the same path runs on an H200.
const shims = makeShimDir();
installNvidiaSmi(shims);
afterAll(() => shims.cleanup());

const workload = join(shims.dir, 'workload.sh');
writeFileSync(
  workload,
  `echo "loading model…"
echo "@caplab {\\"ev\\":\\"start\\",\\"t\\":$(date +%s.%N),\\"workload\\":\\"custom\\",\\"units\\":\\"images\\"}"
n=0
while true; do n=$((n+1)); sleep 0.1; echo "@caplab {\\"ev\\":\\"step\\",\\"t\\":$(date +%s.%N),\\"n\\":$n,\\"units\\":32,\\"dt\\":0.1}"; done
`,
);

function plan(extra: string): string {
  const file = join(shims.dir, `plan-${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(
    file,
    `backend: nvidia-smi
devices: [0]
workloads:
  - id: command
    params: { argv: [sh, ${JSON.stringify(workload)}], units: images, adapter: protocol }
warmup: { steps: 3 }
window: { steps: 10 }
cooldown_s: 0
${extra}`,
  );
  return file;
}

// The package counter advances at 60 W, as the kernel's would.
const { root: rapl, stop: stopRapl } = installFakeRapl(shims, 60);
afterAll(stopRapl);

const env = () => ({ ...shims.env, CAPLAB_DATA_DIR: shims.dir, CAPLAB_DB: join(shims.dir, 'lab.db'), CAPLAB_RAPL_ROOT: rapl });

describe('sweep with a user command on the nvidia-smi backend', () => {
  it('fails a run whose output is garbage, naming why and keeping the last lines', async () => {
    const garbage = join(shims.dir, 'garbage.sh');
    writeFileSync(garbage, 'while true; do echo "@caplab {oops"; echo "@caplab {\\"ev\\":\\"step\\"}"; sleep 0.02; done\n');
    const file = plan('caps: [700]\nobserve_only: true\n').replace(/$/, '');
    writeFileSync(file, readFileSync(file, 'utf8').replace(JSON.stringify(workload), JSON.stringify(garbage)));
    const r = await runCli(['sweep', file, '--json'], env());
    expect(r.stderr).toMatch(/command @ 700 W rep 1: failed/);
    expect(r.code).toBe(1);
    const run = JSON.parse(r.stdout).runs[0];
    expect(run.status).toBe('failed');
    expect(run.error).toMatch(/^the workload printed 20 lines that are not valid protocol/);
    expect(run.error).toContain('@caplab {oops');
  });

  it('observe-only: measures throughput and energy and never calls -pl', async () => {
    const r = await runCli(['sweep', plan('caps: [700]\nobserve_only: true\n'), '--json'], env());
    expect(r.stderr).not.toMatch(/Error:/);
    expect(r.code).toBe(0);
    const run = JSON.parse(r.stdout).runs[0];
    expect(run).toMatchObject({ status: 'done', workload: 'command', units: 'images', energy_sensor: 'instant' });
    // 32 images per ~0.1 s step (sleep plus process start-up), one GPU.
    expect(run.throughput).toBeGreaterThan(150);
    expect(run.throughput).toBeLessThan(330);
    expect(run.mean_power_w).toBeCloseTo(312.45, 0);
    expect(shims.calls().some((c) => c.includes('-pl'))).toBe(false);
    // The CPU package was recorded beside the GPU: node energy can be measured instead of assumed.
    const db = new Database(join(shims.dir, 'lab.db'), { readonly: true });
    const cpu = db
      .prepare("SELECT rd.mean_power_w, rd.energy_sensor FROM run_devices rd JOIN devices d ON d.id = rd.device_id WHERE rd.run_id = ? AND d.kind = 'cpu'")
      .get(run.run_id) as { mean_power_w: number; energy_sensor: string };
    db.close();
    expect(cpu.energy_sensor).toBe('counter');
    expect(cpu.mean_power_w).toBeGreaterThan(50);
    expect(cpu.mean_power_w).toBeLessThan(70);
  });

  it('sets the cap with nvidia-smi -pl, verifies it and restores the journalled limit', async () => {
    writeFileSync(join(shims.dir, 'limit0'), '650');
    const r = await runCli(['sweep', plan('caps: [300]\n'), '--json'], env());
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.runs[0]).toMatchObject({ status: 'done', cap_w: 300, enforced_limit_w: 300 });
    expect(out.restored).toEqual([expect.objectContaining({ before_w: 650, restored_w: 650, ok: true })]);
    expect(readFileSync(join(shims.dir, 'limit0'), 'utf8').trim()).toBe('650');
    const pl = shims.calls().filter((c) => c.includes('-pl'));
    expect(pl.map((c) => c.at(-1))).toEqual(['300', '650']);
  });
});

describe('the run record of a native Python workload', () => {
  it('records the workload’s own Python (the real python3), PyTorch (absent here, with why) and the CUDA driver, and the report shows them', { timeout: 120_000 }, async () => {
    const script = join(shims.dir, 'workload.py');
    writeFileSync(
      script,
      `import json, time
print("@caplab " + json.dumps({"ev": "start", "t": time.time(), "workload": "custom", "units": "images"}), flush=True)
n = 0
while True:
    n += 1
    time.sleep(0.1)
    print("@caplab " + json.dumps({"ev": "step", "t": time.time(), "n": n, "units": 32, "dt": 0.1}), flush=True)
`,
    );
    const file = join(shims.dir, 'python.yaml');
    writeFileSync(file, `backend: nvidia-smi\ndevices: [0]\nobserve_only: true\ncaps: [700]\nworkloads:\n  - id: command\n    params: { argv: [/usr/bin/python3, ${JSON.stringify(script)}], units: images, adapter: protocol }\nwarmup: { steps: 3 }\nwindow: { steps: 5 }\ncooldown_s: 0\n`);
    const r = await runCli(['sweep', file, '--json'], env());
    expect(r.code).toBe(0);
    const sweepId = JSON.parse(r.stdout).sweep_id as number;
    const db = new Database(join(shims.dir, 'lab.db'), { readonly: true });
    const environment = JSON.parse((db.prepare('SELECT environment FROM sweeps WHERE id = ?').get(sweepId) as { environment: string }).environment);
    db.close();
    const version = execFileSync('/usr/bin/python3', ['-c', 'import sys; print(sys.version.split()[0])'], { encoding: 'utf8' }).trim();
    const torch = spawnSync('/usr/bin/python3', ['-c', 'import torch; print(torch.__version__)'], { encoding: 'utf8' });
    expect(environment.software).toMatchObject({ cuda_driver: '13.0', images: [], pythons: [{ workload: 'command', executable: '/usr/bin/python3', python: version, pytorch: torch.status === 0 ? torch.stdout.trim() : null }] });
    if (torch.status !== 0) expect(environment.software.pythons[0].note).toMatch(/^PyTorch absent: ModuleNotFoundError/);

    const html = join(shims.dir, 'python-report.html');
    const rep = await runCli(['report', String(sweepId), '--html', html, '--json'], env());
    expect(rep.code).toBe(0);
    const text = readFileSync(html, 'utf8');
    expect(text).toContain(`${version} (/usr/bin/python3)`);
    expect(text).toMatch(torch.status === 0 ? new RegExp(`PyTorch \\(command\\)</th><td>${torch.stdout.trim()}`) : /PyTorch \(command\)<\/t[hd]><td>absent — PyTorch absent: ModuleNotFoundError/);
    expect(text).toMatch(/CUDA driver<\/t[hd]><td>13\.0/);
  });
});

describe('a command read by a throughput adapter', () => {
  it('time-boxes the run, reads the tool\'s own log lines and lays energy over the window', async () => {
    // hpc-ai-perf-bench style: one line per epoch, no CapLab protocol.
    const tool = join(shims.dir, 'hpcai.sh');
    writeFileSync(tool, 'echo "training model..."\ne=0\nwhile true; do e=$((e+1)); sleep 0.5; echo "Train Epoch $e: Processed 160 samples in 0.50s (320.00 samples/sec)"; done\n');
    const file = join(shims.dir, 'adapter.yaml');
    writeFileSync(
      file,
      `backend: nvidia-smi\ndevices: [0]\nobserve_only: true\ncaps: [700]\nworkloads:\n  - id: command\n    params: { argv: [sh, ${JSON.stringify(tool)}], units: images, adapter: hpcai-vision }\nwarmup: { seconds: 1 }\nwindow: { seconds: 3 }\ncooldown_s: 0\n`,
    );
    const r = await runCli(['sweep', file, '--json'], env());
    expect(r.stderr).not.toMatch(/failed/);
    expect(r.code).toBe(0);
    const run = JSON.parse(r.stdout).runs[0];
    expect(run).toMatchObject({ status: 'done', units: 'images', throughput: 320, energy_sensor: 'instant' });
    expect(run.measure_end - run.measure_start).toBeGreaterThan(2.5);
    expect(run.mean_power_w).toBeCloseTo(312.45, 0);
    const log = readFileSync(join(shims.dir, 'runs', `${JSON.parse(r.stdout).sweep_id}-${run.run_id}`, 'output.log'), 'utf8');
    expect(log).toContain('Train Epoch 3: Processed 160 samples');
  });

  it('refuses warm-up in steps for an adapter-read workload, naming why', async () => {
    const file = join(shims.dir, 'adapter-steps.yaml');
    writeFileSync(file, `backend: nvidia-smi\ndevices: [0]\nobserve_only: true\ncaps: [700]\nworkloads:\n  - id: command\n    params: { argv: ["true"], adapter: hpcai-vision }\nwarmup: { steps: 3 }\n`);
    const r = await runCli(['sweep', file, '--json'], env());
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout).runs[0].error).toMatch(/adapter after it ends, so the plan's warmup and window must be given in seconds/);
  });
});

describe('setting a limit through sudo from the app', () => {
  it('shows the sudo prompt in the run terminal and takes the password typed there', { timeout: 60_000 }, async () => {
    const { Engine } = await import('../../src/main/lab/engine');
    const { installSudo } = await import('../helpers/gpu-shims');
    installSudo(shims);
    writeFileSync(join(shims.dir, 'limit0'), '700');
    const engine = await Engine.open({
      dbPath: join(shims.dir, 'sudo.db'),
      env: { ...process.env, ...env(), CAPLAB_PRIVILEGE: 'sudo', SHIM_SUDO: 'password', SHIM_SUDO_PASSWORD: 'hunter2' },
    });
    let terminal = '';
    let prompts = 0;
    engine.subscribe((name, payload) => {
      if (name !== 'pty.data') return;
      const { sweep_id, data } = payload as { sweep_id: number; data: string };
      terminal += data;
      // Each limit change (set, then restore) asks; the shim sudo keeps no timestamp between calls.
      if (terminal.split('[caplab] sudo password for tester:').length - 1 > prompts) {
        prompts++;
        void engine.writePty({ sweep_id, data: 'hunter2\r' });
      }
    });
    try {
      const sweep = await engine.beginSweep({
        backend: 'nvidia-smi',
        devices: [0],
        workloads: [{ id: 'command', params: { argv: ['sh', workload], units: 'images', adapter: 'protocol' } }],
        caps: [450],
        warmup: { steps: 2 },
        window: { steps: 3 },
        cooldown_s: 0,
      });
      expect(await sweep.done).toBe('done');
      expect(prompts).toBe(2);
      expect(terminal).toContain('was set to 450.00 W from 700.00 W');
      const { runs } = await engine.getSweep({ sweep_id: sweep.sweepId });
      expect(runs[0]).toMatchObject({ status: 'done', enforced_limit_w: 450 });
      const sudoCalls = shims.calls().filter((c) => c[0] === 'sudo');
      expect(sudoCalls.map((c) => c.slice(-2).join(' '))).toEqual(['-pl 450', '-pl 700']);
      expect(readFileSync(join(shims.dir, 'limit0'), 'utf8').trim()).toBe('700');
    } finally {
      await engine.close();
    }
  });
});
