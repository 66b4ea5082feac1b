"""Teachers: where candidate solutions come from. A language model through any benchmark backend
(model.py), or TorchInductor's generated Triton kernels (inductor.py), which needs no model."""

from datasets_builder.teachers.base import Candidate, Skip

__all__ = ["Candidate", "Skip"]
