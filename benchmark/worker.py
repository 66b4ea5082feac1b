"""The child side of an evaluation: `python -m benchmark.worker FD`, started by benchmark.sandbox.

Reads a job (JSON) from stdin, computes the reference outputs and times the reference *before*
the candidate's code is imported, then loads the candidate, checks it over several trials and
times it under the same protocol. The result is written, signed with the job's nonce, to the
private file descriptor FD; stdout and stderr belong to the candidate and are only logged."""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import sys
import time
import traceback
from dataclasses import asdict

import torch

from benchmark.candidate import CandidateLoadError, load_candidate
from benchmark.correctness import compare_outputs
from benchmark.task import import_file
from benchmark.timing import Timer, TimingConfig


def sign(nonce: str, body: str) -> str:
    return hmac.new(nonce.encode(), body.encode(), hashlib.sha256).hexdigest()


def environment(device: torch.device) -> dict[str, str]:
    env = {"torch": torch.__version__, "python": sys.version.split()[0], "device": str(device)}
    if device.type == "cuda":
        props = torch.cuda.get_device_properties(device)
        env.update(gpu=props.name, cuda=str(torch.version.cuda), sm=f"{props.major}.{props.minor}")
    return env


def pin_precision(device: torch.device) -> None:
    """fp32 means fp32: no TF32 or reduced-precision reductions for the reference or the candidate."""
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction = False
    torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction = False
    torch.set_float32_matmul_precision("highest")


class TaskProgram:
    """A task module bound to a device: seeded inputs and models, built directly on the device."""

    def __init__(self, module, device: torch.device):
        self.module = module
        self.device = device

    def _to_device(self, values: list) -> list:
        return [v.to(self.device) if isinstance(v, torch.Tensor) else v for v in values]

    def inputs(self, seed: int, alt: int | None = None) -> list:
        torch.manual_seed(seed)
        with self.device:
            values = self.module.get_inputs() if alt is None else self.module.get_alt_inputs()[alt]
        return self._to_device(list(values))

    def n_alt(self) -> int:
        fn = getattr(self.module, "get_alt_inputs", None)
        if fn is None:
            return 0
        torch.manual_seed(0)
        with self.device:
            return len(fn())

    def build(self, cls, seed: int) -> torch.nn.Module:
        torch.manual_seed(seed)
        with self.device:
            init = self._to_device(list(self.module.get_init_inputs()))
            model = cls(*init)
        return model.to(self.device) if isinstance(model, torch.nn.Module) else model


def clone_args(values: list) -> list:
    return [v.clone() if isinstance(v, torch.Tensor) else v for v in values]


def detach_outputs(out):
    if isinstance(out, torch.Tensor):
        return out.detach().clone()
    if isinstance(out, list | tuple):
        return type(out)(detach_outputs(o) for o in out)
    return out


def trial_plan(n_trials: int, n_alt: int, seed: int) -> list[tuple[int, int | None]]:
    """(seed, alt-index) per correctness trial: fresh seeds for every trial, then each alternate shape."""
    return [(seed + 1000 + i, None) for i in range(n_trials)] + [(seed + 2000 + j, j) for j in range(n_alt)]


def time_model(timer: Timer, program: TaskProgram, model, seed: int, n_sets: int = 3):
    """Time `model` rotating through `n_sets` input sets, cloned fresh (untimed) before each call."""
    sets = [program.inputs(seed + 5000 + k) for k in range(n_sets)]
    current: list = []

    def prepare(i: int) -> None:
        current[:] = clone_args(sets[i % n_sets])

    def call(i: int) -> None:
        model(*current)

    with torch.no_grad():
        return timer.time(call, prepare)


