"""tformer-wasm's model tools (PyTorch reference, training, export, evaluation)."""
import os as _os


def _pin_openblas_core() -> None:
    """Debian's OpenBLAS 0.3.21 (under python3-torch) dies with SIGILL on some AVX2-only AMD CPUs:
    it detects "Zen" but its small-matrix sgemm path runs AVX-512 (SKYLAKEX) kernels. On a CPU
    without avx512f, pin the Haswell (AVX2) kernels unless the user chose a core type. Must run
    before torch is imported, which is why it lives in the package's __init__."""
    if "OPENBLAS_CORETYPE" in _os.environ:
        return
    try:
        with open("/proc/cpuinfo") as f:
            flags = next((line for line in f if line.startswith("flags")), "").split()
    except OSError:
        return
    if "avx2" in flags and "avx512f" not in flags:
        _os.environ["OPENBLAS_CORETYPE"] = "Haswell"


_pin_openblas_core()
