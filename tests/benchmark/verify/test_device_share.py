"""A sample whose device memory ran out beside other lanes (the candidate's or the reference's) is
run again with the device to itself."""

from __future__ import annotations

import dataclasses
import threading
import time

import pytest

from benchmark.evaluate.boundary import MEMORY_ENV, ROOM_ENV
from benchmark.evaluate.harness import TaskError
from benchmark.task import load_task
from benchmark.verdict import Status, Verdict
from benchmark.verify import verifier as verifier_module
from benchmark.verify.verifier import DeviceShare, Verifier, VerifierConfig

OOM = "OutOfMemoryError: CUDA out of memory. Tried to allocate 512.00 MiB."
# a reference's cuBLAS handle that found no device memory, seen on an H100 in the whole suite's run
CUBLAS_OOM = "RuntimeError: CUDA error: CUBLAS_STATUS_ALLOC_FAILED when calling `cublasCreate(handle)`"
CODE = "import torch\nclass ModelNew(torch.nn.Module):\n    def forward(self, x):\n        return x\n"


@pytest.fixture(scope="module")
def task(data_dir):
    return load_task(data_dir / "suite" / "level1" / "scale_shift.py")


class FakeDevice:
    """Stands in for the harness's `execute`: the first sample runs out of memory on its first run (`task_error`:
    in the reference, which raises; `always`: on every run); every run records how many others were
    running beside it."""

    def __init__(
        self, oom_sample: int = 0, task_error: str | None = None, always: bool = False, error: str = OOM
    ):
        self.oom_sample = oom_sample
        self.error = error
        self.task_error = task_error
        self.always = always
        self.lock = threading.Lock()
        self.running = 0
        self.runs: list[tuple[int, int]] = []  # (sample, runs beside it at its start)

    def __call__(self, prepared, config, built, **kw) -> Verdict:
        task, sample = prepared.task, prepared.base["sample"]
        with self.lock:
            first = all(s != sample for s, _ in self.runs)
            self.runs.append((sample, self.running))
            self.running += 1
        time.sleep(0.2)
        with self.lock:
            self.running -= 1
        if sample == self.oom_sample and (first or self.always):
            if self.task_error is not None:
                raise TaskError(self.task_error)
            return Verdict.unmeasured(Status.RUNTIME_ERROR, self.error, task_id=task.task_id, sample=sample)
        return Verdict.unmeasured(Status.PASS, None, task_id=task.task_id, sample=sample)


def run_with(
    monkeypatch, task, fast_eval, lanes: int, samples: int, fake: FakeDevice | None = None
) -> tuple[list[Verdict | TaskError], FakeDevice, dict]:
    """Each sample's verdict, or the TaskError its future raised."""
    fake = fake or FakeDevice()
    monkeypatch.setattr(verifier_module, "execute", fake)
    with Verifier(VerifierConfig(eval=fast_eval, lanes_per_device=lanes)) as v:
        futures = [v.submit(task, CODE, sample=k) for k in range(samples)]
        verdicts = [f.exception() or f.result() for f in futures]
        stats = dict(v.stats)
    return verdicts, fake, stats


@pytest.mark.parametrize("error", [OOM, CUBLAS_OOM])
def test_out_of_memory_beside_other_lanes_is_run_again_alone(monkeypatch, task, fast_eval, error):
    fake = FakeDevice(error=error)
    verdicts, fake, stats = run_with(monkeypatch, task, fast_eval, lanes=3, samples=6, fake=fake)
    assert [v.status for v in verdicts] == [Status.PASS] * 6
    reruns = [beside for s, beside in fake.runs if s == 0][1:]
    assert reruns == [0]  # once, and nothing else on the device
    assert stats["run_alone"] == 1
    assert max(beside for _, beside in fake.runs) >= 1  # the other samples did share the device


def test_one_lane_keeps_an_out_of_memory_verdict(monkeypatch, task, fast_eval):
    verdicts, fake, stats = run_with(monkeypatch, task, fast_eval, lanes=1, samples=2)
    assert verdicts[0].out_of_memory
    assert [s for s, _ in fake.runs] == [0, 1]
    assert stats["run_alone"] == 0


