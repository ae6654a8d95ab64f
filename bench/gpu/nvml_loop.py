"""Baseline: a Python NVML polling loop as the seed papers' pynvml scripts do it (power, clocks, utilisation,
temperature, memory and the energy counter every tick). Writes CSV rows until --seconds pass or --stop-file exists."""
import argparse
import os
import time

import nvml_py as nv

ap = argparse.ArgumentParser()
ap.add_argument("--interval", type=float, default=100.0, help="ms")
ap.add_argument("--seconds", type=float, default=20.0)
ap.add_argument("--index", type=int, default=0)
ap.add_argument("--out", required=True)
ap.add_argument("--stop-file")
ap.add_argument("--no-nvml", action="store_true", help="the same loop without NVML: the floor of waking up")
a = ap.parse_args()

if not a.no_nvml:
    nv.init()
    h = nv.handle(a.index)
period = a.interval / 1000.0
with open(a.out, "w") as f:
    f.write(f"# source={'none (sleep only)' if a.no_nvml else nv.SOURCE}\nt,power_mw,energy_mj,sm_mhz,mem_mhz,util_gpu,util_mem,temp_c,mem_used\n")
    nxt = time.monotonic()
    end = nxt + a.seconds
    while time.monotonic() < end and not (a.stop_file and os.path.exists(a.stop_file)):
        t = time.time()
        if a.no_nvml:
            f.write(f"{t:.6f},,,,,,,,\n")
        else:
            g, m = nv.util(h)
            f.write(f"{t:.6f},{nv.power_mw(h)},{nv.energy_mj(h)},{nv.clock(h, 1)},{nv.clock(h, 2)},{g},{m},{nv.temp(h)},{nv.mem_used(h)}\n")
        nxt += period
        d = nxt - time.monotonic()
        if d > 0:
            time.sleep(d)
