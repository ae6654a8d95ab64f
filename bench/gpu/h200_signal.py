"""Issue #25's H200 capture, run on the GPU machine (observe only: nothing here changes a GPU setting).

  PYTHONUNBUFFERED=1 python3 bench/gpu/h200_signal.py --out "$OUT"

While this process runs idle -> load -> idle ... phases (ResNet-50, ViT-L/16 and a LLaMA-shaped decoder, small
PyTorch training loops on random inputs, nothing downloaded), four loggers run beside it:
  smi-seed.csv     nvidia-smi with the seed paper's query (power.draw, the 1 s average) at -lms 100
  smi-inst.csv     nvidia-smi power.draw.instant and power.draw.average at -lms 100
  wattameter.log   a WattAMeter-style log at 100 ms: NVML power usage (mW), the energy counter (mJ), temperature
  exact.log        the energy counter polled every ~0.5 ms by a separate process, one line per update it saw: the
                   last read before the update, the first read after it (epoch s) and the new value (mJ)
  marks.json       the phase edges, each placed on one of NVML's ~100 ms updates (the ground truth): an idle ->
                   load edge starts the load right after an update is seen; a load -> idle edge runs short matmuls
                   after the last training step until an update is seen, then stops. A mark's `t` is that update's
                   instant (midpoint of the last read before it and the first after it), `energy_mj` the value the
                   update brought: the counter's energy at `t`, not a reading up to one update stale.
Everything lands in OUT/signal.tar.gz (+ the run log); bench/gpu/signal-table.ts turns it into the table."""
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
ap.add_argument("--out", required=True)
ap.add_argument("--wattameter", action="store_true", help="run as the WattAMeter-style logger (internal)")
ap.add_argument("--log", help="wattameter: file to write")
ap.add_argument("--stop", help="wattameter: stop once this file exists")
ap.add_argument("--exact", action="store_true", help="run as the counter-update logger (internal)")
ap.add_argument("--dry", action="store_true", help="no PyTorch: sleep instead of training (plumbing test)")
a = ap.parse_args()

SEED_QUERY = "timestamp,index,name,uuid,pci.bus_id,power.draw,clocks.sm,clocks.mem,utilization.gpu,temperature.gpu"
INST_QUERY = "timestamp,index,power.draw.instant,power.draw.average"
# (workload, load seconds, idle seconds after it): idle phases of 8-12 s after each load, as issue #25 asks.
SCHEDULE = [("resnet50", 30, 10), ("vit_l_16", 30, 8), ("llm", 30, 12), ("resnet50", 20, 9), ("vit_l_16", 20, 11), ("llm", 20, 10), ("resnet50", 20, 8), ("llm", 20, 12)]


def wattameter(path, stop):
    """WattAMeter's text format: naive local time, the read's duration in ns, then per GPU mW, mJ and C."""
    nv.init()
    h = nv.handle(0)
    with open(path, "w") as f:
        f.write("# timestamp                  reading-time[ns] gpu-0[mW] gpu-0[mJ] gpu-0[C]\n")
        nxt = time.time()
        while not os.path.exists(stop):
            t0 = time.perf_counter_ns()
            now = time.time()
            p, e, c = nv.power_mw(h), nv.energy_mj(h), nv.temp(h)
            dt = time.perf_counter_ns() - t0
            stamp = time.strftime("%Y-%m-%d_%H:%M:%S", time.localtime(now)) + f".{int((now % 1) * 1e6):06d}"
            f.write(f"  {stamp} {dt} {p} {e} {c}\n")
            nxt += 0.1
            time.sleep(max(0, nxt - time.time()))


def exact(path, stop):
    """Every counter update with its instant to ~0.5 ms: the truth for any window whose edges sit on updates."""
    nv.init()
    h = nv.handle(0)
    with open(path, "w") as f:
        f.write("# t_before t_after energy_mj (epoch s: last read with the old value, first read with the new)\n")
        prev_t, prev_e = time.time(), nv.energy_mj(h)
        n = 0
        while True:
            t, e = time.time(), nv.energy_mj(h)
            if e != prev_e:
                f.write(f"{prev_t:.6f} {t:.6f} {e}\n")
                prev_e = e
            prev_t = t
            n += 1
            if n % 2000 == 0 and os.path.exists(stop):
                break
            time.sleep(0.0005)


