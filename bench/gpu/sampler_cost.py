"""Sampler cost on the GPU machine, all in one run (observe only: nothing here changes a GPU setting).

  python3 bench/gpu/sampler_cost.py --node /tmp/node --dev .device --out "$OUT"

0. `caplab devices --backend nvml --json` and the per-call cost of each NVML read (record.mjs --micro).
1. Phase A, every sampler at once while this process runs idle -> PyTorch ResNet-50 training -> idle and reads the
   NVML energy counter at each boundary: CapLab polled (100, 10 ms: the old default), CapLab buffered (100, 10 ms:
   the new default), nvidia-smi with the lean query (timestamp,power.draw,clocks.sm,temperature.gpu; -lms 100 and
   -lms 10) and with the full 10-field query (-lms 100). CPU = utime+stime from /proc/PID/stat between two snapshots.
2. Phase B, whole `caplab sweep` processes (observe_only plans, one ViT-L/16 run each) with sample_mode poll and
   buffered, at 100 and 10 ms, with lean nvidia-smi -lms 100 running beside each. CPU of the sweep process (not its
   workload child) from /proc every 0.5 s; samples and counter readings from the sweep's own database.
Everything lands in OUT/cost.tar.gz and OUT/summary.json; bench/gpu/analyze-cost.ts turns it into the record."""
import argparse
import json
import os
import platform
import signal
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
ap.add_argument("--idle-before", type=float, default=15)
ap.add_argument("--load", type=float, default=50)
ap.add_argument("--idle-after", type=float, default=20)
ap.add_argument("--sweeps", default="poll:100,buffered:100,buffered:10,poll:10,buffered:1000,buffered:100:prof",
                help="MODE:MS[:VARIANT...]; variants: prof (CPU profiler), sgc (node --single-threaded-gc), pool1 (node "
                     "--v8-pool-size=1), agg (CAPLAB_STEP_REPORT_S=1: the workload prints at most one step event a second)")
ap.add_argument("--recorders", default="poll100,poll10,buf100,buf10,buf100_batch2s,noop100,noop1000",
                help="phase A's CapLab recorders (names of RECORDERS)")
ap.add_argument("--warmup-s", type=float, default=10, help="the sweeps' warm-up, s")
ap.add_argument("--sweep-window", type=float, default=25)
ap.add_argument("--dry", action="store_true", help="no PyTorch and no sweeps: plumbing test")
ap.add_argument("--skip-phase-a", action="store_true", help="sweeps only")
a = ap.parse_args()

WORK = "/tmp/cost"
os.makedirs(WORK, exist_ok=True)
TCK = os.sysconf("SC_CLK_TCK")
T0 = time.time()
LEAN = "timestamp,power.draw,clocks.sm,temperature.gpu"
FULL = "timestamp,index,name,uuid,pci.bus_id,power.draw,clocks.sm,clocks.mem,utilization.gpu,temperature.gpu"
REC = os.path.join(a.dev, "record.mjs")
CAPLAB = os.path.join(a.dev, "caplab.mjs")
signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # a time-out still packs what was measured
summary = {"meta": {}, "marks": [], "phase_a": {}, "sweeps": []}


def log(msg):
    print(f"[{time.time() - T0:7.1f}s] {msg}", flush=True)


def cpu_s(pid):
    with open(f"/proc/{pid}/stat") as f:
        s = f.read()
    fields = s[s.rindex(")") + 2:].split()
    return (int(fields[11]) + int(fields[12])) / TCK


def threads(pid):
    """Per-thread CPU (comm -> s) and the process's context switches: where a process's CPU goes, and how often it woke."""
    out = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                st = f.read()
        except FileNotFoundError:
            continue
        comm = st[st.index("(") + 1:st.rindex(")")]
        fields = st[st.rindex(")") + 2:].split()
        out[f"{comm}#{tid}"] = (int(fields[11]) + int(fields[12])) / TCK
    sw = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if "ctxt_switches" in line:
                k, v = line.split(":")
                sw[k.strip()] = int(v)
    return {"threads": out, "switches": sw}


