"""What a GPU can do at most: peak copy bandwidth and peak matrix rate per dtype, measured once per
GPU model and stored as benchmark/devices/<slug>.json. The speed-of-light floor of every task
(benchmark.evaluate.sol) is computed from these numbers, so they are measured, not taken from a datasheet:
`python -m benchmark.suite profile` on the GPU writes the file for the GPU it runs on.

FP8: a GPU with FP8 tensor cores (compute capability 8.9 or newer) also gets an "fp8" rate, measured
with torch._scaled_mm (e4m3 x e4m3, per-tensor scales, bf16 out), and tasks whose dtype is an fp8
type count their matrix FLOPs against it (`matmul_rate`). A profile without one (measured before it
existed) gives fp8 tasks twice its bf16/fp16 rate: FP8 tensor cores do twice the work of 16-bit ones
on every GPU that has them (Ada, Hopper, Blackwell), so that stands for the missing measurement."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import torch

from benchmark.host import slugify

DEVICES_DIR = Path(__file__).parent.parent / "devices"
MATMUL_KEYS = ("float32", "tf32", "bfloat16", "float16")  # float32 means full fp32, TF32 off
OPTIONAL_MATMUL_KEYS = ("fp8",)  # only where the GPU has the units (FP8: compute capability 8.9+)
FP8_DTYPES = ("float8_e4m3fn", "float8_e5m2")  # task dtypes whose matrix work runs on FP8 tensor cores
FP8_OVER_16BIT = 2.0  # FP8 tensor-core rate over the bf16/fp16 one, where a profile has no fp8 rate
FP8_CAPABILITY = (8, 9)
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class DeviceProfile:
    gpu: str  # the name torch reports, e.g. "NVIDIA H200"
    bandwidth: float  # peak device-memory bandwidth in bytes/s (a copy counts read + write)
    matmul: dict[
        str, float
    ]  # peak dense matrix rate in FLOP/s, keyed by MATMUL_KEYS (+ OPTIONAL_MATMUL_KEYS)
    measured: str  # ISO date of the measurement
    method: str  # how it was measured, in words
    torch: str = ""
    cuda: str = ""

    @property
    def slug(self) -> str:
        return slugify(self.gpu)

    def matmul_rate(self, dtype: str) -> float:
        """Peak matrix rate for a task dtype; fp32 tasks run with TF32 off, so they get the fp32 rate.
        fp8 tasks get the FP8 tensor-core rate, whatever their reference computes in (FP8 task
        references dequantize and multiply in fp32, which a kernel need not do): the fastest rate
        their matrix work can run at, so the floor stays a floor."""
        if dtype in FP8_DTYPES:
            return self.matmul.get("fp8") or FP8_OVER_16BIT * max(
                self.matmul["bfloat16"], self.matmul["float16"]
            )
        key = {"float32": "float32", "bfloat16": "bfloat16", "float16": "float16"}.get(dtype, "float32")
        return self.matmul[key]

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> DeviceProfile:
        missing = [k for k in MATMUL_KEYS if k not in d.get("matmul", {})]
        if missing:
            raise ValueError(f"device profile for {d.get('gpu')!r} lacks matmul rates for {missing}")
        return cls(**d)


def save_profile(profile: DeviceProfile, directory: Path = DEVICES_DIR) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{profile.slug}.json"
    path.write_text(json.dumps(profile.to_dict(), indent=2) + "\n")
    return path


def load_profile(gpu_name: str, directory: Path = DEVICES_DIR) -> DeviceProfile | None:
    """The stored profile of a GPU model, or None when it has not been measured."""
    path = directory / f"{slugify(gpu_name)}.json"
    if not path.is_file():
        return None
    return DeviceProfile.from_dict(json.loads(path.read_text()))


def load_profiles(directory: Path = DEVICES_DIR) -> dict[str, DeviceProfile]:
    if not directory.is_dir():
        return {}
    profiles = (DeviceProfile.from_dict(json.loads(p.read_text())) for p in sorted(directory.glob("*.json")))
    return {p.slug: p for p in profiles}


def _best_ms(fn: Callable[[], object], device: torch.device, repeats: int, inner: int) -> float:
    """Best per-call time over `repeats` timed batches of `inner` calls, after one warm-up batch."""
    cuda = device.type == "cuda"
    best = float("inf")
    for r in range(repeats + 1):
        if cuda:
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            torch.cuda.synchronize(device)
            start.record()
            for _ in range(inner):
                fn()
            end.record()
            end.synchronize()
            ms = start.elapsed_time(end) / inner
        else:
            t0 = time.perf_counter()
            for _ in range(inner):
                fn()
            ms = (time.perf_counter() - t0) * 1e3 / inner
        if r > 0:  # the first batch warms up clocks, caches and library heuristics
            best = min(best, ms)
    return best


def measure_bandwidth(device: torch.device, nbytes: int, repeats: int) -> float:
    """Bytes/s of a device-to-device copy of `nbytes`, counting the read and the write."""
    src = torch.randn(nbytes // 4, device=device)
    dst = torch.empty_like(src)
    ms = _best_ms(lambda: dst.copy_(src), device, repeats, inner=5)
    return 2 * src.nbytes / (ms * 1e-3)


def measure_matmul(device: torch.device, key: str, sizes: tuple[int, ...], repeats: int) -> float:
    """FLOP/s of square matmuls of random data, best over sizes; `key` picks the dtype and TF32 mode."""
    if key == "fp8":
        return measure_fp8_matmul(device, sizes, repeats)
    dtype = {
        "float32": torch.float32,
        "tf32": torch.float32,
        "bfloat16": torch.bfloat16,
        "float16": torch.float16,
    }[key]
    saved = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = key == "tf32"
    try:
        best = 0.0
        for n in sizes:
            a, b = (
                torch.randn(n, n, device=device, dtype=dtype),
                torch.randn(n, n, device=device, dtype=dtype),
            )
            c = torch.empty(n, n, device=device, dtype=dtype)
            ms = _best_ms(lambda a=a, b=b, c=c: torch.matmul(a, b, out=c), device, repeats, inner=3)
            best = max(best, 2 * n**3 / (ms * 1e-3))
            del a, b, c
        return best
    finally:
        torch.backends.cuda.matmul.allow_tf32 = saved


def measure_fp8_matmul(device: torch.device, sizes: tuple[int, ...], repeats: int) -> float:
    """FLOP/s of square e4m3 x e4m3 products through torch._scaled_mm (per-tensor scales, bf16 out,
    the second operand column-major as cuBLAS's FP8 GEMM wants it), best over sizes."""
    scale = torch.ones((), device=device)
    best = 0.0
    for n in sizes:
        a = torch.randn(n, n, device=device).to(torch.float8_e4m3fn)
        b = torch.randn(n, n, device=device).to(torch.float8_e4m3fn).t()

        def product(a=a, b=b):
            return torch._scaled_mm(a, b, scale_a=scale, scale_b=scale, out_dtype=torch.bfloat16)

        ms = _best_ms(product, device, repeats, inner=3)
        best = max(best, 2 * n**3 / (ms * 1e-3))
        del a, b
    return best


def has_fp8(device: torch.device) -> bool:
    return device.type == "cuda" and torch.cuda.get_device_capability(device) >= FP8_CAPABILITY


def measure_profile(
    device: str = "cuda",
    copy_bytes: int = 2**30,
    sizes: tuple[int, ...] = (4096, 8192, 16384),
    fp32_sizes: tuple[int, ...] = (4096, 8192),
    repeats: int = 5,
) -> DeviceProfile:
    """Measure the current device; the defaults take a few seconds on a data-centre GPU."""
    dev = torch.device(device)
    if dev.type == "cuda":
        dev = torch.device("cuda", torch.cuda.current_device() if dev.index is None else dev.index)
        name = torch.cuda.get_device_name(dev)
    else:
        name = "cpu"
    log.info("profiling %s", name)
    bandwidth = measure_bandwidth(dev, copy_bytes, repeats)
    keys = MATMUL_KEYS + (("fp8",) if has_fp8(dev) else ())
    matmul = {
        key: measure_matmul(dev, key, fp32_sizes if key in ("float32", "tf32") else sizes, repeats)
        for key in keys
    }
    method = (
        f"best of {repeats} timed batches: device copy of {copy_bytes / 2**30:g} GiB (read + write bytes); "
        f"square matmuls of random data, n in {list(sizes)} ({list(fp32_sizes)} for fp32/tf32)"
        + ("; fp8: e4m3 x e4m3 through torch._scaled_mm" if "fp8" in matmul else "")
    )
    return DeviceProfile(
        gpu=name,
        bandwidth=bandwidth,
        matmul=matmul,
        measured=dt.datetime.now(dt.UTC).date().isoformat(),
        method=method,
        torch=torch.__version__,
        cuda=str(torch.version.cuda),
    )
