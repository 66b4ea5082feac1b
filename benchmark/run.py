"""Run a model over the suite: `python -m benchmark.run --model reference --level 1`.

Models: `reference` (the task's own PyTorch), `replay:FILE.jsonl` (recorded completions),
`openai:MODEL` (any OpenAI-compatible server: vLLM, SGLang, hosted APIs; --base-url),
`hf:FOLDER_OR_HUB_ID` (local transformers generation, on --device).

    python -m benchmark.run --model openai:Qwen/Qwen3-8B --base-url http://127.0.0.1:8000/v1 --samples 4
    python -m benchmark.run --model hf:./my-checkpoint --dtype bfloat16 --turns 3

Rerunning the same command resumes: samples (and turns) already in OUT/results.jsonl are skipped,
and completions already generated come from the completion cache without a request. Ctrl-C stops a
run (exit status 130) and prints the command that resumes it."""

from __future__ import annotations

import argparse
import json
import logging
import os
import shlex
import signal
import sys
from pathlib import Path

from benchmark.evaluate.arguments import add_evaluation_arguments, eval_config
from benchmark.evaluate.device_check import require_device
from benchmark.flags import SUITE_HELP, add_api_key_env, add_out, add_quiet
from benchmark.host import default_device
from benchmark.models.base import BackendError, BackendOptions, default_completion_cache
from benchmark.prompts import BACKENDS, BUILTIN, PromptConfig
from benchmark.runner import RunConfig, SamplingParams, format_table, run


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m benchmark.run",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    g = p.add_argument_group("what to run")
    g.add_argument(
        "--model",
        required=True,
        help="reference | replay:FILE.jsonl | openai:MODEL | hf:FOLDER_OR_HUB_ID | other registered backends",
    )
    g.add_argument("--suite", default=None, help=SUITE_HELP)
    g.add_argument("--level", type=int, action="append", default=[], help="level to run (repeatable)")
    g.add_argument("--tasks", action="append", default=[], help="glob on task id or file name (repeatable)")
    g.add_argument(
        "--tag",
        "--tags",
        dest="tag",
        action="append",
        default=[],
        help="only tasks with this tag (repeatable)",
    )
    g = p.add_argument_group("sampling")
    g.add_argument("--samples", type=int, default=1, help="completions per task (K)")
    g.add_argument("--temperature", type=float, default=0.0)
    g.add_argument("--top-p", type=float, default=1.0)
    g.add_argument("--max-tokens", type=int, default=8192)
    g.add_argument("--seed", type=int, default=None, help="sampling seed, where the backend supports one")
    g.add_argument("--k", type=int, action="append", default=[], help="Pass@k to report (default 1)")
    g.add_argument(
        "--turns",
        type=int,
        default=1,
        help="at most this many turns per sample: a failed answer gets the harness's feedback and "
        "another try; a sample stops at its first pass",
    )
    g = p.add_argument_group("prompt (backends that take prompts: openai, hf)")
    g.add_argument(
        "--prompt",
        default="zero-shot",
        help=f"{' | '.join(BUILTIN)} | path of a jinja2 template (.j2), which may extend base.j2",
    )
    g.add_argument(
        "--backend",
        choices=tuple(BACKENDS),
        default="cuda",
        help="kernel language the prompt asks for: CUDA C++ (load_inline), Triton, raw CUDA C "
        "compiled at run time, or Helion (PyTorch's tile language, compiled to Triton)",
    )
    g.add_argument(
        "--gpu-block",
        nargs="?",
        const="auto",
        default=None,
        metavar="auto|PROFILE.json",
        help="describe the target GPU in the prompt: 'auto' reads this machine's CUDA device (and "
        "its measured profile, when there is one), or a JSON device description",
    )
    g.add_argument(
        "--reasoning",
        action="store_true",
        help="ask for the six-step reasoning scaffold (decomposition, scalar math, shapes, index "
        "mapping, boundaries, error pre-analysis) before the code",
    )
    g = p.add_argument_group("model access")
    g.add_argument(
        "--base-url", default=None, help="OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1"
    )
    add_api_key_env(g, default="OPENAI_API_KEY", secret="the API key of an openai: endpoint")
    g.add_argument(
        "--concurrency",
        type=int,
        default=8,
        help="requests in flight (openai), or generation batch size (hf)",
    )
    g.add_argument("--request-timeout", type=float, default=600.0, help="seconds per request (openai)")
    g.add_argument(
        "--max-retries",
        type=int,
        default=8,
        help="retries with exponential backoff on 429, 5xx, timeouts and dropped connections",
    )
    g.add_argument(
        "--dtype",
        choices=("auto", "float32", "bfloat16", "float16"),
        default="auto",
        help="weights dtype for hf (auto: the checkpoint's on GPU, float32 on CPU)",
    )
    g.add_argument(
        "--compile",
        action="store_true",
        help="hf on CUDA: generate with a static KV cache and the decoding step compiled (faster for long "
        "answers once compiled; each new batch shape compiles again, about half a minute)",
    )
    g.add_argument("--no-cache", action="store_true", help="neither read nor write the completion cache")
    g.add_argument(
        "--cache-dir",
        type=Path,
        default=None,
        help="completion cache (default: $SOLBENCH_CACHE/completions or ~/.cache/solbench/completions)",
    )
    g = p.add_argument_group("evaluation")
    add_evaluation_arguments(g)
    g.add_argument(
        "--gpus",
        default=None,
        help="comma-separated GPU indices to evaluate on, one timing lane each (default: all visible)",
    )
    g.add_argument(
        "--build-workers",
        type=int,
        default=None,
        help="CPU workers that compile candidates ahead of execution (default: cores - 1)",
    )
    g.add_argument(
        "--lanes",
        type=int,
        default=None,
        help="evaluations at once per device: their checks run side by side, their timings one at "
        "a time (default on CUDA: one per 2 CPU cores of each GPU's share of the host, 1 to 8; "
        "on CPU: 1)",
    )
    g = p.add_argument_group("output")
    add_out(
        g,
        "run folder (default: runs/MODEL, or runs/MODEL@SUITE for a suite other than the built-in one)",
    )
    add_quiet(g)
    return p


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    return build_parser().parse_args(argv)


