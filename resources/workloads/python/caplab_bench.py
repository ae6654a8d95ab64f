"""Shared pieces of CapLab's built-in PyTorch workloads: common arguments, device and process-group set-up, the
timed step loop that prints the line protocol, the max-stable-batch search, and the whole flow of a training
workload (``BaseTrainer``, ``main_for``).

Imports only torch and the standard library.
"""

import argparse
import gc
import os
import sys
import time

import torch

from caplab_protocol import ConfigError, Protocol, guard, is_oom


def add_common_args(parser, default_batch):
    parser.add_argument("--batch-size", type=int, default=default_batch, help="batch size per GPU (per process)")
    parser.add_argument("--steps", type=int, default=0, help="optimizer steps to run; 0 runs until killed")
    parser.add_argument("--warmup-steps", type=int, default=5, help="steps the workload itself calls warm-up (the sweep plan decides what is measured)")
    parser.add_argument("--device", choices=["cuda", "cpu"], default="cuda", help="cuda (also ROCm builds of PyTorch) or cpu for a functional check")
    parser.add_argument("--tiny", action="store_true", help="tiny model and inputs, for checking the logic on a CPU")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-stable-batch", action="store_true", help="grow the batch until out of memory, report the largest stable size as metric max_stable_batch, then run with it")
    parser.add_argument("--max-batch-limit", type=int, default=1 << 16, help="largest batch the search tries")
    parser.add_argument("--probe-only", action="store_true", help="with --max-stable-batch: exit after reporting the size")
    # Test hooks: behave as if the GPU ran out of memory (batches above N; at step N).
    parser.add_argument("--simulate-oom-above", type=int, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--simulate-oom-at-step", type=int, default=None, help=argparse.SUPPRESS)
    return parser


class Dist:
    """Where this process runs: single process, or one rank of a torchrun process group."""

    def __init__(self, device, rank, local_rank, world):
        self.device = device
        self.rank = rank
        self.local_rank = local_rank
        self.world = world

    @property
    def main(self):
        return self.rank == 0

    def barrier(self):
        if self.world > 1:
            torch.distributed.barrier()

    def close(self):
        if self.world > 1 and torch.distributed.is_initialized():
            torch.distributed.destroy_process_group()


def setup(args):
    """Selects the device, joins the process group under torchrun and seeds the generators."""
    world = int(os.environ.get("WORLD_SIZE", "1"))
    rank = int(os.environ.get("RANK", "0"))
    local_rank = int(os.environ.get("LOCAL_RANK", "0"))
    if args.batch_size < 1:
        raise ConfigError("--batch-size must be at least 1")
    if args.device == "cuda":
        if not torch.cuda.is_available():
            raise ConfigError("no GPU is visible to PyTorch (check CUDA_VISIBLE_DEVICES / the container's GPU flags); --device cpu runs a functional check")
        torch.cuda.set_device(local_rank)
        device = torch.device("cuda", local_rank)
        torch.backends.cudnn.benchmark = True
    else:
        device = torch.device("cpu")
        if args.tiny:
            torch.set_num_threads(1)  # a functional check: stay light on shared machines
    if world > 1:
        torch.distributed.init_process_group(backend="nccl" if device.type == "cuda" else "gloo")
    torch.manual_seed(args.seed + rank)
    return Dist(device, rank, local_rank, world)


def sync(device):
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def set_float32_math(precision):
    """fp32: strict IEEE fp32 matmuls and convolutions (no TF32). tf32: fp32 tensors with TF32 tensor-core matmuls and
    convolutions, which is what NVIDIA's NGC PyTorch containers do by default (TORCH_ALLOW_TF32_CUBLAS_OVERRIDE=1)
    and what "fp32" training numbers measured in those containers mean. Other precisions leave the defaults."""
    if precision not in ("fp32", "tf32"):
        return
    tf32 = precision == "tf32"
    torch.backends.cuda.matmul.allow_tf32 = tf32
    torch.backends.cudnn.allow_tf32 = tf32
    if not tf32 and os.environ.get("TORCH_ALLOW_TF32_CUBLAS_OVERRIDE") == "1":
        print("warning: TORCH_ALLOW_TF32_CUBLAS_OVERRIDE=1 makes matmuls TF32 even in fp32 mode (NGC containers set it)", flush=True)


def autocast(device, precision):
    """Autocast context for bf16/fp16 (fp32/tf32: a no-op context)."""
    if precision in ("fp32", "tf32"):
        return torch.autocast(device_type=device.type, enabled=False)
    dtype = torch.bfloat16 if precision == "bf16" else torch.float16
    if device.type == "cpu" and dtype == torch.float16:
        dtype = torch.bfloat16  # CPU autocast has no fp16 matmuls everywhere; the logic stays the same
    return torch.autocast(device_type=device.type, dtype=dtype)


def free_memory():
    gc.collect()
    if torch.cuda.is_available():
        torch.cuda.empty_cache()


def report_every_s():
    """CAPLAB_STEP_REPORT_S: at most one step event per this many seconds (the steps in between summed into it), so
    that a fast workload does not wake the sweep process once a step; 0 or unset: one event per step."""
    try:
        return max(0.0, float(os.environ.get("CAPLAB_STEP_REPORT_S", "0")))
    except ValueError:
        return 0.0


def run_steps(proto, dist, step_fn, units_per_step, steps, warmup_steps, simulate_oom_at_step=None):
    """Runs ``step_fn`` ``steps`` times (forever when 0), one protocol step event per step (rank 0), or per
    CAPLAB_STEP_REPORT_S seconds of steps, with the workload's own warmup/measure phases and a summary over the
    measure phase at the end."""
    proto.phase("warmup")
    every = report_every_s()
    n = 0
    measured_units = 0
    measure_t0 = None
    all_t0 = time.time()
    pending_units, pending_t0 = 0, None
    while steps <= 0 or n < steps:
        t0 = time.perf_counter()
        if pending_t0 is None:
            pending_t0 = t0
        if simulate_oom_at_step is not None and n + 1 >= simulate_oom_at_step:
            raise RuntimeError("CUDA out of memory. Tried to allocate 2.00 GiB (simulated at step %d)" % (n + 1))
        step_fn()
        sync(dist.device)
        t1 = time.perf_counter()
        n += 1
        pending_units += units_per_step
        # A summed event spans from the first of its steps' start to the last one's end.
        if every <= 0 or t1 - pending_t0 >= every or n == steps or n == warmup_steps:
            proto.step(n, pending_units, t1 - pending_t0 if every > 0 else t1 - t0)
            pending_units, pending_t0 = 0, None
        if n == warmup_steps:
            proto.phase("measure")
            measure_t0 = time.time()
        elif measure_t0 is not None:
            measured_units += units_per_step
    proto.phase("done")
    if measure_t0 is not None and measured_units:
        seconds = time.time() - measure_t0
    else:
        measured_units, seconds = n * units_per_step, time.time() - all_t0
    if n:
        proto.summary(measured_units, seconds, measured_units / max(seconds, 1e-9))
    return n


def find_max_stable_batch(proto, try_batch, start, limit, simulate_oom_above=None, world=1):
    """Doubles the batch from ``start`` until ``try_batch(bs)`` runs out of memory, then bisects between the last
    size that ran and the first that did not. Returns the largest stable size and reports it as the metric
    ``max_stable_batch``. Raises the out-of-memory error when even batch 1 does not fit."""
    if world > 1:
        raise ConfigError("--max-stable-batch runs in one process; search on one GPU, then use the size on all")

    def attempt(bs):
        if simulate_oom_above is not None and bs > simulate_oom_above:
            raise RuntimeError("CUDA out of memory (simulated: batch %d > %d)" % (bs, simulate_oom_above))
        try_batch(bs)

    def fits(bs):
        try:
            attempt(bs)
        except Exception as exc:  # noqa: B902
            if not is_oom(exc):
                raise
            print("batch %d: out of memory" % bs, flush=True)
            return False, str(exc).splitlines()[0] if str(exc) else "out of memory"
        finally:
            free_memory()
        print("batch %d: ok" % bs, flush=True)
        return True, None

    good, bad, last_oom = 0, None, None
    bs = max(1, start)
    while bs <= limit:
        ok, exc = fits(bs)
        if not ok:
            bad, last_oom = bs, exc
            break
        good = bs
        bs *= 2
    if bad is None:
        best = good
    else:
        lo, hi = good, bad
        while hi - lo > 1:
            mid = (lo + hi) // 2
            ok, exc = fits(mid)
            if ok:
                lo = mid
            else:
                hi, last_oom = mid, exc
        best = lo
    if best < 1:
        raise RuntimeError("CUDA out of memory: even batch 1 does not fit (%s)" % last_oom)
    proto.metric("max_stable_batch", best)
    print("max stable batch: %d" % best, flush=True)
    return best


class BaseTrainer:
    """A training workload's model, optimizer and inputs. A subclass builds its model and ``self.opt`` and
    defines ``data(batch_size)`` (creates the inputs of one batch on the device), ``drop_data()`` (lets go of
    them), ``step()`` (one optimizer step) and ``begin(proto)`` (reports the run's start: the protocol start
    event, any metrics and a line for people; returns the units one step does on all GPUs)."""

    def __init__(self, args, dist):
        self.args = args
        self.dist = dist

    def try_batch(self, batch_size):
        """Two steps at ``batch_size``, for ``find_max_stable_batch``; drops the inputs and gradients after."""
        self.data(batch_size)
        try:
            for _ in range(2):
                self.step()
            sync(self.dist.device)
        finally:
            self.drop_data()
            self.opt.zero_grad(set_to_none=True)


def main_for(trainer_class, parse_args):
    """A training workload's main: parses the arguments, sets up the device, builds ``trainer_class(args, dist)``,
    searches the largest stable batch if asked (and stops there with ``--probe-only``), then runs the steps. Errors
    become protocol events and exit codes (``guard``)."""
    proto = Protocol()
    with guard(proto):
        args = parse_args(sys.argv[1:])
        dist = setup(args)
        set_float32_math(args.precision)
        trainer = trainer_class(args, dist)
        if args.max_stable_batch:
            args.batch_size = find_max_stable_batch(proto, trainer.try_batch, args.batch_size, args.max_batch_limit, args.simulate_oom_above, dist.world)
            if args.probe_only:
                return
            trainer.data(args.batch_size)
        units_per_step = trainer.begin(proto)
        run_steps(proto, dist, trainer.step, units_per_step, args.steps, args.warmup_steps, args.simulate_oom_at_step)
        dist.close()
