"""A task module bound to a device, with the harness's conventions for one sample: fp32 pinned to
fp32, models and inputs built on the device from fixed seeds, the seeds of every input set a
sample is checked and timed on, and the reference timed rotating through its timing sets. The
evaluation child (benchmark.evaluate.worker), the task validator and the dataset builder share them, so a
task is checked and measured the same way everywhere."""

from __future__ import annotations

import base64
import contextlib
from collections.abc import Callable

import torch
from torch.overrides import TorchFunctionMode

from benchmark.evaluate.timing import Timer, TimingConfig
from benchmark.verdict import TimingStats

N_TIMING_SETS = 3


def pin_precision() -> None:
    """fp32 means fp32: no TF32 or reduced-precision reductions for the reference or the candidate."""
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction = False
    torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction = False
    torch.set_float32_matmul_precision("highest")


def _names_cuda(value) -> bool:
    return isinstance(value, str | torch.device) and torch.device(value).type == "cuda"


class CudaToDevice(TorchFunctionMode):
    """`.cuda()`, `.to("cuda")` and `device="cuda"` land on `device` instead: KernelBench-format task
    files often create their inputs and weights with `.cuda()`, and on a CPU run they belong on the
    CPU like everything else."""

    def __init__(self, device: torch.device):
        super().__init__()
        self.device = device

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = dict(kwargs or {})
        if func is torch.Tensor.cuda:
            return args[0].to(self.device)
        if _names_cuda(kwargs.get("device")):
            kwargs["device"] = self.device
        if func is torch.Tensor.to:
            args = tuple(self.device if _names_cuda(a) else a for a in args)
        return func(*args, **kwargs)


# What torch says when CUDA is asked of a process that has none.
_NO_CUDA = (
    "Torch not compiled with CUDA enabled",
    "Found no NVIDIA driver",
    "No CUDA GPUs are available",
    "CUDA driver initialization failed",
)


def cuda_on_cpu(error: BaseException, device: torch.device) -> str | None:
    """The cause, in one line, of a task failing on the CPU because its own code asks for CUDA where
    CudaToDevice does not reach (its forward, or its module body); None for any other failure."""
    if device.type != "cpu" or not any(text in str(error) for text in _NO_CUDA):
        return None
    return (
        "the task asks for CUDA in its own code (.cuda() or device='cuda' in Model.forward or at import), "
        "which a CPU run cannot give it: run it with --device cuda, or place tensors with x.device"
    )


class TaskProgram:
    """A task module bound to a device: seeded inputs and models, built directly on the device.
    On the CPU, what the task's input and model builders ask of CUDA lands on the CPU (CudaToDevice)."""

    def __init__(self, module, device: torch.device):
        self.module = module
        self.device = device

    @contextlib.contextmanager
    def _on_device(self):
        """Factory calls without a device build on this one; on the CPU, CUDA placements too."""
        with (
            self.device,
            CudaToDevice(self.device) if self.device.type == "cpu" else contextlib.nullcontext(),
        ):
            yield

    def _to_device(self, values: list) -> list:
        return [v.to(self.device) if isinstance(v, torch.Tensor) else v for v in values]

    def inputs(self, seed: int, alt: int | None = None, scale: float = 1.0) -> list:
        torch.manual_seed(seed)
        with self._on_device():
            values = self.module.get_inputs() if alt is None else self.module.get_alt_inputs()[alt]
        values = self._to_device(list(values))
        if scale != 1.0:
            values = [
                v * scale if isinstance(v, torch.Tensor) and v.is_floating_point() else v for v in values
            ]
        return values

    def n_alt(self) -> int:
        fn = getattr(self.module, "get_alt_inputs", None)
        if fn is None:
            return 0
        torch.manual_seed(0)
        with self._on_device():
            return len(fn())

    def build(self, cls, seed: int) -> torch.nn.Module:
        init, _ = self.init_values(seed)
        with self._on_device():
            model = cls(*init)
        return model.to(self.device) if isinstance(model, torch.nn.Module) else model

    def init_values(self, seed: int) -> tuple[list, dict[str, str]]:
        """The constructor's arguments under `seed`, and the random state right after them (base64
        of torch's CPU state, and the device's on CUDA): a model built from that state draws the same
        parameters as `build` gives it, in any process (benchmark.evaluate.candidate_server)."""
        torch.manual_seed(seed)
        with self._on_device():
            init = self._to_device(list(self.module.get_init_inputs()))
        state = {"cpu": base64.b64encode(torch.get_rng_state().numpy().tobytes()).decode()}
        if self.device.type == "cuda":
            cuda = torch.cuda.get_rng_state(self.device)
            state["cuda"] = base64.b64encode(cuda.numpy().tobytes()).decode()
        return init, state


def clone_args(values: list) -> list:
    return [v.clone() if isinstance(v, torch.Tensor) else v for v in values]


def detach_outputs(out):
    if isinstance(out, torch.Tensor):
        return out.detach().clone()
    if isinstance(out, list | tuple):
        return type(out)(detach_outputs(o) for o in out)
    return out


def trial_plan(n_trials: int, n_alt: int, seed: int, magnitude: float) -> list[tuple[int, int | None, float]]:
    """(seed, alternate-shape index, input scale) per correctness trial: fresh seeds, then each
    alternate shape, then one large-magnitude trial that exposes precision downgrades."""
    plan: list[tuple[int, int | None, float]] = [(seed + 1000 + i, None, 1.0) for i in range(n_trials)]
    plan += [(seed + 2000 + j, j, 1.0) for j in range(n_alt)]
    if magnitude and magnitude != 1.0:
        plan.append((seed + 3000, None, magnitude))
    return plan


def timing_seeds(seed: int) -> list[int]:
    return [seed + 5000 + k for k in range(N_TIMING_SETS)]


def restate_seeds(seed: int) -> list[int]:
    """Inputs for the stateful-output check: one written into a seen tensor, one at a seen address."""
    return [seed + 7000, seed + 7001]


def model_arm(
    model, sets: list, keep: dict | None = None, slot: list | None = None
) -> tuple[Callable[[int], object], Callable[[int], None]]:
    """(call, prepare) timing `model` rotating through the timing input `sets`, each cloned fresh
    (untimed) into `slot` before its call, the slot's previous clone freed first, so the caching
    allocator can hand the new clone the block the last one held. With `keep`, the output of each
    set's last call is kept for a recheck."""
    current = [] if slot is None else slot

    def prepare(i: int) -> None:
        current.clear()
        current.extend(clone_args(sets[i % len(sets)]))

    def call(i: int) -> object:
        out = model(*current)
        if keep is not None:
            keep[i % len(sets)] = out
        return out

    return call, prepare


def paired_arms(
    reference, candidate, sets: list, keep: dict | None = None
) -> list[tuple[Callable, Callable]]:
    """The two arms of an interleaved timing, sharing one input slot: each clone is made just after
    the other arm's was freed, so the caching allocator hands both calls of a round the same block
    wherever no other block of its size is free then (an input larger than each output, as a
    reduction's). With a slot each, the arms read different blocks (the reference A and B in turn,
    the candidate B and C, when each clone was made before the last was freed), and where a large
    input's read speed depended on its block, that would bias the ratio."""
    slot: list = []
    return [model_arm(reference, sets, slot=slot), model_arm(candidate, sets, keep=keep, slot=slot)]


def time_model(
    timer: Timer, program: TaskProgram, model, seed: int, config: TimingConfig | None = None
) -> TimingStats:
    with torch.no_grad():
        return timer.time(*model_arm(model, [program.inputs(s) for s in timing_seeds(seed)]), config=config)
