"""The exact reference: the task's own model run in higher precision (fp64 where any floating tensor
is fp32, fp32 where all are half types), against which benchmark.evaluate.correctness measures both the
eager result's error and the candidate's. Best effort: a task whose forward cannot run upcast
(a library kernel without fp64, dtype-specific code) simply has no exact reference, and the plain
comparison with the eager result applies."""

from __future__ import annotations

import copy
import logging

import torch

log = logging.getLogger(__name__)
HALF = (torch.float16, torch.bfloat16)


def _floats(values: list) -> list[torch.Tensor]:
    return [v for v in values if isinstance(v, torch.Tensor) and v.is_floating_point()]


def wide_dtype(model: object, inputs: list) -> torch.dtype | None:
    """fp64 when any floating input or parameter is fp32, fp32 when all are half types, else None."""
    state = [*model.parameters(), *model.buffers()] if isinstance(model, torch.nn.Module) else []
    dtypes = {t.dtype for t in _floats([*inputs, *state])}
    if not dtypes or torch.float64 in dtypes and len(dtypes) == 1:
        return None
    return torch.float32 if dtypes <= set(HALF) else torch.float64


class ExactReference:
    """An upcast copy of the reference model; `__call__` returns None where it cannot run."""

    def __init__(self, model: object, sample_inputs: list):
        self.dtype = wide_dtype(model, sample_inputs)
        self.model = None
        self.failure: str | None = None
        if self.dtype is None:
            self.failure = "no floating point inputs or parameters below fp64"
            return
        try:
            self.model = copy.deepcopy(model).to(self.dtype) if isinstance(model, torch.nn.Module) else model
        except Exception as e:  # noqa: BLE001 - any model that cannot be upcast keeps the plain rule
            self.failure = f"cannot upcast the model: {e!r}"[:300]

    def __call__(self, inputs: list) -> object:
        if self.model is None:
            return None
        wide = [
            v.to(self.dtype) if isinstance(v, torch.Tensor) and v.is_floating_point() else v for v in inputs
        ]
        previous = torch.get_default_dtype()
        try:
            if self.dtype == torch.float64:
                torch.set_default_dtype(torch.float64)
            with torch.no_grad():
                return self.model(*wide)
        except Exception as e:  # noqa: BLE001
            self.failure = f"the upcast forward failed: {e!r}"[:300]
            self.model = None
            return None
        finally:
            torch.set_default_dtype(previous)
