"""Every sandbox property holds for a worker forked from the zygote exactly as for a spawned one
(each test runs both ways), and the zygote's own failure modes cost only their samples."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import torch

from benchmark.evaluate import harness, sandbox
from benchmark.evaluate.boundary import BuildJob
from benchmark.evaluate.harness import evaluate
from benchmark.evaluate.sandbox import (
    PROJECT_ROOT,
    ZYGOTE_SWITCH,
    ChildOutcome,
    child_limits,
    network_isolated,
    run_job,
)
from benchmark.evaluate.zygote import Zygote
from benchmark.task import load_task
from benchmark.verdict import Status

PATHS = ("spawn", "zygote")

REPORTER = """import ctypes, json, os, resource, socket, sys, tempfile
import torch

_sig = ctypes.c_int(-1)
ctypes.CDLL(None).prctl(2, ctypes.byref(_sig))  # PR_GET_PDEATHSIG
try:
    socket.create_connection(("127.0.0.1", 9), timeout=1)
    network = "connected"
except OSError as e:
    network = str(e)
fds = {}
for fd in os.listdir("/proc/self/fd"):
    try:
        fds[fd] = os.readlink(f"/proc/self/fd/{fd}")
    except OSError:  # the listing's own descriptor
        pass
SEEN = dict(
    secrets=sorted(k for k in os.environ if "TOKEN" in k or "KEY" in k),
    tmpdir=os.environ.get("TMPDIR"), tempdir=tempfile.gettempdir(), cwd=os.getcwd(), path0=sys.path[0],
    triton=os.environ.get("TRITON_CACHE_DIR"), visible=os.environ.get("CUDA_VISIBLE_DEVICES"),
    cpu=resource.getrlimit(resource.RLIMIT_CPU), core=resource.getrlimit(resource.RLIMIT_CORE),
    fsize=resource.getrlimit(resource.RLIMIT_FSIZE), nproc=resource.getrlimit(resource.RLIMIT_NPROC),
    pdeathsig=_sig.value, ppid=os.getppid(), pid=os.getpid(), pgid=os.getpgid(0), sid=os.getsid(0),
    netns=os.readlink("/proc/thread-self/ns/net"), network=network, fds=fds, threads=torch.get_num_threads(),
)
raise RuntimeError("SEEN" + json.dumps(SEEN) + "END")
"""


def build_job(folder: Path, source: str, name: str = "candidate.py") -> BuildJob:
    """A build job on `source`: the worker imports it, which is all these tests need."""
    path = folder / name
    path.write_text(source)
    return BuildJob(str(folder / "builds"), str(path))


def seen(outcome: ChildOutcome):
    """What a candidate reported by raising RuntimeError("SEEN<json>END") at import."""
    found = re.search(r"SEEN(.*)END", (outcome.result or {}).get("error") or "")
    assert found, (outcome.result, outcome.log_tail)
    return json.loads(found.group(1))


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def parent_of(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])


def descendants(pid: int) -> list[list[int]]:
    """The live processes under `pid`, generation by generation."""
    parents: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and alive(int(entry.name)):
            try:
                parents.setdefault(parent_of(int(entry.name)), []).append(int(entry.name))
            except (OSError, IndexError):
                continue
    generations, current = [], [pid]
    while True:
        current = [c for p in current for c in parents.get(p, [])]
        if not current:
            return generations
        generations.append(current)


def wait_for(condition, timeout_s: float = 120.0, what: str = "the condition"):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError(f"{what} did not happen within {timeout_s} s")


@pytest.fixture(params=PATHS)
def path(request, monkeypatch) -> str:
    monkeypatch.setenv(ZYGOTE_SWITCH, "1" if request.param == "zygote" else "0")
    return request.param


@pytest.fixture(scope="module", params=PATHS)
def reports(request, tmp_path_factory) -> tuple[str, list[ChildOutcome], list[dict]]:
    """Two jobs of the reporter, each with its own compiler cache and GPU, with secrets in our env."""
    folder = tmp_path_factory.mktemp(f"reporter-{request.param}")
    job = build_job(folder, REPORTER)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(ZYGOTE_SWITCH, "1" if request.param == "zygote" else "0")
        mp.setenv("HF_TOKEN", "hf_secret")
        mp.setenv("OPENAI_API_KEY", "sk-secret")
        outcomes = [
            run_job(
                "build",
                job,
                120,
                clock="build",
                env={"TRITON_CACHE_DIR": str(folder / f"triton-{k}"), "CUDA_VISIBLE_DEVICES": str(k)},
            )
            for k in range(2)
        ]
    return request.param, outcomes, [seen(o) for o in outcomes]


def test_jobs_ran_the_way_asked(reports):
    way, outcomes, _ = reports
    assert [o.started_by for o in outcomes] == [way, way]


def test_secrets_are_scrubbed(reports):
    _, _, saw = reports
    assert [s["secrets"] for s in saw] == [[], []]


def test_each_job_has_its_own_directory_and_environment(reports):
    _, _, saw = reports
    for k, s in enumerate(saw):
        assert s["tmpdir"] == s["tempdir"] == s["cwd"] == s["path0"]
        assert Path(s["tmpdir"]).name.startswith("solbench-")
        assert s["triton"].endswith(f"triton-{k}") and s["visible"] == str(k)
    assert saw[0]["tmpdir"] != saw[1]["tmpdir"]


def test_limits_are_applied(reports):
    _, _, saw = reports
    limits = child_limits({"build": 120})
    for s in saw:
        assert s["cpu"] == [limits.cpu_s, limits.cpu_s + 5] and s["core"] == [0, 0]
        assert s["fsize"] == [limits.file_bytes] * 2 and s["nproc"] == [limits.processes] * 2


def test_worker_dies_with_its_parent_which_dies_with_us(reports):
    way, _, saw = reports
    for s in saw:
        assert s["pdeathsig"] == signal.SIGKILL
        if way == "spawn":
            assert s["ppid"] == os.getpid()
        else:  # the zygote, which dies with this process (test_killed_evaluator_leaves_no_process)
            assert s["ppid"] == sandbox.ZYGOTE.pid and parent_of(s["ppid"]) == os.getpid()


def test_worker_leads_its_own_session(reports):
    _, _, saw = reports
    assert all(s["pid"] == s["pgid"] == s["sid"] for s in saw)


def test_network_namespace_as_before(reports):
    if not network_isolated():
        pytest.skip("this OS refuses the child a network namespace")
    _, _, saw = reports
    for s in saw:
        assert s["netns"] != os.readlink("/proc/thread-self/ns/net")
        assert "Network is unreachable" in s["network"]


def test_worker_holds_only_its_own_descriptors(reports):
    # stdin (the job), stdout and stderr (the log), the result channel: none of the zygote's sockets
    _, _, saw = reports
    for s in saw:
        assert sorted(s["fds"]) == ["0", "1", "2", "3"], s["fds"]
        assert s["fds"]["1"] == s["fds"]["2"] == str(Path(s["tmpdir"]) / "build.log")
        assert not any(v.startswith("socket:") for v in s["fds"].values())


def test_torch_threads_as_in_a_fresh_interpreter(reports):
    _, _, saw = reports
    assert [s["threads"] for s in saw] == [torch.get_num_threads()] * 2


@pytest.mark.parametrize(
    ("source", "returncode", "reason"),
    [
        ("import ctypes\nctypes.string_at(0)\n", -signal.SIGSEGV, "worker killed by SIGSEGV"),
        ("import os\nos.abort()\n", -signal.SIGABRT, "worker killed by SIGABRT"),
        ("import os\nos._exit(3)\n", 3, "worker exited with status 3 before reporting a result"),
    ],
)
def test_crash_is_named(path, tmp_path, source, returncode, reason):
    outcome = run_job("build", build_job(tmp_path, source), 120, clock="build")
    assert outcome.started_by == path
    assert outcome.result is None and not outcome.timed_out
    assert outcome.returncode == returncode and outcome.crash_reason == reason


@pytest.mark.parametrize("own_group", [False, True], ids=["same-group", "own-group"])
def test_timeout_kills_the_whole_group(path, tmp_path, own_group):
    """Also a grandchild in a process group of its own, as ninja starts every compiler."""
    pids = tmp_path / "pids"
    source = (
        "import os, subprocess, time\n"
        f"sleeper = subprocess.Popen(['sleep', '600'], process_group={0 if own_group else None})\n"
        f"open({str(pids)!r}, 'w').write(f'{{os.getpid()}} {{sleeper.pid}}')\n"
        "time.sleep(600)\n"
    )
    outcome = run_job("build", build_job(tmp_path, source), 10, clock="build")
    assert outcome.started_by == path
    assert outcome.timed_out and outcome.limit == "build" and outcome.limits == {"build": 10.0}
    assert (
        outcome.crash_reason.startswith("build timed out after")
        and "(build limit 10 s)" in outcome.crash_reason
    )
    assert pids.exists(), "the worker did not start within its limit"
    worker, grandchild = map(int, pids.read_text().split())
    wait_for(lambda: not alive(worker) and not alive(grandchild), 10, "the group's death")


def test_forged_result_is_ignored(path, tmp_path):
    forged = json.dumps({"body": json.dumps({"status": "pass"}), "mac": "0" * 64})
    source = (
        "import os, sys\nimport torch\n"
        f"print({forged!r})\nprint({forged!r}, file=sys.stderr)\n"
        "class ModelNew(torch.nn.Module):\n    pass\n"
    )
    outcome = run_job("build", build_job(tmp_path, source), 120, clock="build")
    assert outcome.started_by == path
    assert outcome.result["status"] == "built"
    assert outcome.log_tail.count(forged) == 2  # stdout and stderr go to the log, nowhere else


def test_no_state_survives_between_jobs(path, tmp_path):
    source = (
        "import sys\nimport torch\nimport benchmark.evaluate.candidate as harness_module\n"
        "left = [n for n, found in (('sys.modules', 'solbench_leak' in sys.modules),\n"
        "    ('torch', hasattr(torch, 'solbench_leak')), ('harness', hasattr(harness_module, 'LEAK'))) if found]\n"
        "sys.modules['solbench_leak'] = sys\ntorch.solbench_leak = True\nharness_module.LEAK = True\n"
        "if left:\n    raise RuntimeError('left behind: ' + ', '.join(left))\n"
        "class ModelNew(torch.nn.Module):\n    pass\n"
    )
    job = build_job(tmp_path, source)
    outcomes = [run_job("build", job, 120, clock="build") for _ in range(2)]
    assert [o.started_by for o in outcomes] == [path, path]
    assert [o.result["status"] for o in outcomes] == ["built", "built"], outcomes[1].result


def test_killed_evaluator_leaves_no_process(path, data_dir, tmp_path):
    code = (
        "from pathlib import Path\n"
        "from benchmark.evaluate.harness import EvalConfig, evaluate\n"
        "from benchmark.task import load_task\n"
        f"task = load_task({str(data_dir / 'suite' / 'level1' / 'scale_shift.py')!r})\n"
        f"evaluate(task, Path({str(data_dir / 'candidates' / 'hang.py')!r}).read_text(),\n"
        f"         EvalConfig(device='cpu', strict=False, timeout_s=600, cache_dir=Path({str(tmp_path)!r})))\n"
    )
    parent = subprocess.Popen([sys.executable, "-c", code], cwd=PROJECT_ROOT)
    depth = 1 if path == "spawn" else 2  # the zygote, then the worker it forked
    try:
        family = wait_for(
            lambda: d if len(d := descendants(parent.pid)) >= depth else None, what="the worker's start"
        )
    finally:
        parent.kill()
        parent.wait()
    family = [pid for generation in family for pid in generation]
    wait_for(lambda: not any(alive(pid) for pid in family), 10, f"the death of {family}")


@pytest.mark.parametrize("name", ["torch_correct", "raises"])
def test_evaluate_gives_the_same_verdict_either_way(name, data_dir, fast_eval, monkeypatch):
    task = load_task(data_dir / "suite" / "level1" / "scale_shift.py")
    code = (data_dir / "candidates" / f"{name}.py").read_text()
    config = dataclasses.replace(fast_eval, strict=False)
    ways: list[str] = []
    real = harness.run_pair

    def recording(*args, **kwargs):
        outcome = real(*args, **kwargs)
        assert outcome.judge.started_by == outcome.candidate.started_by
        ways.append(outcome.judge.started_by)
        return outcome

    monkeypatch.setattr(harness, "run_pair", recording)
    verdicts = []
    for way in PATHS:
        monkeypatch.setenv(ZYGOTE_SWITCH, "1" if way == "zygote" else "0")
        verdicts.append(evaluate(task, code, config))
    assert ways == list(PATHS)
    spawned, forked = verdicts
    assert spawned.status is forked.status and spawned.status in (Status.PASS, Status.RUNTIME_ERROR)
    assert (spawned.flags, spawned.error, spawned.correctness) == (
        forked.flags,
        forked.error,
        forked.correctness,
    )


def test_concurrent_jobs_each_get_their_own_result(fresh_zygote, tmp_path):
    jobs = [
        build_job(
            tmp_path,
            f"import os\nraise RuntimeError('SEEN' + repr(['job-{i}', os.environ['TMPDIR']]).replace(\"'\", '\"') + 'END')\n",
            f"c{i}.py",
        )
        for i in range(6)
    ]
    barrier = threading.Barrier(len(jobs))

    def one(job: BuildJob) -> ChildOutcome:
        barrier.wait()
        return run_job("build", job, 120, clock="build")

    assert fresh_zygote.ready()  # while it starts, jobs spawn (their own test): here all fork at once
    with ThreadPoolExecutor(len(jobs)) as pool:
        outcomes = list(pool.map(one, jobs))
    assert [o.started_by for o in outcomes] == ["zygote"] * len(jobs)
    saw = [seen(o) for o in outcomes]
    assert [s[0] for s in saw] == [f"job-{i}" for i in range(len(jobs))]
    assert len({s[1] for s in saw}) == len(jobs)


def test_zygote_death_mid_job_is_a_runtime_error_and_a_new_zygote_follows(fresh_zygote, data_dir, fast_eval):
    task = load_task(data_dir / "suite" / "level1" / "scale_shift.py")
    config = dataclasses.replace(fast_eval, strict=False, measure=False)
    hang = (data_dir / "candidates" / "hang.py").read_text()
    with ThreadPoolExecutor(1) as pool:
        pending = pool.submit(evaluate, task, hang, config)
        # both workers of the pair forked (the candidate's process first, then the judge): a kill
        # between the two forks leaves the judge to a new zygote, and the hang to its run limit
        workers = wait_for(
            lambda: fresh_zygote.pid and len((d := descendants(fresh_zygote.pid) or [[]])[0]) >= 2 and d,
            what="both forks",
        )[0]
        first = fresh_zygote.pid
        os.kill(first, signal.SIGKILL)
        verdict = pending.result(timeout=60)
    assert verdict.status is Status.RUNTIME_ERROR
    assert "the zygote that forked it died" in verdict.error
    wait_for(lambda: not any(alive(pid) for pid in workers), 10, "the orphaned worker's death")
    after = evaluate(task, (data_dir / "candidates" / "torch_correct.py").read_text(), config)
    assert after.status is Status.PASS
    assert fresh_zygote.pid not in (None, first)


def test_job_whose_import_time_environment_differs_is_spawned(fresh_zygote, tmp_path):
    threads = "2" if os.environ.get("OMP_NUM_THREADS") == "1" else "1"  # read when torch loads its OpenMP
    job = build_job(
        tmp_path,
        "import json, torch\nraise RuntimeError('SEEN' + json.dumps(torch.get_num_threads()) + 'END')\n",
    )
    assert fresh_zygote.ready()
    own = run_job("build", job, 120, clock="build", env={"OMP_NUM_THREADS": threads})
    assert own.started_by == "spawn" and seen(own) == int(threads)
    assert run_job("build", job, 120, clock="build").started_by == "zygote"


def test_zygote_that_cannot_start_leaves_jobs_to_spawn(monkeypatch, tmp_path):
    monkeypatch.setenv(ZYGOTE_SWITCH, "1")
    broken = Zygote(lambda: {**sandbox.scrubbed_env(), "PYTHONHOME": str(tmp_path / "nowhere")})
    monkeypatch.setattr(sandbox, "ZYGOTE", broken)
    job = build_job(tmp_path, "import torch\n\nclass ModelNew(torch.nn.Module):\n    pass\n")
    outcome = run_job("build", job, 120, clock="build")
    assert outcome.started_by == "spawn" and outcome.result["status"] == "built"
    assert broken.broken and broken.pid is None


def test_a_lane_spawns_rather_than_wait_for_a_zygote_another_thread_starts(monkeypatch, tmp_path):
    monkeypatch.setenv(ZYGOTE_SWITCH, "1")
    starting, release = threading.Event(), threading.Event()
    slow = Zygote(sandbox.scrubbed_env)

    def slow_start():
        starting.set()
        release.wait(60)
        return None  # as a start that failed: nothing to fork from

    monkeypatch.setattr(slow, "_start", slow_start)
    monkeypatch.setattr(sandbox, "ZYGOTE", slow)
    slow.prestart()
    assert starting.wait(10)
    job = build_job(tmp_path, "import torch\n\nclass ModelNew(torch.nn.Module):\n    pass\n")
    try:
        outcome = run_job("build", job, 120, clock="build")
        still_starting = slow._starting.is_set()
    finally:
        release.set()
    assert still_starting  # the job ended while the zygote was still starting: it never waited
    assert outcome.started_by == "spawn" and outcome.result["status"] == "built"


def test_a_failed_start_is_not_tried_again_until_a_retry(fresh_zygote, monkeypatch, tmp_path):
    """A caller that killed the zygote's start on purpose (a benchmark arm cut mid-flight) retries."""
    bad = {"PYTHONHOME": str(tmp_path / "nowhere")}
    monkeypatch.setattr(fresh_zygote, "_env", lambda: {**sandbox.scrubbed_env(), **bad})
    assert not fresh_zygote.ready()
    assert "exit code" in fresh_zygote.broken and " s of 300" in fresh_zygote.broken
    bad.clear()
    assert not fresh_zygote.ready()  # broken stays broken
    fresh_zygote.retry()
    assert fresh_zygote.broken is None and fresh_zygote.ready() and fresh_zygote.pid is not None