def test_reference_out_of_memory_beside_other_lanes_is_run_again_alone(monkeypatch, task, fast_eval):
    fake = FakeDevice(task_error=f"reference failed: {OOM}")
    verdicts, fake, stats = run_with(monkeypatch, task, fast_eval, lanes=3, samples=6, fake=fake)
    assert [v.status for v in verdicts] == [Status.PASS] * 6
    assert [beside for s, beside in fake.runs if s == 0][1:] == [0]
    assert stats["run_alone"] == 1


def test_reference_out_of_memory_alone_is_the_tasks_error(monkeypatch, task, fast_eval):
    fake = FakeDevice(task_error=f"reference failed: {OOM}", always=True)
    verdicts, fake, _ = run_with(monkeypatch, task, fast_eval, lanes=3, samples=3, fake=fake)
    assert isinstance(verdicts[0], TaskError) and verdicts[0].out_of_memory
    assert [beside for s, beside in fake.runs if s == 0][1:] == [0]  # raised only after the run alone
    assert [v.status for v in verdicts[1:]] == [Status.PASS] * 2


def test_other_task_errors_are_not_run_again(monkeypatch, task, fast_eval):
    fake = FakeDevice(task_error="reference failed: ValueError('bad shape')")
    verdicts, fake, stats = run_with(monkeypatch, task, fast_eval, lanes=3, samples=3, fake=fake)
    assert isinstance(verdicts[0], TaskError) and not verdicts[0].out_of_memory
    assert [s for s, _ in fake.runs].count(0) == 1
    assert stats["run_alone"] == 0


def test_alone_waits_for_the_lanes_and_holds_new_ones_back():
    share = DeviceShare()
    events: list[str] = []
    entered = threading.Event()

    def lane(name: str, hold_s: float) -> None:
        with share.lane():
            events.append(f"{name} in")
            entered.set()
            time.sleep(hold_s)
            events.append(f"{name} out")

    first = threading.Thread(target=lane, args=("a", 0.3))
    first.start()
    entered.wait()

    def alone() -> None:
        with share.alone():
            events.append("alone in")
            time.sleep(0.2)
            events.append("alone out")

    solo = threading.Thread(target=alone)
    solo.start()
    time.sleep(0.05)  # the alone run is waiting for lane a
    late = threading.Thread(target=lane, args=("b", 0.0))
    late.start()
    for t in (first, solo, late):
        t.join(5)
    assert events == ["a in", "a out", "alone in", "alone out", "b in", "b out"]


def reading(pair_mib: int, room_mib: int) -> Verdict:
    """A finished sample's verdict with the judge's memory reading."""
    return Verdict.unmeasured(
        Status.PASS, None, task_id="t", env={MEMORY_ENV: str(pair_mib), ROOM_ENV: str(room_mib)}
    )


def most_at_once(share: DeviceShare, keys: list[str], hold_s: float = 0.15) -> tuple[int, list[int]]:
    """Run one sample per task key through `share.run`, asked in order; the most running at once,
    and the order they started in."""
    lock, state, order = threading.Lock(), {"in": 0, "most": 0}, []

    def sample(k: int) -> None:
        def evaluate() -> Verdict:
            with lock:
                order.append(k)
                state["in"] += 1
                state["most"] = max(state["most"], state["in"])
            time.sleep(hold_s)
            with lock:
                state["in"] -= 1
            return Verdict.unmeasured(Status.PASS, None, task_id="t")

        share.run(evaluate, shared=True, key=keys[k])

    threads = []
    for k in range(len(keys)):
        threads.append(threading.Thread(target=sample, args=(k,)))
        threads[-1].start()
        time.sleep(0.02)  # asked in this order
    for t in threads:
        t.join(10)
    return state["most"], order


def test_samples_start_while_their_learned_memory_fits():
    share = DeviceShare()
    share.learn("big", reading(4000, 10000))
    assert share.need("big") == 4000 * 2**20 and share.room == 10000 * 2**20
    most, _ = most_at_once(share, ["big"] * 6)
    assert most == 2  # 0.9 x 10,000 MiB holds two samples of 4,000, not three


def test_a_sample_larger_than_the_room_still_runs_alone():
    share = DeviceShare()
    share.learn("huge", reading(20000, 10000))
    most, order = most_at_once(share, ["huge"] * 3)
    assert most == 1 and sorted(order) == [0, 1, 2]