if a.wattameter:
    wattameter(a.log, a.stop)
    sys.exit(0)
if a.exact:
    exact(a.log, a.stop)
    sys.exit(0)

WORK = "/tmp/signal"
os.makedirs(WORK, exist_ok=True)
T0 = time.time()
marks = {"source": nv.SOURCE, "marks": [], "phases": [], "meta": {"tz": time.strftime("%z"), "schedule": SCHEDULE}}


def log(msg):
    print(f"[{time.time() - T0:7.1f}s] {msg}", flush=True)


def mark(h, name, between=None):
    """Waits for the counter's next update (calling between() after each unchanged read: the load -> idle edge's
    short kernels) and records it: the edge is then on an update, and the value is the energy at that instant."""
    e0 = nv.energy_mj(h)
    t0 = time.time()
    while True:
        if between:
            between()
        t1 = time.time()
        e = nv.energy_mj(h)
        if e != e0:
            break
        t0 = t1
    marks["marks"].append({"name": name, "t": (t0 + t1) / 2, "t_before": t0, "t_after": t1, "energy_mj": e, "on_update": True})


def build(name):
    """A training step on random inputs kept on the GPU (bf16 autocast); returns step()."""
    import torch

    if name == "llm":
        try:
            from transformers import LlamaConfig, LlamaForCausalLM

            cfg = LlamaConfig(vocab_size=128256, hidden_size=4096, intermediate_size=14336, num_attention_heads=32, num_key_value_heads=8, num_hidden_layers=6, max_position_embeddings=4096, use_cache=False)
            with torch.device("cuda"):
                model = LlamaForCausalLM(cfg).to(torch.bfloat16)
            ids = torch.randint(0, cfg.vocab_size, (4, 512), device="cuda")
            opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
            marks["meta"]["llm"] = "transformers LlamaForCausalLM, LLaMA-3-8B shape, 6 layers, bf16, batch 4 x 512"

            def step():
                opt.zero_grad(set_to_none=True)
                model(input_ids=ids, labels=ids).loss.backward()
                opt.step()

            return step
        except Exception as err:  # noqa: BLE001 - any failure of transformers: fall back to torch's own decoder
            log(f"transformers unavailable ({err}); torch TransformerEncoder with a causal mask instead")
            layer = torch.nn.TransformerEncoderLayer(2048, 16, 8192, batch_first=True, norm_first=True)
            model = torch.nn.TransformerEncoder(layer, 12).cuda()
            x = torch.randn(8, 512, 2048, device="cuda")
            mask = torch.nn.Transformer.generate_square_subsequent_mask(512, device="cuda")
            opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
            marks["meta"]["llm"] = "torch TransformerEncoder 12 x 2048, causal, bf16 autocast, batch 8 x 512"

            def step():
                opt.zero_grad(set_to_none=True)
                with torch.autocast("cuda", dtype=torch.bfloat16):
                    loss = model(x, mask=mask, is_causal=True).float().pow(2).mean()
                loss.backward()
                opt.step()

            return step
    import torchvision

    model = getattr(torchvision.models, name)().cuda()
    batch = 256 if name == "resnet50" else 64
    if name == "resnet50":
        model = model.to(memory_format=torch.channels_last)
    x = torch.randn(batch, 3, 224, 224, device="cuda")
    if name == "resnet50":
        x = x.to(memory_format=torch.channels_last)
    y = torch.randint(0, 1000, (batch,), device="cuda")
    opt = torch.optim.Adam(model.parameters(), lr=1e-4)
    lossf = torch.nn.CrossEntropyLoss()
    marks["meta"][name] = f"torchvision {name}, bf16 autocast, Adam, batch {batch}"

    def step():
        opt.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = lossf(model(x), y)
        loss.backward()
        opt.step()

    return step