@pytest.mark.parametrize("device", ["cpu", "cuda"])
def test_every_variable_the_harness_sets_per_job_is_one_a_fork_honours(device, monkeypatch):
    """A variable the harness sets per job but the zygote does not honour sends every job to the
    spawn path, silently (a new build variable once did)."""
    from benchmark.evaluate.zygote import PER_JOB_ENV

    monkeypatch.setattr(harness, "cuda_arch_list", lambda: "9.0")
    config = harness.EvalConfig(device=device)
    set_per_job = {*harness.child_env(config), *harness.build_env(config), "TMPDIR", "CUDA_VISIBLE_DEVICES"}
    set_per_job |= {"MAX_JOBS"}  # the verifier's build pool shares the cores out (VerifierConfig.build_jobs)
    assert set_per_job <= PER_JOB_ENV, set_per_job - PER_JOB_ENV


@pytest.fixture
def one_thread(monkeypatch):
    """This test process as the zygote would be: its threads (pytest's, torch's) not counted, so
    the zygote's functions may fork here."""
    from benchmark.evaluate import zygote

    monkeypatch.setattr(zygote, "thread_names", lambda: ["python"])


def test_the_zygote_forks_alone(fresh_zygote):
    """After its imports the zygote has one thread, so every fork it makes copies all of it."""
    assert fresh_zygote.ready()
    assert len(os.listdir(f"/proc/{fresh_zygote.pid}/task")) == 1


