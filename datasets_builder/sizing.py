"""Choosing task sizes: large enough that the eager reference takes the suite's intended time on the
target GPU (0.1-50 ms, aiming near `target_ms`), small enough to fit its memory bound.

The estimate is the eager program's cost, op by op: the bytes each operator moves at the copy
bandwidth, or its matrix FLOPs at the dtype's matrix rate, whichever is larger, plus a fixed launch
overhead. It is an estimate; the validator measures the real time on the GPU and rejects a task
outside the bounds, so the generators only need to land inside them reliably."""

from __future__ import annotations

from dataclasses import dataclass, field

MATMUL_RATE = {"float32": 45e12, "bfloat16": 600e12, "float16": 600e12}  # FLOP/s eager reaches on an H200


@dataclass(frozen=True)
class SizeConfig:
    target_ms: float = 0.6  # intended eager time of a task on the GPU
    bandwidth: float = 3.0e12  # bytes/s eager kernels reach (below the 4.3 TB/s peak copy)
    launch_ms: float = 0.006  # fixed cost per eager operator
    max_bytes: int = 3 * 2**30  # inputs + parameters + the live intermediates
    widths: tuple[int, ...] = (
        96,
        256,
        384,
        512,
        768,
        1000,
        1024,
        1536,
        2048,
        3072,
        4096,
    )  # feature sizes (D, H)
    batches: tuple[int, ...] = (2, 4, 8, 16)  # leading size of 3-d tasks
    min_rows: int = 16
    max_rows: int = 1 << 21
    row_multiple: int = 16
    alt_rows: tuple[int, ...] = (37, 130)  # the alternate input sets' row counts (odd, not powers of two)
    alt_batches: tuple[int, ...] = (2, 1)
    alt_widths: tuple[int, ...] = (77, 130)  # feature sizes of alternate sets, where the width is free
    matmul_rate: dict[str, float] = field(default_factory=lambda: dict(MATMUL_RATE))

    def __post_init__(self):
        if self.target_ms <= 0:
            raise ValueError("size target_ms must be positive")
        if not self.widths or not self.batches:
            raise ValueError("size widths and batches must not be empty")
        if min(self.batches) < 2 or self.min_rows < 2 or min(self.widths) < 2:
            raise ValueError(
                "full sizes must be at least 2 (a size of 1 is specialised by compilers, and the "
                "alternate input sets change it)"
            )
        if len(self.alt_rows) != len(self.alt_batches):
            raise ValueError(
                "alt_rows and alt_batches must have the same length (one entry per alternate set)"
            )


@dataclass(frozen=True)
class Cost:
    """Cost of one forward as a linear function of the row count: time(rows) = per_row * rows + fixed."""

    per_row_s: float
    fixed_s: float
    bytes_per_row: float
    fixed_bytes: float

    def ms(self, rows: int) -> float:
        return (self.per_row_s * rows + self.fixed_s) * 1e3


def op_seconds(nbytes: float, flops: float, dtype: str, cfg: SizeConfig) -> float:
    return max(nbytes / cfg.bandwidth, flops / cfg.matmul_rate.get(dtype, MATMUL_RATE["float32"]))


def solve_rows(cost: Cost, cfg: SizeConfig) -> int:
    """Rows that bring the estimate to the target, within the memory bound and the row limits."""
    rows = (cfg.target_ms * 1e-3 - cost.fixed_s) / cost.per_row_s if cost.per_row_s > 0 else cfg.max_rows
    if cost.bytes_per_row > 0:
        rows = min(rows, (cfg.max_bytes - cost.fixed_bytes) / cost.bytes_per_row)
    rows = int(max(cfg.min_rows, min(rows, cfg.max_rows)))
    return (
        max(cfg.row_multiple, rows // cfg.row_multiple * cfg.row_multiple)
        if rows >= cfg.row_multiple
        else rows
    )