def sleep_until(t):
    time.sleep(max(0, t - time.time()))


procs = {}
try:
    with open(os.path.join(WORK, "machine.txt"), "w") as f:
        r = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,vbios_version,power.limit,power.default_limit,persistence_mode", "--format=csv"], capture_output=True, text=True)
        f.write(r.stdout + r.stderr)
        f.write(f"\nuname: {' '.join(platform.uname())}\npython: {sys.version.split()[0]}\nnvml for python: {nv.SOURCE}\ndate: {time.strftime('%Y-%m-%d %H:%M:%S %Z')}\n")
    nv.init()
    h = nv.handle(0)
    if a.dry:
        steps = {n: (lambda: time.sleep(0.05)) for n in ("resnet50", "vit_l_16", "llm")}

        def sync():
            pass

        def tail():
            time.sleep(0.001)
    else:
        import torch

        torch.backends.cudnn.benchmark = True
        marks["meta"]["torch"] = torch.__version__
        marks["meta"]["gpu"] = torch.cuda.get_device_name(0)
        steps = {}
        for n in ("resnet50", "vit_l_16", "llm"):
            log(f"building {n}")
            steps[n] = build(n)
            for _ in range(5):
                steps[n]()
            torch.cuda.synchronize()
        sync = torch.cuda.synchronize
        mm = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)

        def tail():
            """About 1 ms of matmuls: the load goes on in steps this short until the counter updates."""
            for _ in range(4):
                torch.mm(mm, mm)
            torch.cuda.synchronize()
    log("models built and warmed up; letting the GPU settle for 8 s")
    time.sleep(8)

    stop = os.path.join(WORK, "stop")
    procs["smi-seed"] = subprocess.Popen(["nvidia-smi", f"--query-gpu={SEED_QUERY}", "--format=csv,nounits", "-lms", "100"], stdout=open(os.path.join(WORK, "smi-seed.csv"), "w"), stderr=subprocess.STDOUT)
    procs["smi-inst"] = subprocess.Popen(["nvidia-smi", f"--query-gpu={INST_QUERY}", "--format=csv,nounits", "-lms", "100"], stdout=open(os.path.join(WORK, "smi-inst.csv"), "w"), stderr=subprocess.STDOUT)
    procs["wattameter"] = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--out", WORK, "--wattameter", "--log", os.path.join(WORK, "wattameter.log"), "--stop", stop])
    procs["exact"] = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--out", WORK, "--exact", "--log", os.path.join(WORK, "exact.log"), "--stop", stop])
    marks["meta"]["argv"] = {k: p.args for k, p in procs.items()}
    time.sleep(2)

    mark(h, "idle0_start")
    sleep_until(time.time() + 12)
    for i, (name, load_s, idle_s) in enumerate(SCHEDULE):
        tag = f"{i + 1}_{name}"
        if i == 0:
            mark(h, f"{tag}_start")
        else:
            # The idle's end is this load's start: one update, the load launched right after it.
            marks["marks"].append({**marks["marks"][-1], "name": f"{tag}_start"})
        t = time.time()
        n = 0
        while time.time() < t + load_s:
            steps[name]()
            n += 1
            if n % 4 == 0:
                sync()
        sync()
        mark(h, f"{tag}_end", between=tail)
        marks["phases"].append({"name": tag, "workload": name, "steps": n, "start": t, "end": time.time()})
        log(f"{tag}: {n} steps in {time.time() - t:.1f} s")
        sleep_until(time.time() + idle_s)
        mark(h, f"idle{i + 1}_end")
    log("schedule done")
finally:
    with open(os.path.join(WORK, "stop"), "w") as f:
        f.write("stop\n")
    for k, p in procs.items():
        if k.startswith("smi"):
            p.terminate()
    for p in procs.values():
        try:
            p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            p.kill()
    with open(os.path.join(WORK, "marks.json"), "w") as f:
        json.dump(marks, f, indent=1)
    with tarfile.open(os.path.join(a.out, "signal.tar.gz"), "w:gz") as t:
        t.add(WORK, arcname="signal")
    log("packed")