def evaluate(job: dict) -> dict:
    device = torch.device(job["device"])
    pin_precision(device)
    result: dict = {"status": None, "error": None, "flags": [], "phases": {}}
    t_start = time.monotonic()
    try:
        task_module = import_file(job["task_path"], "solbench_task")
    except BaseException as e:  # noqa: BLE001 - any failure of a task file is reported, not raised
        result.update(status="task_error", error=f"task {job['task_path']} failed to import: {e!r}")
        return result
    program = TaskProgram(task_module, device)
    result["env"] = environment(device)
    seed = job["seed"]
    atol, rtol = job.get("atol"), job.get("rtol")
    timing_cfg = TimingConfig(**job.get("timing", {}))

    # 1. Reference outputs and timings, before any candidate code exists in this process.
    plan = trial_plan(job["trials"], program.n_alt(), seed)
    try:
        ref_model = program.build(task_module.Model, seed)
        with torch.no_grad():
            ref_outputs = [detach_outputs(ref_model(*program.inputs(s, alt))) for s, alt in plan]
        timer = Timer(job["device"], timing_cfg) if job["measure"] else None
        if timer:
            result["reference_time"] = asdict(time_model(timer, program, ref_model, seed))
            if job.get("baseline") == "compile":
                compiled = torch.compile(ref_model)
                result["compile_time"] = asdict(time_model(timer, program, compiled, seed))
                del compiled
    except BaseException as e:  # noqa: BLE001
        result.update(status="task_error", error=f"reference failed: {e!r}\n{traceback.format_exc(limit=3)}")
        return result

    # 2. Load (and compile) the candidate.
    t0 = time.monotonic()
    try:
        model_cls = load_candidate(job["candidate_path"], job["build_dir"])
    except CandidateLoadError as e:
        result.update(status="compile_error", error=str(e))
        result["phases"] = {"compile_s": time.monotonic() - t0, "total_s": time.monotonic() - t_start}
        return result
    compile_s = time.monotonic() - t0

    # 3. Correctness over fresh seeds and alternate shapes.
    t0 = time.monotonic()
    checked = {"trials": len(plan), "passed": 0, "max_abs_err": 0.0, "max_rel_err": 0.0}
    try:
        model = program.build(model_cls, seed)
        for i, ((s, alt), ref_out) in enumerate(zip(plan, ref_outputs, strict=True)):
            with torch.no_grad():
                out = model(*program.inputs(s, alt))
            if device.type == "cuda":
                torch.cuda.synchronize()
            cmp = compare_outputs(ref_out, out, atol, rtol)
            checked["max_abs_err"] = max(checked["max_abs_err"], cmp.max_abs_err)
            checked["max_rel_err"] = max(checked["max_rel_err"], cmp.max_rel_err)
            if not cmp.ok:
                checked.update(first_failing_trial=i, detail=cmp.detail)
                break
            checked["passed"] += 1
    except BaseException as e:  # noqa: BLE001 - a candidate may raise anything
        result["correctness"] = checked
        result.update(status="runtime_error", error=format_candidate_error(e))
        result["phases"] = {
            "compile_s": compile_s,
            "correctness_s": time.monotonic() - t0,
            "total_s": time.monotonic() - t_start,
        }
        return result
    correctness_s = time.monotonic() - t0
    result["correctness"] = checked
    if checked["passed"] < checked["trials"]:
        result.update(status="incorrect", error=checked.get("detail"))
        result["phases"] = {"compile_s": compile_s, "correctness_s": correctness_s, "total_s": time.monotonic() - t_start}
        return result

    # 4. Timing, under the protocol the reference was timed with.
    t0 = time.monotonic()
    if timer:
        try:
            result["candidate_time"] = asdict(time_model(timer, program, model, seed))
        except BaseException as e:  # noqa: BLE001
            result.update(status="runtime_error", error="during timing: " + format_candidate_error(e))
    result["status"] = result["status"] or "pass"
    result["phases"] = {
        "compile_s": compile_s,
        "correctness_s": correctness_s,
        "timing_s": time.monotonic() - t0,
        "total_s": time.monotonic() - t_start,
    }
    return result


def format_candidate_error(e: BaseException) -> str:
    tb = traceback.extract_tb(e.__traceback__)
    frames = [f for f in tb if "candidate" in os.path.basename(f.filename)]
    where = f" (candidate line {frames[-1].lineno})" if frames else ""
    return f"{type(e).__name__}: {e}{where}"[:4000]


def main() -> None:
    fd = int(sys.argv[1])
    job = json.loads(sys.stdin.read())
    nonce = job.pop("nonce")
    # Keep the channel away from fds the candidate might guess, and close the original.
    channel = os.fdopen(os.dup(fd), "w")
    os.close(fd)
    try:
        result = evaluate(job)
    except BaseException as e:  # noqa: BLE001 - report harness failures rather than die silently
        result = {"status": "runtime_error", "error": f"harness error: {e!r}\n{traceback.format_exc()}"}
    body = json.dumps(result)
    channel.write(json.dumps({"body": body, "mac": sign(nonce, body)}) + "\n")
    channel.flush()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)  # skip atexit handlers and non-daemon threads a candidate may have left


if __name__ == "__main__":
    main()