def default_out(model: str, suite: str | None) -> Path:
    """runs/MODEL for the built-in suite, runs/MODEL@SUITE for another, so runs of one model over two
    suites never share a folder (a resume there would be refused)."""
    name = model
    if suite is not None:
        text = str(suite).removeprefix("hf:")
        name += "@" + (text if str(suite).startswith("hf:") else Path(text).expanduser().resolve().name)
    return Path("runs") / name.replace(":", "_").replace("/", "_")


def gpu_description(spec: str) -> dict:
    """The prompt's GPU block: a JSON file, or this machine's first CUDA device."""
    if spec != "auto":
        path = Path(spec)
        if not path.is_file():
            raise ValueError(f"--gpu-block: {path} does not exist (give 'auto' or a JSON device description)")
        try:
            return json.loads(path.read_text())
        except json.JSONDecodeError as e:
            raise ValueError(f"--gpu-block: {path} is not valid JSON ({e.msg})") from e
    import torch

    if not torch.cuda.is_available():
        raise ValueError("--gpu-block auto needs a CUDA device; pass a JSON device description instead")
    props = torch.cuda.get_device_properties(0)
    found = {
        "name": props.name,
        "multi_processor_count": props.multi_processor_count,
        "total_memory": props.total_memory,
    }
    try:
        from benchmark.evaluate.device_profile import load_profile

        profile = load_profile(props.name)
    except ImportError:
        profile = None
    return {**(profile.to_dict() if profile else {}), **found}


def config_from_args(args: argparse.Namespace, argv: list[str]) -> RunConfig:
    device = args.device or default_device()
    require_device(device)  # before any model, GPU description or run directory
    out = args.out or default_out(args.model, args.suite)
    return RunConfig(
        model=args.model,
        out=out,
        suite=args.suite,
        levels=tuple(args.level),
        tasks=tuple(args.tasks),
        tags=tuple(args.tag),
        sampling=SamplingParams(args.samples, args.temperature, args.top_p, args.max_tokens, args.seed),
        eval=eval_config(args, device),
        ks=tuple(sorted(set(args.k or [1]))),
        command=shlex.join(["python", "-m", "benchmark.run", *argv]),
        progress=not args.quiet,
        backend=BackendOptions(
            base_url=args.base_url,
            api_key_env=args.api_key_env,
            concurrency=args.concurrency,
            request_timeout=args.request_timeout,
            max_retries=args.max_retries,
            device=device,
            dtype=args.dtype,
            compile=args.compile,
            cache=not args.no_cache,
            cache_dir=args.cache_dir or default_completion_cache(),
        ),
        prompt=PromptConfig(
            name=args.prompt,
            backend=args.backend,
            reasoning=args.reasoning,
            gpu=gpu_description(args.gpu_block) if args.gpu_block else None,
        ),
        turns=args.turns,
        gpus=tuple(int(g) for g in args.gpus.split(",")) if args.gpus else None,
        build_workers=args.build_workers,
        lanes=args.lanes,
    )


def interrupted_message(argv: list[str], out: Path | None) -> str:
    """What Ctrl-C leaves the user with: where the finished samples are, and the command that resumes."""
    kept = f"the finished samples are in {out}/results.jsonl; " if out is not None else ""
    resume = shlex.join(["python", "-m", "benchmark.run", *argv])
    return f"interrupted: {kept}rerun the same command to resume:\n  {resume}"


class _Interrupts:
    """Ctrl-C once: stop starting samples, let those being evaluated finish and be recorded (the run
    unwinds through KeyboardInterrupt). Twice: stop at once; what is unrecorded is redone on resume."""

    def __init__(self, argv: list[str]):
        self.argv = argv
        self.out: Path | None = None
        self.count = 0

    def __call__(self, signum, frame) -> None:
        self.count += 1
        if self.count == 1:
            print(
                "\nstopping: the samples being evaluated finish and are recorded (Ctrl-C again to stop now)",
                file=sys.stderr,
            )
            raise KeyboardInterrupt
        print(interrupted_message(self.argv, self.out), file=sys.stderr, flush=True)
        os._exit(130)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    args = parse_args(argv)
    interrupts = _Interrupts(argv)
    previous = signal.signal(signal.SIGINT, interrupts)
    try:
        config = config_from_args(args, argv)
        interrupts.out = config.out
        summary = run(config)
    except (ValueError, FileNotFoundError, BackendError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(interrupted_message(argv, interrupts.out), file=sys.stderr)
        return 130
    finally:
        signal.signal(signal.SIGINT, previous)
    print(format_table(summary))
    print(f"results: {config.out}/results.jsonl")
    return 0


if __name__ == "__main__":
    sys.exit(main())
