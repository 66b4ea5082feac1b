"""The build configuration: typed dataclasses read from YAML (configs/datasets/*.yaml).

Every section maps onto the dataclass of the module that does the work (sizing.SizeConfig,
synth_variants.VariantConfig, ...). pydantic validates a file against them: unknown keys are errors
that name the section and the keys it knows, so a misspelt option never silently keeps its default,
and a value of the wrong type is an error that names its field."""

from __future__ import annotations

import dataclasses
import json
import typing
from dataclasses import dataclass, field
from pathlib import Path

import pydantic
import yaml

from benchmark.evaluate.harness import EvalConfig
from datasets_builder.decontam import MODEL_THRESHOLD, PROGRAM_THRESHOLD
from datasets_builder.importer import ImportConfig
from datasets_builder.prior import DatasetSource
from datasets_builder.prompting import PromptOptions
from datasets_builder.rft import DEFAULT_THRESHOLD as RFT_THRESHOLD
from datasets_builder.schema import REPO
from datasets_builder.sizing import SizeConfig
from datasets_builder.synth_blocks import BlockConfig
from datasets_builder.synth_compose import ComposeConfig
from datasets_builder.synth_variants import VariantConfig

DTYPES = ("auto", "float32", "bfloat16", "float16")  # a local model's weights (BackendOptions.dtype)


class ConfigError(ValueError):
    """A build configuration that cannot be used; the message says what to change."""


@dataclass(frozen=True)
class SynthesisConfig:
    variants: VariantConfig = field(default_factory=lambda: VariantConfig(count=0))
    compose: ComposeConfig = field(default_factory=lambda: ComposeConfig(count=0))
    blocks: BlockConfig = field(default_factory=lambda: BlockConfig(count=0))
    imports: tuple[ImportConfig, ...] = ()
    datasets: tuple[DatasetSource, ...] = ()  # the tasks of earlier revisions (prior.py), as they were


@dataclass(frozen=True)
class ScreenConfig:
    program_threshold: float = PROGRAM_THRESHOLD  # decontamination, whole-file view
    model_threshold: float = MODEL_THRESHOLD  # decontamination, Model-class view
    suite: str | None = None  # the benchmark suite to decontaminate against (None: the built-in one)


@dataclass(frozen=True)
class ValidationStageConfig:
    fast: bool = False  # the validator's fast mode (alternate shapes, no time bounds): for CPU builds
    timing_seconds: float = 0.05  # timing budget of each reference (time bounds on the GPU)
    timeout_s: float = 180.0  # per task: validation, metadata and teacher together
    workers: int = 0  # worker processes for validation and offline teachers (0: in this process)


@dataclass(frozen=True)
class TeacherConfig:
    kind: str = (
        "inductor"  # inductor | model | none (tasks and prompts only, or a teacher object given in code)
    )
    variants: tuple[str, ...] = ("default",)  # Inductor variants (inductor_capture.VARIANTS)
    model: str | None = None  # model spec for kind=model: openai:NAME, hf:PATH, replay:FILE.jsonl
    samples: int = 4  # answers per task (model)
    levels: tuple[int, ...] = ()  # the levels whose tasks the model answers (empty: all)
    temperature: float = 0.7
    top_p: float = 0.95
    max_tokens: int = 8192
    turns: int = 2  # answer turns per sample, with verifier feedback between them (model)
    base_url: str | None = None
    api_key_env: str = "OPENAI_API_KEY"
    concurrency: int = 8
    dtype: str = "auto"  # a local (hf:) model's weights: auto | float32 | bfloat16 | float16
    seed: int | None = 0
    # an earlier revision's folder (prior.py): its verified solutions are verified again as candidates
    # of their tasks, beside this teacher's, so the RFT pool holds both
    prior: str | None = None

    def __post_init__(self):
        if self.kind not in ("inductor", "model", "none"):
            raise ConfigError(f"teacher.kind must be inductor, model or none, not {self.kind!r}")
        if self.kind == "model" and not self.model:
            raise ConfigError(
                "teacher.kind is model but teacher.model is not set (e.g. openai:NAME or hf:PATH)"
            )
        if self.turns < 1 or self.samples < 1:
            raise ConfigError("teacher.turns and teacher.samples must be at least 1")
        if self.dtype not in DTYPES:
            raise ConfigError(f"teacher.dtype must be one of {', '.join(DTYPES)}, not {self.dtype!r}")


# the EvalConfig settings a build config sets under keys of its own: setting -> key
OWN_EVAL_SETTINGS = {
    "device": "device",
    "trials": "verify.trials",
    "measure": "verify.measure",
    "strict": "verify.strict",
    "timeout_s": "verify.timeout_s",
    "baseline": "timing.baseline",
}


@dataclass(frozen=True)
class VerifyConfig:
    trials: int = EvalConfig.trials
    measure: bool = False  # time every candidate (slow); the timing stage times a subset instead
    strict: bool = True  # anti-cheat flags fail a candidate (keep on for real builds)
    timeout_s: float = EvalConfig.timeout_s
    lanes_per_device: int = 4  # concurrent executions per GPU (correctness only; timing uses 1)
    build_workers: int = 4
    # every other evaluation setting, by the benchmark's EvalConfig names (`timing` a mapping of its
    # own): seed, build_timeout_s, precompiled_header, cache_dir, timing.min_runs, ...
    eval: dict[str, typing.Any] = field(default_factory=dict)

    def __post_init__(self):
        twice = sorted(set(self.eval) & set(OWN_EVAL_SETTINGS))
        if "max_seconds" in (self.eval.get("timing") or {}):
            twice.append("timing.max_seconds")
        if twice:
            where = ", ".join(f"{k} (set {OWN_EVAL_SETTINGS.get(k, 'timing.max_seconds')})" for k in twice)
            raise ConfigError(f"verify.eval repeats settings that have a key of their own: {where}")
        try:
            EvalConfig.from_dict(self.eval)
        except (TypeError, ValueError) as e:
            raise ConfigError(f"verify.eval: {e}") from None