def test_a_fork_beside_another_thread_is_refused():
    from benchmark.evaluate import zygote

    stop = threading.Event()
    other = threading.Thread(target=stop.wait, name="other")
    other.start()
    try:
        with pytest.raises(RuntimeError, match="not forking with"):
            zygote.fork_alone()
    finally:
        stop.set()
        other.join()


def test_an_import_that_poisons_fork_for_cuda_is_named_and_the_zygote_refuses(monkeypatch, one_thread):
    """On the H200 every forked child once failed with "Cannot re-initialize CUDA in forked
    subprocess": the zygote now probes a fork after each import and refuses to serve, naming it."""
    from benchmark.evaluate import zygote

    assert not zygote.fork_poisoned()  # a CPU build of torch arms no poison
    seen = []
    monkeypatch.setattr(zygote, "fork_poisoned", lambda: seen.append(1) or len(seen) >= 3)
    with pytest.raises(RuntimeError, match=r"armed by the import of benchmark\.evaluate\.sol"):
        zygote.preload()
    assert zygote.PRELOAD[1] == "benchmark.evaluate.sol"
    assert os.environ.get(zygote.NVML_CHECK) is None  # restored after the imports


def test_a_warm_up_runs_unless_a_dry_run_in_a_fork_says_it_would_poison_fork(monkeypatch, one_thread):
    """The warm-ups (the FLOP counter's 2 s of first-use imports) are tried in a throwaway child
    first: one after which forked children could not use CUDA is skipped, not run."""
    from benchmark.evaluate import zygote

    assert not zygote.poisons_fork(zygote.warm_flop_counter)  # a CPU build of torch arms no poison
    assert zygote.poisons_fork(lambda: 1 / 0)  # a warm-up that fails counts as poisoning
    ran = []
    harmless, poisonous = (lambda: ran.append("harmless")), (lambda: ran.append("poisonous"))
    monkeypatch.setattr(zygote, "WARM_UPS", (poisonous, harmless))
    monkeypatch.setattr(zygote, "poisons_fork", lambda action: action is poisonous)
    zygote.preload()
    assert ran == ["harmless"]


def test_a_probe_child_that_hangs_is_killed_and_named(monkeypatch):
    from benchmark.evaluate import zygote

    monkeypatch.setattr(zygote, "PROBE_TIMEOUT_S", 0.5)
    pid = os.fork()
    if pid == 0:
        time.sleep(30)
        os._exit(0)
    with pytest.raises(RuntimeError, match="did not exit in 0.5 s"):
        zygote.probe_exit_code(pid)
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)  # killed and reaped


def test_the_start_up_trace_names_each_step(monkeypatch, capsys, one_thread):
    from benchmark.evaluate import zygote

    monkeypatch.setenv(zygote.TRACE_ENV, "1")
    zygote.preload()
    steps = [line.split(": ", 1)[1].rsplit(" at ", 1)[0] for line in capsys.readouterr().err.splitlines()]
    assert steps[:2] == ["imported torch", "imported benchmark.evaluate.worker"]
    assert "ran warm_flop_counter" in steps
