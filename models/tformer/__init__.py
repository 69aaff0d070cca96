"""tformer-wasm's model tools (PyTorch reference, training, export, evaluation)."""
import os as _os


def _pin_openblas_core() -> None:
    """Names OpenBLAS's kernels for this CPU (Debian 12's OpenBLAS 0.3.21, under python3-torch).

    Its own detection reads recent Xeons as "Prescott" and runs f32 matmuls about 6x slower, so the
    kernels are named from the CPU's flags: SkylakeX (AVX-512) where avx512f exists, else Haswell
    (AVX2). Never SkylakeX without AVX-512: those kernels die with SIGILL on AVX2-only AMD EPYCs.
    Must run before torch is imported: every entry point imports this package first. A core type
    set by the user wins."""
    if "OPENBLAS_CORETYPE" in _os.environ:
        return
    try:
        with open("/proc/cpuinfo") as f:
            flags = next((line for line in f if line.startswith("flags")), "").split()
    except OSError:
        return
    if "avx512f" in flags:
        _os.environ["OPENBLAS_CORETYPE"] = "SkylakeX"
    elif "avx2" in flags:
        _os.environ["OPENBLAS_CORETYPE"] = "Haswell"


_pin_openblas_core()
