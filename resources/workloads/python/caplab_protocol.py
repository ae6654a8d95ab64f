"""CapLab's workload line protocol for Python workloads (docs/line-protocol.md, docs/workloads.md).

Each event is one line on stdout: ``@caplab `` followed by a JSON object, flushed at once so a pseudo-terminal
shows it immediately. ``t`` is wall time in seconds since the epoch. Under torchrun only rank 0 prints.

    proto = Protocol()
    proto.start("vit_l_16", "images", gpus=1, batch_size=64)
    proto.phase("warmup")
    proto.step(1, 64, 0.21)
    proto.summary(6400, 21.3, 300.5)

``guard(proto)`` wraps a workload's main: an out-of-memory error becomes an ``error`` event of kind ``oom`` and
exit code 3; any other exception an ``error`` of kind ``crash`` and exit code 1 (with the traceback on stderr).

Standard library only, so it imports anywhere.
"""

import contextlib
import json
import os
import sys
import time
import traceback

PREFIX = "@caplab "
EXIT_OOM = 3
EXIT_CRASH = 1
EXIT_CONFIG = 2


def _rank():
    try:
        return int(os.environ.get("RANK", "0"))
    except ValueError:
        return 0


class Protocol:
    """Prints protocol events (rank 0 only, unless ``all_ranks``)."""

    def __init__(self, stream=None, all_ranks=False):
        self.stream = stream if stream is not None else sys.stdout
        self.enabled = all_ranks or _rank() == 0

    def emit(self, ev, **fields):
        if not self.enabled:
            return
        record = {"ev": ev, "t": round(time.time(), 6)}
        record.update(fields)
        self.stream.write(PREFIX + json.dumps(record, separators=(",", ":")) + "\n")
        self.stream.flush()

    def start(self, workload, units, gpus=1, batch_size=None):
        fields = {"workload": workload, "units": units, "gpus": int(gpus)}
        if batch_size is not None:
            fields["batch_size"] = batch_size
        self.emit("start", **fields)

    def phase(self, name):
        if name not in ("warmup", "measure", "cooldown", "done"):
            raise ValueError("unknown phase %r" % name)
        self.emit("phase", name=name)

    def step(self, n, units, dt):
        """``units`` of work (summed over all GPUs) done in the step that just ended and took ``dt`` seconds."""
        # The protocol schema rejects dt below 1 µs (no real step is shorter; a 0 from a coarse clock is clamped).
        self.emit("step", n=int(n), units=units, dt=max(float(dt), 1e-6))

    def metric(self, name, value):
        self.emit("metric", name=name, value=float(value))

    def summary(self, units, seconds, rate):
        self.emit("summary", units=units, seconds=max(float(seconds), 1e-9), rate=float(rate))

    def error(self, message, kind="other"):
        if kind not in ("oom", "crash", "config", "other"):
            kind = "other"
        self.emit("error", message=str(message)[:2000], kind=kind)


def is_oom(exc):
    """True for CUDA/HIP out-of-memory errors (torch.cuda.OutOfMemoryError or the older RuntimeError text)."""
    try:
        import torch  # noqa: WPS433 (optional here)

        oom_type = getattr(torch.cuda, "OutOfMemoryError", None)
        if oom_type is not None and isinstance(exc, oom_type):
            return True
    except ImportError:
        pass
    text = str(exc)
    return "out of memory" in text.lower() or "CUBLAS_STATUS_ALLOC_FAILED" in text or "hipErrorOutOfMemory" in text


class ConfigError(Exception):
    """Bad arguments or an environment the workload cannot run in (exit code 2, error kind config)."""


@contextlib.contextmanager
def guard(proto):
    """Turns exceptions into protocol errors and exit codes."""
    try:
        yield
    except KeyboardInterrupt:
        sys.exit(130)
    except ConfigError as exc:
        proto.error(str(exc), kind="config")
        sys.stderr.write("error: %s\n" % exc)
        sys.exit(EXIT_CONFIG)
    except SystemExit:
        raise
    except BaseException as exc:  # noqa: B902 (report everything)
        if is_oom(exc):
            proto.error("out of memory: %s" % str(exc).splitlines()[0] if str(exc) else "out of memory", kind="oom")
            sys.stderr.write("CUDA out of memory: %s\n" % str(exc).splitlines()[0] if str(exc) else "CUDA out of memory\n")
            sys.exit(EXIT_OOM)
        proto.error("%s: %s" % (type(exc).__name__, exc), kind="crash")
        traceback.print_exc()
        sys.exit(EXIT_CRASH)
