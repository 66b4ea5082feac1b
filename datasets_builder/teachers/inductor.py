"""The offline teacher that needs no language model: TorchInductor. For each task it compiles the
reference with Inductor on the GPU (inductor_capture), turns the generated Triton kernels and the
wrapper's launch sequence into a standalone ModelNew (inductor_translate), and hands the file on
as a candidate for the strict verifier, which judges it like any model's answer.

What it covers: everything Inductor lowers to its own Triton kernels (pointwise, reductions,
persistent reductions, scans, and matmuls through its Triton GEMM templates). A variant that meets a
library call or an ATen fallback is retried once without Inductor's pattern matcher (which is what
turns an explicit softmax(QK^T)V into a library attention kernel). What it skips, with the reason
recorded: graphs that still call library kernels (extern mm/convolution where no Triton
template applies), fallback ATen ops, graph breaks, grids and kernel kinds the translator does not
know. Needs a CUDA device: on a CPU, Inductor emits C++.

Like torch.compile, it compiles once per input signature the task's input sets have (the main
inputs and each alternate set: another rank, dtype or non-tensor value, or a size Inductor
specialised), and the candidate's forward dispatches on its inputs' signature to the launch
sequence compiled for it; inputs of any other signature raise. A task none of whose alternate sets
needs a compilation of its own translates exactly as a single compilation."""

from __future__ import annotations

import logging

from benchmark.task import Task
from datasets_builder.teachers.base import Candidate, Skip
from datasets_builder.teachers.inductor_capture import RETRY, RETRY_REASONS, VARIANTS, capture
from datasets_builder.teachers.inductor_translate import InductorSkip, translate_signatures

TEACHER = "inductor"
log = logging.getLogger(__name__)


class InductorTeacher:
    def __init__(self, variants: tuple[str, ...] = ("default",), device: str = "cuda", seed: int = 0):
        import torch

        unknown = set(variants) - set(VARIANTS)
        if unknown:
            raise ValueError(f"unknown Inductor variants {sorted(unknown)}; known: {sorted(VARIANTS)}")
        if not variants:
            raise ValueError("the Inductor teacher needs at least one variant")
        if not str(device).startswith("cuda") or not torch.cuda.is_available():
            raise RuntimeError(
                "the Inductor teacher needs a CUDA device: on a CPU, Inductor emits C++ kernels, not Triton"
            )
        self.variants = tuple(variants)
        self.device = device
        self.seed = seed

    def propose(self, task: Task, module) -> tuple[list[Candidate], list[Skip]]:
        """One candidate per variant whose output translates; a Skip for each that does not."""
        candidates, skips, seen = [], [], set()
        variants = list(self.variants)
        for variant in variants:
            try:
                records = capture(module, task.source, self.device, variant, seed=self.seed)
                result = translate_signatures(task.source, list(records), task.task_id)
            except InductorSkip as e:
                skips.append(Skip(task.task_id, TEACHER, variant, e.reason, e.detail[:500]))
                if e.reason in RETRY_REASONS and RETRY not in variants:
                    variants.append(RETRY)  # once per task, after the configured variants
                continue
            if result.code in seen:  # a variant that changed nothing for this task
                continue
            seen.add(result.code)
            candidates.append(
                Candidate(
                    task_id=task.task_id,
                    teacher=TEACHER,
                    code=result.code,
                    variant=variant,
                    sample=len(candidates),
                    info={
                        "kernels": list(result.kernels),
                        "launches": result.launches,
                        "heuristics": list(result.heuristics),
                        "signatures": result.signatures,
                        "torch": records[0].torch_version,
                        "triton": records[0].triton_version,
                        "configs_recorded": sum(len(r.configs) for r in records),
                    },
                )
            )
        return candidates, skips
