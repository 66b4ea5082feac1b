"""The verifier on a Ray cluster: build tasks on CPU nodes, execution tasks asking for one GPU each.

Verifier's API (submit, submit_request, verify, reward, close, a context manager; one
VerifierConfig) and its verdicts, since both call the harness's build() and evaluate(); only the
scheduling differs, so the runner, the dataset builder and the RL rewards take either. A node
reads nothing of the driver's disk: each Ray task carries the candidate's code and the whole Task
(source, id, level, metadata), and the node writes the task's source into its own cache before
evaluating (benchmark.task.stage_task). Each node keeps its own build cache (EvalConfig.cache_dir,
a folder each node creates on its own disk); an execution task whose node has not built the code
builds it itself.

On a cluster (solbench installed on every node):
    ray start --head --port=6379                      # on the head node
    ray start --address=HEAD_IP:6379                  # on every other node (GPU nodes too)
    RayVerifier(VerifierConfig(eval=EvalConfig(device="cuda")), address="auto")

Without a runtime already started by the caller, it starts one (joining `address`, or a local one
when that is None) and closing it shuts that down; a runtime the caller started is left running."""

from __future__ import annotations

import dataclasses
import threading
from concurrent.futures import Future

from benchmark.evaluate.harness import (
    BuildOutcome,
    Prepared,
    TaskError,
    build,
    build_verdict,
    cuda_arch_list,
    execute,
)
from benchmark.task import sha256_text, stage_task
from benchmark.verdict import Status, Verdict
from benchmark.verify.verifier import (
    Request,
    VerifierBase,
    VerifierConfig,
    prepare_request,
)


def _require_ray():
    try:
        import ray
    except ImportError as e:
        raise RuntimeError("the Ray executor needs ray: pip install 'solbench[ray]'") from e
    return ray


def build_env(jobs: int, arch: str | None) -> dict[str, str]:
    """What a build task adds to the build child's environment, as the local verifier's build pool
    does: ninja's jobs, and on CUDA the architecture of the GPUs that will run the code (a CPU node
    has no GPU of its own to take it from, and nvcc would otherwise compile for several)."""
    return {"MAX_JOBS": str(jobs), **({"TORCH_CUDA_ARCH_LIST": arch} if arch else {})}


def _gpu_arch() -> str | None:
    return cuda_arch_list()


def _build_task(code: str, config, jobs: int, arch: str | None) -> BuildOutcome:
    return build(code, config, build_env(jobs, arch))  # the build child sees no GPU (harness.build_env)


def _execute_task(built: BuildOutcome, prepared: Prepared, config) -> Verdict | str:
    import ray

    task = stage_task(prepared.task, config.cache_dir / "tasks")  # the driver's path may not exist here
    lock = None if config.device == "cuda" else str(config.cache_dir / "locks" / "device-cpu")
    try:
        verdict = execute(dataclasses.replace(prepared, task=task), config, built, device_lock=lock)
    except TaskError as e:
        return f"task_error:{e}"
    return dataclasses.replace(
        verdict, env={**verdict.env, "ray_node": ray.get_runtime_context().get_node_id()}
    )