@dataclass(frozen=True)
class TimingStageConfig:
    subset: int = 16  # kept solutions re-verified with timing (0: none)
    max_seconds: float = 0.5  # timing budget per model and sample
    baseline: str = "eager"  # eager | compile


@dataclass(frozen=True)
class RFTConfig:
    m: int = 2  # training targets drawn per task
    threshold: float = RFT_THRESHOLD  # clustering: feature Jaccard that joins a cluster


@dataclass(frozen=True)
class RepairConfig:
    mutations_per_task: int = 1  # mutants of a verified solution per task (teachers without turns)
    max_tasks: int = 100  # tasks that get mutants


@dataclass(frozen=True)
class OutputConfig:
    name: str = "solbench-train"  # pretty name on the card
    repo: str = REPO  # the Hub repository it is published to, shown on the card (schema.py: the scheme)
    license: str = "apache-2.0"
    export_suite: bool = True  # also write the benchmark suite as its own dataset folder


@dataclass(frozen=True)
class BudgetConfig:
    minutes: float = 0.0  # stop starting new GPU work after this (0: no limit); outputs are still written
    reserve_s: float = 60.0  # time kept back for the last verdicts, timing and assembly
    target_tasks: int = 0  # stop once this many tasks have a kept solution (0: all)


@dataclass(frozen=True)
class BuildConfig:
    seed: int = 0
    device: str = "cpu"
    size: SizeConfig = field(default_factory=SizeConfig)
    synthesis: SynthesisConfig = field(default_factory=SynthesisConfig)
    screen: ScreenConfig = field(default_factory=ScreenConfig)
    validation: ValidationStageConfig = field(default_factory=ValidationStageConfig)
    teacher: TeacherConfig = field(default_factory=TeacherConfig)
    verify: VerifyConfig = field(default_factory=VerifyConfig)
    timing: TimingStageConfig = field(default_factory=TimingStageConfig)
    rft: RFTConfig = field(default_factory=RFTConfig)
    repair: RepairConfig = field(default_factory=RepairConfig)
    prompts: PromptOptions = field(default_factory=PromptOptions)
    output: OutputConfig = field(default_factory=OutputConfig)
    budget: BudgetConfig = field(default_factory=BudgetConfig)

    # pydantic validates on load: unknown keys are errors, and no scalar is coerced from another type
    # (2.0 is a float, "3" is not an int); the nested sections inherit this.
    __pydantic_config__ = pydantic.ConfigDict(extra="forbid", strict=True)

    def __post_init__(self):
        if self.device not in ("cpu", "cuda"):
            raise ConfigError(f"device must be cpu or cuda, not {self.device!r}")
        if self.teacher.kind == "inductor" and self.device != "cuda":
            raise ConfigError(
                "the Inductor teacher needs device: cuda (on a CPU, Inductor emits C++ kernels, not Triton); "
                "use teacher.kind: model for a CPU build"
            )

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)


def _section_keys(loc: tuple) -> list[str]:
    """The keys the section at `loc` (a path of field names) knows, for an unknown-key message."""
    cls = BuildConfig
    for name in loc:
        hint = typing.get_type_hints(cls).get(name)
        inner = [t for t in (hint, *typing.get_args(hint)) if dataclasses.is_dataclass(t)]
        if not inner:
            break
        cls = inner[0]
    return sorted(f.name for f in dataclasses.fields(cls))


def _explain(error: dict, where: str) -> str:
    """One pydantic error as a sentence that names the field (FILE.section.key) and what is wrong."""
    loc = tuple(str(part) for part in error["loc"])
    if error["type"] in ("unexpected_keyword_argument", "extra_forbidden"):
        known = _section_keys(tuple(p for p in loc[:-1] if not p.isdigit()))
        return f"unknown keys [{loc[-1]!r}] in {'.'.join((where, *loc[:-1]))}; it knows {known}"
    if error["type"] == "value_error":  # a __post_init__ check, whose message says what to set
        return f"{'.'.join((where, *loc))}: {error['ctx']['error']}"
    return f"{'.'.join((where, *loc))}: {error['msg'].lower()}, got {error['input']!r}"


_VALIDATOR = pydantic.TypeAdapter(BuildConfig)


def load_config(path: str | Path, overrides: dict | None = None) -> BuildConfig:
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"build config {path} does not exist")
    data = yaml.safe_load(path.read_text()) or {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: a build config is a YAML mapping")
    data.update(overrides or {})
    try:
        # Validated as JSON data (what YAML holds), so lists fill tuple fields while scalars stay strict.
        return _VALIDATOR.validate_json(json.dumps(data))
    except pydantic.ValidationError as e:
        raise ConfigError("; ".join(_explain(error, path.name) for error in e.errors())) from None
    except TypeError as e:  # a YAML value JSON cannot hold (a date, a set)
        raise ConfigError(f"{path.name}: {e}") from None
