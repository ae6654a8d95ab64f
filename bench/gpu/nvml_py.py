"""NVML for the bench scripts: pynvml when installed, else a ctypes binding of the same calls (pynvml is itself a
ctypes wrapper, so the per-call cost is comparable). Used to read the energy counter from a separate process and
for the Python polling-loop baseline. Read-only: nothing here sets anything on the GPU."""
import ctypes

try:
    import pynvml as _p  # type: ignore

    SOURCE = "pynvml " + getattr(_p, "__version__", "?")

    def init():
        _p.nvmlInit()

    def handle(i):
        return _p.nvmlDeviceGetHandleByIndex(i)

    def energy_mj(h):
        return int(_p.nvmlDeviceGetTotalEnergyConsumption(h))

    def power_mw(h):
        return int(_p.nvmlDeviceGetPowerUsage(h))

    def clock(h, t):
        return int(_p.nvmlDeviceGetClockInfo(h, t))

    def temp(h):
        return int(_p.nvmlDeviceGetTemperature(h, 0))

    def util(h):
        u = _p.nvmlDeviceGetUtilizationRates(h)
        return int(u.gpu), int(u.memory)

    def mem_used(h):
        return int(_p.nvmlDeviceGetMemoryInfo(h).used)

except ImportError:
    SOURCE = "ctypes NVML (pynvml not installed)"
    _lib = None
    for _name in ("libnvidia-ml.so.1", "/usr/local/nvidia/lib64/libnvidia-ml.so.1", "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1"):
        try:
            _lib = ctypes.CDLL(_name)
            break
        except OSError:
            pass

    class _Util(ctypes.Structure):
        _fields_ = [("gpu", ctypes.c_uint), ("memory", ctypes.c_uint)]

    class _Mem(ctypes.Structure):
        _fields_ = [("total", ctypes.c_ulonglong), ("free", ctypes.c_ulonglong), ("used", ctypes.c_ulonglong)]

    def _ck(r, fn):
        if r != 0:
            raise RuntimeError(f"{fn} failed: {r}")

    def init():
        if _lib is None:
            raise RuntimeError("libnvidia-ml.so.1 not found")
        _ck(_lib.nvmlInit_v2(), "nvmlInit_v2")

    def handle(i):
        h = ctypes.c_void_p()
        _ck(_lib.nvmlDeviceGetHandleByIndex_v2(ctypes.c_uint(i), ctypes.byref(h)), "nvmlDeviceGetHandleByIndex_v2")
        return h

    def energy_mj(h):
        v = ctypes.c_ulonglong()
        _ck(_lib.nvmlDeviceGetTotalEnergyConsumption(h, ctypes.byref(v)), "nvmlDeviceGetTotalEnergyConsumption")
        return int(v.value)

    def power_mw(h):
        v = ctypes.c_uint()
        _ck(_lib.nvmlDeviceGetPowerUsage(h, ctypes.byref(v)), "nvmlDeviceGetPowerUsage")
        return int(v.value)

    def clock(h, t):
        v = ctypes.c_uint()
        _ck(_lib.nvmlDeviceGetClockInfo(h, ctypes.c_int(t), ctypes.byref(v)), "nvmlDeviceGetClockInfo")
        return int(v.value)

    def temp(h):
        v = ctypes.c_uint()
        _ck(_lib.nvmlDeviceGetTemperature(h, ctypes.c_int(0), ctypes.byref(v)), "nvmlDeviceGetTemperature")
        return int(v.value)

    def util(h):
        u = _Util()
        _ck(_lib.nvmlDeviceGetUtilizationRates(h, ctypes.byref(u)), "nvmlDeviceGetUtilizationRates")
        return int(u.gpu), int(u.memory)

    def mem_used(h):
        m = _Mem()
        _ck(_lib.nvmlDeviceGetMemoryInfo(h, ctypes.byref(m)), "nvmlDeviceGetMemoryInfo")
        return int(m.used)