class RayVerifier(VerifierBase):
    """`cuda_arch`: the GPUs' compute capability ("9.0") that CUDA builds target; None asks a GPU
    task once. `execution_resources`: Ray custom resources every execution task asks for, e.g.
    {"verifier": 1} to keep executions on nodes started with `--resources '{"verifier": 1}'`.
    `ray_init`: further arguments to ray.init, where this starts the runtime."""

    def __init__(
        self,
        config: VerifierConfig | None = None,
        address: str | None = None,
        *,
        cuda_arch: str | None = None,
        execution_resources: dict[str, float] | None = None,
        **ray_init,
    ):
        config = config or VerifierConfig()
        self.ray = ray = _require_ray()
        self._owns_runtime = not ray.is_initialized()
        if self._owns_runtime:
            ray.init(address=address, include_dashboard=False, log_to_driver=False, **ray_init)
        self.config = config
        cuda = config.eval.device == "cuda"
        gpus = 1 / config.lanes_per_device if cuda else 0  # lanes share a GPU as on one host
        resources = execution_resources or {}
        self._build = ray.remote(num_cpus=config.build_jobs)(_build_task)
        self._execute = ray.remote(num_cpus=1, num_gpus=gpus, resources=resources)(_execute_task)
        self._arch = None
        if cuda:  # a reference the build tasks wait on: asking the GPU does not block the caller
            self._arch = (
                cuda_arch or ray.remote(num_cpus=0, num_gpus=gpus, resources=resources)(_gpu_arch).remote()
            )
        self._built: dict = {}  # code hash -> its build task's reference
        self._pending: dict[Future, list] = {}  # each unanswered sample -> its Ray tasks
        self._lock = threading.Condition()
        self._closed = False
        self._cancelling = False

    # lifecycle
    def close(self, cancel_pending: bool = False) -> None:
        """Wait for every submitted sample (or, `cancel_pending`, cancel the Ray tasks not finished:
        their futures are cancelled), then shut down the runtime if this verifier started it."""
        with self._lock:
            self._closed = True
            self._cancelling = cancel_pending
            refs = [r for pair in self._pending.values() for r in pair] if cancel_pending else []
        for ref in refs:
            self.ray.cancel(ref)
        with self._lock:
            self._lock.wait_for(lambda: not self._pending)
        if self._owns_runtime and self.ray.is_initialized():
            self.ray.shutdown()
            self._owns_runtime = False

    # the API (with VerifierBase's)
    def submit_request(self, req: Request) -> Future[Verdict]:
        result: Future[Verdict] = Future()
        prepared = prepare_request(req, self.config.eval)
        if isinstance(prepared, Verdict):
            result.set_result(prepared)
            return result
        with self._lock:
            if self._closed:
                raise RuntimeError("cannot submit to a closed verifier")
            built = self._build_ref(prepared.code)
            self._pending[result] = [built]
        result.add_done_callback(self._answered)
        built.future().add_done_callback(lambda b: self._after_build(prepared, b, result))
        return result

    # internals
    def _build_ref(self, code: str):
        """Each code is built once (its outcome is the same wherever it builds)."""
        key = sha256_text(code)
        ref = self._built.get(key)
        if ref is None:
            ref = self._built[key] = self._build.remote(
                code, self.config.eval, self.config.build_jobs, self._arch
            )
        return ref

    def _after_build(self, prepared: Prepared, build_future: Future, result: Future) -> None:
        """A build that decides the verdict (a compile error) answers without waiting for a GPU."""
        if self._cancelling:
            result.cancel()
            return
        try:
            outcome = build_future.result()
        except BaseException as e:  # noqa: BLE001 - a lost build worker must not lose the sample
            outcome = BuildOutcome(False, f"build worker failed: {e!r}")  # the execution task builds
        decided = build_verdict(outcome, prepared)
        if decided is not None:
            result.set_result(decided)
            return
        with self._lock:
            if self._cancelling:
                result.cancel()
                return
            ref = self._execute.remote(outcome, prepared, self.config.eval)
            self._pending[result].append(ref)
        ref.future().add_done_callback(lambda f: self._after_execution(f, result, prepared.base))

    def _after_execution(self, execution: Future, result: Future, base: dict) -> None:
        try:
            value = execution.result()
        except BaseException as e:  # noqa: BLE001 - a lost worker still answers the sample
            if self._cancelling:  # cancelled by close(cancel_pending=True)
                result.cancel()
            else:
                result.set_result(Verdict.unmeasured(Status.RUNTIME_ERROR, f"ray task failed: {e!r}", **base))
            return
        if isinstance(value, str):
            result.set_exception(TaskError(value.removeprefix("task_error:")))
        else:
            result.set_result(value)

    def _answered(self, result: Future) -> None:
        with self._lock:
            self._pending.pop(result, None)
            self._lock.notify_all()