def test_unknown_needs_and_rooms_do_not_hold_samples_back():
    share = DeviceShare()
    assert most_at_once(share, ["a", "b", "c", "d"])[0] == 4  # no reading yet
    share.learn("small", reading(100, 10000))
    assert most_at_once(share, ["small"] * 4)[0] == 4


def test_a_large_sample_is_not_passed_by_later_small_ones():
    share = DeviceShare()
    share.learn("small", reading(1000, 10000))
    share.learn("large", reading(8000, 10000))
    # a small sample runs; the large one after it waits for room; the small ones after that wait behind it
    _, order = most_at_once(share, ["small", "large", "small", "small"])
    assert order[:2] == [0, 1]


def test_on_a_gpu_a_tasks_first_sample_finds_its_need_out_alone():
    share = DeviceShare(probe=True)
    share.learn("seen", reading(100, 10000))
    # "new" is unseen: its first sample runs, its second waits for that reading; "seen" does not wait
    most, order = most_at_once(share, ["new", "new", "seen"], hold_s=0.3)
    assert order == [0, 2, 1] and most == 2


def test_a_probe_that_raises_releases_its_task():
    share = DeviceShare(probe=True)

    def fails() -> Verdict:
        raise TaskError("reference failed: ValueError('bad shape')")

    with pytest.raises(TaskError):
        share.run(fails, shared=True, key="broken")
    assert most_at_once(share, ["broken", "broken"])[0] == 2  # seen, its need unknown: nothing waits


def test_the_verifier_learns_each_tasks_memory_from_its_verdicts(monkeypatch, task, fast_eval):
    class Reading(FakeDevice):
        def __call__(self, prepared, config, built, **kw) -> Verdict:
            verdict = super().__call__(prepared, config, built, **kw)
            return dataclasses.replace(verdict, env={MEMORY_ENV: "4000", ROOM_ENV: "10000"})

    fake = Reading(oom_sample=-1)
    verdicts, fake, _ = run_with(monkeypatch, task, fast_eval, lanes=4, samples=12, fake=fake)
    assert [v.status for v in verdicts] == [Status.PASS] * 12
    # the first samples start before any reading; once one is learned, at most two run at once
    learned = fake.runs[6:]
    assert max(beside for _, beside in learned) <= 1


def test_a_task_not_measured_yet_is_admitted_by_what_measured_tasks_take():
    share = DeviceShare()
    assert share.need("new") == 0  # nothing measured: optimistic, the run-alone rule behind it
    for key, mib in (("a", 3000), ("b", 4000), ("c", 9000)):
        share.learn(key, reading(mib, 10000))
    assert share.need("new") == 4000 * 2**20 and share.need("c") == 9000 * 2**20
    assert most_at_once(share, ["x", "y", "z"])[0] == 2  # 0.9 x 10,000 MiB: two of 4,000


def test_a_hanging_probe_holds_its_tasks_samples_back_only_so_long(monkeypatch):
    monkeypatch.setattr(verifier_module, "PROBE_WAIT_S", 0.3)
    share = DeviceShare(probe=True)
    started: dict[str, float] = {}
    t0 = time.monotonic()

    def sample(name: str, hold_s: float) -> None:
        def evaluate() -> Verdict:
            started[name] = time.monotonic() - t0
            time.sleep(hold_s)
            return Verdict.unmeasured(Status.PASS, None, task_id="t")

        share.run(evaluate, shared=True, key="task")

    hang = threading.Thread(target=sample, args=("probe", 1.5))  # a first sample that runs long
    hang.start()
    time.sleep(0.05)
    sibling = threading.Thread(target=sample, args=("sibling", 0.0))
    sibling.start()
    sibling.join(5)
    hang.join(5)
    assert 0.25 <= started["sibling"] < 1.0  # waited for the probe, then went on without its reading


def test_probing_stops_where_judges_read_no_memory():
    share = DeviceShare(probe=True)
    share.learn("a", Verdict.unmeasured(Status.PASS, None, task_id="t"))  # passed, no reading: no NVML
    assert not share.probe
    assert most_at_once(share, ["new", "new"])[0] == 2
