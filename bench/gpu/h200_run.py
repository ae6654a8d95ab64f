"""The H200 sensor proof, run on the GPU machine (observe only: nothing here changes a GPU setting).

  python3 bench/gpu/h200_run.py --node /tmp/node --dev .device --out "$OUT"

1. `caplab devices --backend nvml --json` from the bundle, and the per-call cost of each NVML read.
2. Phase A: CapLab recorders at 100 ms and 10 ms, plus `nvidia-smi -lms 100` with the seed paper's query, all running
   while this process does idle (IDLE_BEFORE s) -> PyTorch ResNet-50 training (LOAD s) -> idle (IDLE_AFTER s), and
   reads the NVML energy counter at every phase boundary and every 10 s (a separate process from CapLab).
3. Phase B: a Python NVML polling loop at 100 ms (power, clocks, utilisation, temperature, memory and the energy
   counter every tick, as the pynvml scripts do), alone.
CPU cost of each sampler = its utime+stime (/proc/PID/stat) between two snapshots / samples taken in between.
Everything lands in OUT/h200.tar.gz (+ OUT/run.log); bench/gpu/analyze.ts turns it into the numbers."""
import argparse
import json
import os
import platform
import subprocess
import sys
import tarfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nvml_py as nv  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("--node", required=True)
ap.add_argument("--dev", default=".device")
ap.add_argument("--out", required=True)
ap.add_argument("--idle-before", type=float, default=20)
ap.add_argument("--load", type=float, default=70)
ap.add_argument("--idle-after", type=float, default=30)
ap.add_argument("--loop-seconds", type=float, default=20)
ap.add_argument("--batch", type=int, default=256)
ap.add_argument("--dry", action="store_true", help="no PyTorch: sleep instead of training (plumbing test)")
ap.add_argument("--variants", action="store_true", help="also run recorder variants (worker thread, no slow tier, no NVML)")
a = ap.parse_args()

WORK = "/tmp/h200"
os.makedirs(WORK, exist_ok=True)
TCK = os.sysconf("SC_CLK_TCK")
T0 = time.time()


def log(msg):
    print(f"[{time.time() - T0:7.1f}s] {msg}", flush=True)


def cpu_s(pid):
    with open(f"/proc/{pid}/stat") as f:
        s = f.read()
    fields = s[s.rindex(")") + 2:].split()
    return (int(fields[11]) + int(fields[12])) / TCK


def sh(cmd, out=None, timeout=120):
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if out:
        with open(os.path.join(WORK, out), "w") as f:
            f.write(r.stdout)
            if r.stderr:
                f.write("\n# stderr\n" + r.stderr)
    return r


def pack():
    with tarfile.open(os.path.join(a.out, "h200.tar.gz"), "w:gz") as t:
        t.add(WORK, arcname="h200")


marks = {"source": nv.SOURCE, "marks": [], "cpu": {}, "meta": {}}


def idle(seconds, prefix, every):
    """Sleeps `seconds`, reading the energy counter every `every` seconds on the way."""
    t = time.time()
    n = 1
    while True:
        target = t + n * every
        if target >= t + seconds - 0.5:
            time.sleep(max(0, t + seconds - time.time()))
            return
        time.sleep(max(0, target - time.time()))
        mark(h, f"{prefix}_{n * every}")
        n += 1


def mark(h, name):
    t0 = time.time()
    e = nv.energy_mj(h)
    t1 = time.time()
    marks["marks"].append({"name": name, "t": (t0 + t1) / 2, "t_before": t0, "t_after": t1, "energy_mj": e})
    return e


