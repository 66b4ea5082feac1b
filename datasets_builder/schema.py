"""The training dataset's rows, and where they are published: one schema for its four kinds of row
(sft, rft, repair, rl_prompts, one configuration each); a column a kind does not use is null.

The SFT trainer's contract (trainers/data.py) is the `messages` column (chat turns; the last
assistant turn holds the answer) plus optional task_id, level, source and backend; the other
columns are for filtering, weighting and analysis:

  messages      list of {role, content}   the conversation (rl_prompts: system and user only)
  task_id       str      the synthesized task (its program is `task_code`)
  level         int      1 variants, 2 compositions, 3 blocks (imported tasks: their own)
  family        str      generator family, e.g. variant/activation, compose, block/attention
  source        str      generation:TEACHER, repair:model, repair:mutation, prompt
  backend       str      kernel language of the answer (triton, cuda)
  teacher       str      inductor, model:NAME, ...
  dtype         str      the task's dtype
  task_code     str      the task program (KernelBench format)
  solution      str      the verified candidate file (null for rl_prompts)
  candidate_id  str      id of the solution in the build's verdict journal
  speedup       float    eager time / solution time, where the solution was timed (else null)
  verified      bool     passed the strict verifier (every sft/rft/repair row does)
  cluster, clusters, pool_size, selected, draw_rank   the RFT pool (rft rows; sft rows carry theirs)
  turns         int      assistant turns in the conversation
  failed_status str      repair rows: the verdict of the failed attempt
  flops, bytes, sol_ms, reference_ms   the task's work, floor and eager time where measured
  metadata      str      JSON of the task's tensor metadata (shapes, strides, dtypes)
  teacher_pass_rate float  rl_prompts: fraction of the task's teacher candidates that passed"""

from __future__ import annotations

import datasets

# The repository scheme (docs/datasets.md, "Outputs"; the trainers' recipes read it): one Hub dataset
# repository with one configuration per kind of row and the task programs as configuration `tasks`,
# each with the single split `train`; `sft` is the default configuration:
#     load_dataset("solbench/kernels", "sft", split="train")
#     load_dataset("solbench/kernels", "rl_prompts", split="train")
REPO = "solbench/kernels"
CONFIGS = ("sft", "rft", "repair", "rl_prompts")
DEFAULT_CONFIG = "sft"
TASKS_CONFIG = "tasks"
SPLIT = "train"
MESSAGE = {"role": datasets.Value("string"), "content": datasets.Value("string")}
FEATURES = datasets.Features(
    {
        "messages": datasets.List(MESSAGE),
        "task_id": datasets.Value("string"),
        "level": datasets.Value("int64"),
        "family": datasets.Value("string"),
        "source": datasets.Value("string"),
        "backend": datasets.Value("string"),
        "teacher": datasets.Value("string"),
        "dtype": datasets.Value("string"),
        "task_code": datasets.Value("string"),
        "solution": datasets.Value("string"),
        "candidate_id": datasets.Value("string"),
        "speedup": datasets.Value("float64"),
        "verified": datasets.Value("bool"),
        "cluster": datasets.Value("int64"),
        "clusters": datasets.Value("int64"),
        "pool_size": datasets.Value("int64"),
        "selected": datasets.Value("bool"),
        "draw_rank": datasets.Value("int64"),
        "turns": datasets.Value("int64"),
        "failed_status": datasets.Value("string"),
        "flops": datasets.Value("int64"),
        "bytes": datasets.Value("int64"),
        "sol_ms": datasets.Value("float64"),
        "reference_ms": datasets.Value("float64"),
        "metadata": datasets.Value("string"),
        "teacher_pass_rate": datasets.Value("float64"),
    }
)
COLUMNS = tuple(FEATURES)


def row(**values) -> dict:
    """A full row: every column present, unknown columns refused (a typo must not vanish silently)."""
    unknown = set(values) - set(COLUMNS)
    if unknown:
        raise ValueError(f"unknown dataset columns {sorted(unknown)}; the schema has {list(COLUMNS)}")
    out = dict.fromkeys(COLUMNS)
    out.update(values)
    out["messages"] = [{"role": m["role"], "content": m["content"]} for m in out["messages"] or []]
    return out
