"""The verifier on a Ray cluster: build tasks on CPU nodes, execution tasks asking for one GPU each.

Same API and same verdicts as benchmark.verifier.Verifier (it reuses the harness's build() and
evaluate(); only the scheduling differs), so the dataset builder and the RL trainer can switch
executors with one line. Each node keeps its own build cache; an execution task whose node has not
built the code builds it itself.

On a cluster:
    ray start --head --port=6379                      # on the head node
    ray start --address=HEAD_IP:6379                  # on every other node (GPU nodes too)
    RayVerifier(VerifierConfig(eval=EvalConfig(device="cuda")), address="auto")

Without an address, a local Ray runtime is started (that is how CI tests it, on CPU)."""

from __future__ import annotations

from concurrent.futures import Future

from benchmark.harness import BuildOutcome, TaskError, build, build_verdict, evaluate
from benchmark.reward import shaped_reward
from benchmark.task import Task
from benchmark.verdict import Status, Verdict
from benchmark.verifier import Request, VerifierConfig, decided_without_running, verdict_base


def _require_ray():
    try:
        import ray
    except ImportError as e:
        raise RuntimeError("the Ray executor needs ray: pip install 'solbench[ray]'") from e
    return ray


def _build_task(code: str, config) -> BuildOutcome:
    return build(code, config)  # the build child sees no GPU (harness.build_env)


def _execute_task(build_outcome: BuildOutcome, req: Request, config, base: dict) -> Verdict | str:
    decided = build_verdict(build_outcome, base)
    if decided is not None:
        return decided
    try:
        return evaluate(req.task, req.code, config, sample=req.sample, turn=req.turn, model=req.model,
                        sol_ms=req.sol_ms, trusted=req.trusted, built=build_outcome)
    except TaskError as e:
        return f"task_error:{e}"


class RayVerifier:
    def __init__(self, config: VerifierConfig | None = None, address: str | None = None, **ray_init):
        config = config or VerifierConfig()
        self.ray = ray = _require_ray()
        if not ray.is_initialized():
            ray.init(address=address, include_dashboard=False, log_to_driver=False, **ray_init)
        self.config = config
        gpus = 1 if config.eval.device == "cuda" else 0
        self._build = ray.remote(num_cpus=1)(_build_task)
        self._execute = ray.remote(num_cpus=1, num_gpus=gpus)(_execute_task)

    def submit(self, task: Task, code: str | None, **kw) -> Future[Verdict]:
        return self.submit_request(Request(task, code, **kw))

    def submit_request(self, req: Request) -> Future[Verdict]:
        quick = decided_without_running(req, self.config.eval)
        if quick is not None:
            done: Future[Verdict] = Future()
            done.set_result(quick)
            return done
        built = self._build.remote(req.code, self.config.eval)
        ref = self._execute.remote(built, req, self.config.eval, verdict_base(req, self.config.eval))
        result: Future[Verdict] = Future()

        def resolve(inner: Future) -> None:
            try:
                value = inner.result()
            except BaseException as e:  # noqa: BLE001 - a lost worker still answers the sample
                result.set_result(Verdict.unmeasured(Status.RUNTIME_ERROR, f"ray task failed: {e!r}",
                                                     **verdict_base(req, self.config.eval)))
                return
            if isinstance(value, str):
                result.set_exception(TaskError(value.removeprefix("task_error:")))
            else:
                result.set_result(value)

        ref.future().add_done_callback(resolve)
        return result

    def verify(self, requests) -> list[Verdict]:
        futures = [self.submit_request(r) for r in requests]
        return [f.result() for f in futures]

    def reward(self, verdict: Verdict) -> float:
        return shaped_reward(verdict, self.config.reward)

    def close(self) -> None:
        self.ray.shutdown()

    def __enter__(self) -> RayVerifier:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
