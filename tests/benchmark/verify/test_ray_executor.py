"""The Ray executor: the local verifier's verdicts on an in-process runtime; the build tasks' environment;
and a two-node cluster of separate `ray start` processes, where the second node evaluates a task whose
file is gone from the driver's disk."""

from __future__ import annotations

import dataclasses
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from benchmark.task import load_task
from benchmark.verdict import Status
from benchmark.verify.verifier import Request, Verifier, VerifierConfig

ray = pytest.importorskip("ray")

ROOT = Path(__file__).resolve().parents[3]
RAY_CLI = Path(sys.executable).with_name("ray")
# raises at import in the build child (the comment makes it one), naming what that child was given
ENV_PROBE = (
    "import os\n# load_inline\n"
    "raise SyntaxError(f\"MAX_JOBS={os.environ.get('MAX_JOBS')} ARCH={os.environ.get('TORCH_CUDA_ARCH_LIST')}\")\n"
)


def test_ray_and_local_executors_agree(data_dir, fast_eval):
    from benchmark.verify.ray_executor import RayVerifier

    task = load_task(data_dir / "suite" / "level1" / "scale_shift.py")
    read = lambda n: (data_dir / "candidates" / f"{n}.py").read_text()  # noqa: E731
    requests = [
        Request(task, code, sample=i)
        for i, code in enumerate(["", read("torch_correct"), read("wrong_shape"), read("syntax_error")])
    ]
    cfg = VerifierConfig(eval=dataclasses.replace(fast_eval, measure=False, strict=False), build_workers=1)
    with Verifier(cfg) as local:
        expected = [v.status for v in local.verify(requests)]
    with RayVerifier(cfg, num_cpus=2) as remote:
        got = [v.status for v in remote.verify(requests)]
    assert got == expected
    assert [s.value for s in got] == ["no_code", "pass", "incorrect", "compile_error"]
    assert not ray.is_initialized()  # it started the runtime, so closing it shut that down


def test_builds_get_the_gpus_architecture_and_max_jobs(data_dir, fast_eval):
    """On CUDA a build task (on a CPU node) targets the architecture of the GPUs, with the verifier's
    MAX_JOBS; a compile error is answered without waiting for a GPU (this runtime has none), and a
    sample that waits for one is cancelled by close(cancel_pending=True)."""
    from benchmark.verify.ray_executor import RayVerifier

    task = load_task(data_dir / "suite" / "level1" / "scale_shift.py")
    cfg = VerifierConfig(
        eval=dataclasses.replace(fast_eval, device="cuda", strict=False), build_cores=4, build_workers=2
    )
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        verifier = RayVerifier(cfg, cuda_arch="9.0")
        try:
            verdict = verifier.submit(task, ENV_PROBE).result(timeout=300)
            waiting = verifier.submit(task, (data_dir / "candidates" / "torch_correct.py").read_text())
        finally:
            verifier.close(cancel_pending=True)
        assert verdict.status is Status.COMPILE_ERROR
        assert f"MAX_JOBS={cfg.build_jobs} ARCH=9.0" in verdict.error and cfg.build_jobs == 2
        assert waiting.cancelled()
        with pytest.raises(RuntimeError, match="closed"):
            verifier.submit(task, "x = 1")
        assert ray.is_initialized()  # the caller's runtime outlives the verifier
    finally:
        ray.shutdown()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _stop(node: subprocess.Popen) -> None:
    """End one node: its `ray start --block` and the processes it started share its process group."""
    try:
        os.killpg(node.pid, signal.SIGTERM)
        node.wait(timeout=10)
    except subprocess.TimeoutExpired:
        os.killpg(node.pid, signal.SIGKILL)
        node.wait(timeout=20)
    except ProcessLookupError:
        pass


@pytest.fixture
def cluster(monkeypatch):
    """A head and a second node, separate `ray start` processes on loopback with one CPU each; only the
    second has the `second_node` resource, and it runs from a folder of its own. Stopped even on failure.
    Token authentication is off for the nodes and this driver alike (`ray start` would turn it on where
    ~/.ray/auth_token exists, and a driver that does not send the token is refused)."""
    if not RAY_CLI.exists():
        pytest.skip(f"no ray command beside {sys.executable}")
    monkeypatch.setenv("RAY_AUTH_MODE", "disabled")
    temp = Path(tempfile.mkdtemp(prefix="solbench-ray-"))  # short: Ray's socket paths must fit 107 bytes
    address = f"127.0.0.1:{_free_port()}"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "RAY_USAGE_STATS_ENABLED": "0"}
    nodes: list[subprocess.Popen] = []

    def start(*args: str, cwd: Path) -> None:
        cwd.mkdir(exist_ok=True)
        with open(temp / f"node{len(nodes)}.log", "w") as log:
            nodes.append(
                subprocess.Popen(
                    [
                        str(RAY_CLI),
                        "start",
                        "--block",
                        "--node-ip-address=127.0.0.1",
                        "--num-cpus=1",
                        "--disable-usage-stats",
                        *args,
                    ],
                    cwd=cwd,
                    env=env,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                )
            )

    try:
        start(
            "--head",
            f"--port={address.split(':')[1]}",
            f"--temp-dir={temp}",
            "--include-dashboard=false",
            cwd=temp / "head",
        )
        start(f"--address={address}", '--resources={"second_node": 1}', cwd=temp / "second")
        yield address
    finally:
        for node in reversed(nodes):
            _stop(node)
        shutil.rmtree(temp, ignore_errors=True)


def _connect(address: str, deadline_s: float = 90.0) -> str:
    """Join the cluster once the head answers; the second node's id once it has joined."""
    end = time.monotonic() + deadline_s
    while True:
        try:
            ray.init(address=address, log_to_driver=False)
            break
        except (ConnectionError, RuntimeError):
            if time.monotonic() > end:
                raise
            time.sleep(1)
    while time.monotonic() < end:
        second = [n["NodeID"] for n in ray.nodes() if n["Alive"] and "second_node" in n["Resources"]]
        if second:
            return second[0]
        time.sleep(0.5)
    raise TimeoutError(f"the second node did not join {address} in {deadline_s:.0f} s")


@pytest.mark.slow
def test_a_second_node_evaluates_without_the_drivers_files(cluster, data_dir, fast_eval, tmp_path):
    from benchmark.verify.ray_executor import RayVerifier

    copy = tmp_path / "suite" / "level1" / "scale_shift.py"
    copy.parent.mkdir(parents=True)
    shutil.copy(data_dir / "suite" / "level1" / "scale_shift.py", copy)
    task = load_task(copy, root=tmp_path / "suite")
    copy.unlink()  # the task travels with the Ray task, or not at all
    code = (data_dir / "candidates" / "torch_correct.py").read_text()
    cfg = VerifierConfig(eval=dataclasses.replace(fast_eval, measure=False, strict=False), build_workers=1)
    try:
        second = _connect(cluster)
        with RayVerifier(cfg, execution_resources={"second_node": 1}) as verifier:
            verdict = verifier.submit(task, code, sample=3).result(timeout=240)
        assert verdict.status is Status.PASS, verdict.error
        assert (verdict.task_id, verdict.level, verdict.sample) == ("level1/scale_shift", 1, 3)
        assert verdict.env["ray_node"] == second
        assert ray.is_initialized() and ray.cluster_resources().get("second_node") == 1  # still running
    finally:
        ray.shutdown()