try:
    # Machine facts.
    sh(["nvidia-smi", "--query-gpu=name,driver_version,vbios_version,power.limit,enforced.power.limit,power.min_limit,power.max_limit,power.default_limit,persistence_mode,mig.mode.current", "--format=csv"], "machine.txt")
    with open(os.path.join(WORK, "machine.txt"), "a") as f:
        f.write(f"\nuname: {' '.join(platform.uname())}\ncpus: {os.cpu_count()}\npython: {sys.version.split()[0]}\nnvml for python: {nv.SOURCE}\ndate: {time.strftime('%Y-%m-%d %H:%M:%S %Z')}\n")
    node_env = dict(os.environ, CAPLAB_DATA_DIR=os.path.join(WORK, "data"))

    # 1. devices + per-call costs
    log("caplab devices --backend nvml --json")
    r = sh([a.node, os.path.join(a.dev, "caplab.mjs"), "devices", "--backend", "nvml", "--json"], "devices.json")
    log(f"devices exit {r.returncode}: {r.stderr.strip()[:300]}")
    r = sh([a.node, os.path.join(a.dev, "record.mjs"), "--micro", "--out", os.path.join(WORK, "calls")], "calls.txt")
    log(f"micro exit {r.returncode}\n{r.stdout}{r.stderr[-500:]}")

    # 2. Phase A
    nv.init()
    h = nv.handle(0)
    if a.dry:
        def step():
            time.sleep(0.05)

        class _Cuda:
            @staticmethod
            def synchronize():
                pass

        class torch:  # noqa: N801
            cuda = _Cuda
    else:
        log("building the PyTorch load")
        import torch
        import torchvision

        torch.backends.cudnn.benchmark = True
        model = torchvision.models.resnet50().cuda().to(memory_format=torch.channels_last)
        opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
        x = torch.randn(a.batch, 3, 224, 224, device="cuda").to(memory_format=torch.channels_last)
        y = torch.randint(0, 1000, (a.batch,), device="cuda")
        lossf = torch.nn.CrossEntropyLoss()

        def step():
            opt.zero_grad(set_to_none=True)
            with torch.autocast("cuda", dtype=torch.bfloat16):
                loss = lossf(model(x), y)
            loss.backward()
            opt.step()

        for _ in range(8):
            step()
        torch.cuda.synchronize()
        marks["meta"].update(torch=torch.__version__, gpu=torch.cuda.get_device_name(0), model="resnet50 bf16 autocast channels_last SGD", batch=a.batch)
    log("warm-up done; letting the GPU settle for 5 s")
    time.sleep(5)

    stop = os.path.join(WORK, "stop")
    procs = {}
    # The proof recorders (CapLab's Sampler + NVML backend, default settings) and variants that show where CPU goes.
    recorders = {
        "rec100": ["--interval", "100"],
        "rec10": ["--interval", "10"],
    }
    if a.variants:
        recorders.update({
            "v100_slow0": ["--interval", "100", "--slow-ms", "0"],
            "v10_slow0": ["--interval", "10", "--slow-ms", "0"],
            "v100_worker": ["--interval", "100", "--mode", "worker"],
            "v10_worker": ["--interval", "10", "--mode", "worker"],
            "v100_noop": ["--interval", "100", "--backend", "noop"],
            "v10_noop": ["--interval", "10", "--backend", "noop"],
            "vbuf": ["--interval", "100", "--mode", "buffered"],
        })
    for name, extra in recorders.items():
        procs[name] = subprocess.Popen([a.node, os.path.join(a.dev, "record.mjs"), *extra, "--out", os.path.join(WORK, name), "--stop-file", stop], env=node_env, stdout=open(os.path.join(WORK, name + ".log"), "w"), stderr=subprocess.STDOUT)
    marks["meta"]["recorders"] = recorders
    seed_query = "timestamp,index,name,uuid,pci.bus_id,power.draw,clocks.sm,clocks.mem,utilization.gpu,temperature.gpu"
    procs["nvidia-smi"] = subprocess.Popen(["nvidia-smi", f"--query-gpu={seed_query}", "--format=csv,nounits", "-lms", "100"], stdout=open(os.path.join(WORK, "smi.csv"), "w"), stderr=subprocess.STDOUT)
    marks["meta"]["nvidia_smi_argv"] = procs["nvidia-smi"].args
    time.sleep(3)
    c1 = {k: cpu_s(p.pid) for k, p in procs.items()}
    t_c1 = time.time()

    mark(h, "idle0_start")
    idle(a.idle_before, "idle0", 10)
    log("load start")
    mark(h, "load_start")
    t = time.time()
    steps = 0
    next_mark = t + 10
    while True:
        for _ in range(5):
            step()
        steps += 5
        torch.cuda.synchronize()
        now = time.time()
        if now >= t + a.load:
            break
        if now >= next_mark:
            mark(h, f"load_{int(round(now - t))}")
            next_mark += 10
    mark(h, "load_end")
    load_s = time.time() - t
    marks["meta"].update(steps=steps, images_per_s=steps * a.batch / load_s, load_s=load_s)
    log(f"load end: {steps} steps, {steps * a.batch / load_s:.0f} img/s")
    idle(a.idle_after, "idle1", 5)
    mark(h, "idle1_end")
    c2 = {k: cpu_s(p.pid) for k, p in procs.items()}
    t_c2 = time.time()
    marks["cpu"]["phase_a"] = {"t1": t_c1, "t2": t_c2, "cpu1": c1, "cpu2": c2}
    with open(stop, "w") as f:
        f.write("stop\n")
    procs["nvidia-smi"].terminate()
    for k, p in procs.items():
        try:
            p.wait(timeout=60)
        except subprocess.TimeoutExpired:
            p.kill()
    log("phase A done")

    # 3. Phase B: the Python polling loop alone
    here = os.path.dirname(os.path.abspath(__file__))
    loops = {
        "nvml-loop": subprocess.Popen([sys.executable, os.path.join(here, "nvml_loop.py"), "--interval", "100", "--seconds", str(a.loop_seconds + 4), "--out", os.path.join(WORK, "loop.csv")], stdout=open(os.path.join(WORK, "loop.log"), "w"), stderr=subprocess.STDOUT),
        "sleep-loop": subprocess.Popen([sys.executable, os.path.join(here, "nvml_loop.py"), "--no-nvml", "--interval", "100", "--seconds", str(a.loop_seconds + 4), "--out", os.path.join(WORK, "sleep.csv")], stdout=open(os.path.join(WORK, "sleep.log"), "w"), stderr=subprocess.STDOUT),
    }
    time.sleep(2)
    lc1, lt1 = {k: cpu_s(p.pid) for k, p in loops.items()}, time.time()
    time.sleep(a.loop_seconds)
    lc2, lt2 = {k: cpu_s(p.pid) for k, p in loops.items()}, time.time()
    for p in loops.values():
        p.wait(timeout=30)
    marks["cpu"]["phase_b"] = {"t1": lt1, "t2": lt2, "cpu1": lc1, "cpu2": lc2}
    log("phase B done")
finally:
    marks["meta"]["clk_tck"] = TCK
    with open(os.path.join(WORK, "marks.json"), "w") as f:
        json.dump(marks, f, indent=1)
    pack()
    log("packed")