def smi(query, ms, path):
    return subprocess.Popen(["nvidia-smi", f"--query-gpu={query}", "--format=csv,noheader,nounits", "-lms", str(ms)], stdout=open(path, "w"), stderr=subprocess.STDOUT)


def csv_times(path):
    """nvidia-smi timestamps ('2026/11/30 12:34:56.789') as epoch seconds."""
    out = []
    for line in open(path):
        ts = line.split(",")[0].strip()
        try:
            base = time.mktime(time.strptime(ts.split(".")[0], "%Y/%m/%d %H:%M:%S"))
            out.append(base + float("0." + ts.split(".")[1]))
        except (ValueError, IndexError):
            continue
    return out


def mark(name):
    t0 = time.time()
    e = nv.energy_mj(h)
    t1 = time.time()
    summary["marks"].append({"name": name, "t": (t0 + t1) / 2, "energy_mj": e})


def pack():
    with open(os.path.join(a.out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
    with tarfile.open(os.path.join(a.out, "cost.tar.gz"), "w:gz") as t:
        t.add(WORK, arcname="cost")


def count_in(ts, t1, t2):
    return sum(1 for t in ts if t1 <= t <= t2)


NODE_FLAGS = {"sgc": ["--single-threaded-gc"], "pool1": ["--v8-pool-size=1"]}


def run_sweep(mode, ms, variants=()):
    """One observe-only sweep; returns its CPU, samples and window energy from its own database. Variant prof: under
    node's CPU profiler (10 ms interval), for where the JavaScript time goes; its CPU figures are not the sweep's."""
    prof = "prof" in variants
    tag = "-".join([mode, str(ms), *variants])
    db = os.path.join(WORK, f"sweep-{tag}.db")
    plan = os.path.join(WORK, f"plan-{tag}.yaml")
    with open(plan, "w") as f:
        f.write(f"""name: sampler cost {mode} {ms} ms (observe-only)
backend: nvml
devices: [0]
observe_only: true
workloads:
  - id: vit_l_16
    params: {{ batch_size: 128, precision: tf32 }}
caps: [700]
warmup: {{ seconds: {a.warmup_s} }}
window: {{ seconds: {a.sweep_window} }}
cooldown_s: 0
sample_interval_ms: {ms}
sample_mode: {mode}
hang_timeout_s: 180
""")
    env = dict(os.environ, CAPLAB_DATA_DIR=os.path.join(WORK, "data"), CAPLAB_DB=db)
    if "agg" in variants:
        env["CAPLAB_STEP_REPORT_S"] = "1"
    side = smi(LEAN, 100, os.path.join(WORK, f"sweep-{tag}-smi.csv"))
    flags = ["--cpu-prof", "--cpu-prof-interval", "10000", "--cpu-prof-dir", os.path.join(WORK, "prof")] if prof else []
    for v in variants:
        flags += NODE_FLAGS.get(v, [])
    p = subprocess.Popen([a.node, *flags, CAPLAB, "sweep", plan, "--json"], env=env, stdout=open(os.path.join(WORK, f"sweep-{tag}.json"), "w"), stderr=open(os.path.join(WORK, f"sweep-{tag}.log"), "w"))
    trace = []
    snaps = []
    while p.poll() is None:
        try:
            trace.append((time.time(), cpu_s(p.pid), cpu_s(side.pid)))
            snaps.append((time.time(), threads(p.pid)))
        except (FileNotFoundError, ProcessLookupError):
            break
        time.sleep(0.5)
    side.terminate()
    side.wait(timeout=30)
    # Samples live in compressed blocks: record.mjs --dump reads them with CapLab's own store code.
    d = json.loads(subprocess.run([a.node, REC, "--dump", db], capture_output=True, text=True, check=True).stdout)
    r = d["run"]
    rid, started, ms0, ms1, ended, energy_j, thr, status = (r[k] for k in ("id", "started_at", "measure_start", "measure_end", "ended_at", "energy_j", "throughput", "status"))
    keys = ("t", "power_w", "power_kind", "energy_mj", "sm_clock_mhz", "temp_c", "util_gpu", "limit_w", "throttle_reasons")
    rows = sorted((tuple(x.get(k) for k in keys) for x in d["samples"] if started - 5 <= x["t"] <= (ended or float("inf")) + 5), key=lambda x: x[0])
    inst = [r for r in rows if r[2] == "instant"]
    counters = [r for r in rows if r[2] == "counter"]

    def cpu_at(t, col):
        best = None
        for row in trace:
            if row[0] <= t:
                best = row[col]
        return best

    res = {"mode": mode, "interval_ms": ms, "variants": list(variants), "profiled": prof, "status": status, "run_id": rid, "throughput": thr, "energy_j_sweep": energy_j,
           "process_cpu_s_total": trace[-1][1] if trace else None, "process_wall_s": trace[-1][0] - trace[0][0] if trace else None,
           "samples_total": len(inst), "fields_null": {k: sum(1 for r in inst if r[i] is None) for k, i in (("sm_clock", 4), ("temp", 5), ("util", 6), ("limit", 7), ("reasons", 8))}}
    if started and ended and trace:
        # Steady state: the run from its start to its end (the process start-up and sensor check left out).
        c1, c2 = cpu_at(started, 1), cpu_at(ended, 1)
        s1, s2 = cpu_at(started, 2), cpu_at(ended, 2)
        n = count_in([r[0] for r in inst], started, ended)
        side_n = count_in(csv_times(os.path.join(WORK, f"sweep-{tag}-smi.csv")), started, ended)
        s1s = [x for x in snaps if x[0] <= started]
        s2s = [x for x in snaps if x[0] <= ended]
        if s1s and s2s:
            th1, th2 = s1s[-1][1], s2s[-1][1]
            res["run_threads_cpu_s"] = {k: round(v - th1["threads"].get(k, 0), 3) for k, v in th2["threads"].items() if v - th1["threads"].get(k, 0) > 0}
            res["run_switches"] = {k: v - th1["switches"].get(k, 0) for k, v in th2["switches"].items()}
        res.update(run_s=ended - started, run_cpu_s=c2 - c1, run_samples=n, cpu_s_per_1000=(c2 - c1) / n * 1000 if n else None,
                   smi_lean_cpu_s=s2 - s1, smi_lean_samples=side_n, smi_lean_cpu_s_per_1000=(s2 - s1) / side_n * 1000 if side_n else None)
    if ms0 and ms1 and trace:
        # The measurement window alone: the steady state, without the run's one-off start (workload command, pty
        # spawn) and end (process-tree clean-up).
        w1 = [x for x in snaps if x[0] <= ms0]
        w2 = [x for x in snaps if x[0] <= ms1]
        wn = count_in([r[0] for r in inst], ms0, ms1)
        wc = cpu_at(ms1, 1) - cpu_at(ms0, 1)
        res.update(window_cpu_s=wc, window_samples=wn, window_cpu_s_per_1000=wc / wn * 1000 if wn else None, window_wall_s=ms1 - ms0)
        if w1 and w2:
            a1, a2 = w1[-1][1], w2[-1][1]
            res["window_threads_cpu_s"] = {k: round(v - a1["threads"].get(k, 0), 3) for k, v in a2["threads"].items() if v - a1["threads"].get(k, 0) > 0}
            res["window_switches"] = {k: v - a1["switches"].get(k, 0) for k, v in a2["switches"].items()}
    with open(os.path.join(WORK, f"sweep-{tag}-trace.json"), "w") as f:
        json.dump({"trace": trace, "snaps": snaps}, f)
    edge = [r[0] for r in counters]
    if ms0 and ms1 and edge:
        # How far the window-edge counter readings are from the edges (issue #14: within one sample interval).
        res["edge_start_ms"] = min(abs(t - ms0) for t in edge) * 1000
        res["edge_end_ms"] = min(abs(t - ms1) for t in edge) * 1000
        res["edge_start_after_ms"] = min((t - ms0 for t in edge if t >= ms0), default=float("nan")) * 1000
        res["edge_end_after_ms"] = min((t - ms1 for t in edge if t >= ms1), default=float("nan")) * 1000
    if ms0 and ms1 and len(counters) >= 2:
        c = [r for r in counters if ms0 - 1 <= r[0] <= ms1 + 1]
        win = [r for r in inst if ms0 <= r[0] <= ms1]
        e = 0.0
        for r0, r1 in zip(win, win[1:]):
            e += (r1[0] - r0[0]) * r0[1]  # held until the next reading, as the sensor holds it
        if len(c) >= 2 and win:
            counter_j = (c[-1][3] - c[0][3]) / 1000
            span = c[-1][0] - c[0][0]
            res.update(window_s=ms1 - ms0, counter_j=counter_j, counter_span_s=span, samples_j=e, samples_span_s=win[-1][0] - win[0][0],
                       samples_vs_counter_pct=(e / (win[-1][0] - win[0][0]) - counter_j / span) / (counter_j / span) * 100)
    return res


try:
    with open(os.path.join(WORK, "machine.txt"), "w") as f:
        f.write(subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,power.limit,enforced.power.limit,persistence_mode,mig.mode.current", "--format=csv"], capture_output=True, text=True).stdout)
        f.write(f"uname: {' '.join(platform.uname())}\ncpus: {os.cpu_count()}\npython: {sys.version.split()[0]}\ndate: {time.strftime('%Y-%m-%d %H:%M:%S %Z')}\n")
    node_env = dict(os.environ, CAPLAB_DATA_DIR=os.path.join(WORK, "data"))
    r = subprocess.run([a.node, CAPLAB, "devices", "--backend", "nvml", "--json"], capture_output=True, text=True, env=node_env)
    open(os.path.join(WORK, "devices.json"), "w").write(r.stdout + "\n# stderr\n" + r.stderr)
    r = subprocess.run([a.node, REC, "--micro", "--out", os.path.join(WORK, "calls")], capture_output=True, text=True, env=node_env)
    log(f"micro exit {r.returncode}\n{r.stdout}{r.stderr[-800:]}")

    nv.init()
    h = nv.handle(0)
    def phase_a():
        """Every sampler at once over idle -> training -> idle."""
        if not a.dry:
            import torch
            import torchvision

            torch.backends.cudnn.benchmark = True
            model = torchvision.models.resnet50().cuda().to(memory_format=torch.channels_last)
            opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
            x = torch.randn(256, 3, 224, 224, device="cuda").to(memory_format=torch.channels_last)
            y = torch.randint(0, 1000, (256,), device="cuda")
            lossf = torch.nn.CrossEntropyLoss()

            def step():
                opt.zero_grad(set_to_none=True)
                with torch.autocast("cuda", dtype=torch.bfloat16):
                    loss = lossf(model(x), y)
                loss.backward()
                opt.step()

            def sync():
                torch.cuda.synchronize()

            for _ in range(8):
                step()
            sync()
            time.sleep(3)
        else:
            def step():
                time.sleep(0.05)

            def sync():
                pass

        RECORDERS = {
            "poll100": ["--interval", "100"],
            "poll10": ["--interval", "10"],
            "buf100": ["--interval", "100", "--mode", "buffered"],
            "buf10": ["--interval", "10", "--mode", "buffered"],
            "buf100_batch2s": ["--interval", "100", "--mode", "buffered", "--batch-ms", "2000"],
            "noop100": ["--interval", "100", "--backend", "noop"],
            "noop1000": ["--interval", "1000", "--backend", "noop"],
            # The same, with fewer V8 background threads (node flags before the script).
            "buf100_sgc": ["--single-threaded-gc", "|", "--interval", "100", "--mode", "buffered"],
            "buf100_pool1": ["--v8-pool-size=1", "|", "--interval", "100", "--mode", "buffered"],
            "buf100_batch2s_sgc": ["--single-threaded-gc", "|", "--interval", "100", "--mode", "buffered", "--batch-ms", "2000"],
        }
        recorders = {k: RECORDERS[k] for k in a.recorders.split(",")}

        def rec_argv(k, v):
            node_flags, args = (v[:v.index("|")], v[v.index("|") + 1:]) if "|" in v else ([], v)
            return [a.node, *node_flags, REC, *args, "--out", os.path.join(WORK, k)]

        procs = {k: subprocess.Popen(rec_argv(k, v), env=node_env, stdout=open(os.path.join(WORK, k + ".log"), "w"), stderr=subprocess.STDOUT) for k, v in recorders.items()}
        smis = {"smi_lean100": (LEAN, 100), "smi_lean10": (LEAN, 10), "smi_full100": (FULL, 100)}
        for k, (q, ms) in smis.items():
            procs[k] = smi(q, ms, os.path.join(WORK, k + ".csv"))
        summary["meta"].update(recorders=recorders, smi={k: {"query": q, "ms": ms} for k, (q, ms) in smis.items()})
        time.sleep(4)
        c1, t1 = {k: cpu_s(p.pid) for k, p in procs.items()}, time.time()
        sw1 = {k: threads(p.pid)["switches"] for k, p in procs.items()}
        mark("idle0_start")
        time.sleep(a.idle_before)
        mark("load_start")
        t = time.time()
        steps = 0
        while time.time() < t + a.load:
            for _ in range(5):
                step()
            steps += 5
            sync()
        mark("load_end")
        summary["meta"].update(load_steps=steps, load_s=time.time() - t)
        time.sleep(5)
        mark("idle1_5")
        time.sleep(max(0, a.idle_after - 5))
        mark("idle1_end")
        c2, t2 = {k: cpu_s(p.pid) for k, p in procs.items()}, time.time()
        sw = {k: threads(p.pid)["switches"] for k, p in procs.items()}
        for k, p in procs.items():
            if k in smis:
                p.terminate()
            else:
                p.send_signal(signal.SIGUSR2)
        for p in procs.values():
            try:
                p.wait(timeout=60)
            except subprocess.TimeoutExpired:
                p.kill()
        rows = {}
        for k in procs:
            if k in smis:
                n = count_in(csv_times(os.path.join(WORK, k + ".csv")), t1, t2)
            else:
                n = count_in([json.loads(line)["t"] for line in open(os.path.join(WORK, k + ".jsonl")) if line.strip()], t1, t2)
            rows[k] = {"cpu_s": c2[k] - c1[k], "samples": n, "context_switches": {x: sw[k][x] - sw1[k].get(x, 0) for x in sw[k]}, "seconds": t2 - t1, "cpu_s_per_1000": (c2[k] - c1[k]) / n * 1000 if n else None}
            log(f"{k}: {rows[k]}")
        summary["phase_a"] = {"t1": t1, "t2": t2, "rows": rows}
        if not a.dry:
            del model, opt, x, y
            torch.cuda.empty_cache()

    if not a.skip_phase_a:
        phase_a()

    for spec in a.sweeps.split(","):
        if a.dry:
            break
        mode, ms, *rest = spec.split(":")
        log(f"sweep {spec}")
        try:
            res = run_sweep(mode, int(ms), tuple(rest))
        except Exception as e:  # noqa: BLE001 - one broken sweep must not cost the others
            res = {"mode": mode, "interval_ms": int(ms), "variants": rest, "error": repr(e)}
        log(json.dumps(res))
        summary["sweeps"].append(res)
finally:
    pack()
    log("packed")
    print(json.dumps({"phase_a": summary["phase_a"], "sweeps": summary["sweeps"]}, indent=1))
