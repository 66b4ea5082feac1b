"""The GPU-neighbour check: the judge, its parent, the candidate's process and the device lock's other holders are known;
any other process (a sibling outside the lock too) is a neighbour; a PID namespace NVML cannot see into makes the check unavailable; and a
timed phase that always had company is marked contended."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from types import SimpleNamespace

import pytest
import torch

from benchmark.evaluate import contention, judge
from benchmark.evaluate.timing import TimingConfig

CUDA = torch.device("cuda", 0)


@dataclass
class FakeGpu:
    procs: dict[int, int]  # pid -> bytes held
    idle: set[int] = field(default_factory=set)  # holding a context, running nothing


@pytest.fixture
def fake_gpu(monkeypatch):
    gpu = FakeGpu({os.getpid(): 2**30})
    monkeypatch.setattr(
        contention, "_nvml_pids", lambda device: {p: (b, p not in gpu.idle) for p, b in gpu.procs.items()}
    )
    monkeypatch.setattr(contention, "_name_of", lambda pid: "python3")
    return gpu


def test_alone_with_known_processes(fake_gpu):
    fake_gpu.procs[os.getppid()] = 0  # the evaluator itself
    fake_gpu.procs[4242] = 2**20  # another holder of the device lock
    c = contention.census(CUDA, known={4242})
    assert c.available and c.neighbours == ()


def test_lock_holders_are_registered(tmp_path):
    from benchmark.evaluate.gpu_lock import DeviceLock

    (tmp_path / "device-0.members").mkdir()
    (tmp_path / "device-0.members" / "999999999").touch()  # a holder that died
    lock = DeviceLock(tmp_path / "device-0")
    assert lock.members() == {os.getpid()}
    assert not (tmp_path / "device-0.members" / "999999999").exists()
    (tmp_path / "device-0.members" / "999999998").touch()  # dies later: skipped, never signalled
    assert lock.members() == {os.getpid()}


def test_a_foreign_process_is_a_neighbour(fake_gpu):
    fake_gpu.procs[777] = 3 * 2**20
    c = contention.census(CUDA)
    assert c.neighbours == ("777 python3 (3 MiB)",)


def test_an_idle_foreign_context_is_no_neighbour(fake_gpu):
    fake_gpu.procs[777] = 3 * 2**20
    fake_gpu.idle.add(777)  # holds a context, ran nothing lately
    assert contention.census(CUDA).neighbours == ()


def test_unmatched_pid_namespace_is_unavailable(fake_gpu):
    del fake_gpu.procs[os.getpid()]
    fake_gpu.procs[123456] = 0
    c = contention.census(CUDA)
    assert not c.available and "PID namespace" in c.why


def test_cpu_has_no_check():
    assert not contention.census(torch.device("cpu")).available


def _evaluation(monkeypatch, make_judge, censuses):
    seq = iter(censuses)
    monkeypatch.setattr(judge, "wait_until_alone", lambda device, wait_s, known: next(seq))
    monkeypatch.setattr(judge, "gpu_census", lambda device, known: next(seq))
    ev = make_judge()
    ev.device = CUDA
    ev.timer = SimpleNamespace(config=TimingConfig())
    return ev


def test_company_that_leaves_is_retried_not_marked(monkeypatch, make_judge):
    busy, quiet = contention.Census(True, ("777 x (1 MiB)",)), contention.Census(True)
    ev = _evaluation(monkeypatch, make_judge, [busy, busy, quiet, quiet])
    calls = []
    assert ev.alone(lambda: calls.append(1) or len(calls)) == 2
    assert not ev.contended


def test_company_that_stays_marks_the_sample_contended(monkeypatch, make_judge):
    busy = contention.Census(True, ("777 x (1 MiB)",))
    ev = _evaluation(monkeypatch, make_judge, [busy] * 2 * (judge.CONTENTION_RETRIES + 1))
    ev.alone(lambda: None)
    assert ev.contended is True and list(ev.neighbours) == ["777 x (1 MiB)"]


@pytest.mark.parametrize("field", ["evaluator", "candidate"])
def test_the_evaluator_and_the_candidates_process_are_no_neighbours(fake_gpu, make_judge, field):
    # A judge forked from the zygote has the zygote as its parent; the evaluator comes with the job,
    # the candidate's process's id with its `Loaded` message.
    fake_gpu.procs[4343] = 2**20
    ev = make_judge(evaluator_pid=4343 if field == "evaluator" else None)
    if field == "candidate":
        ev.candidate_pid = 4343
    ev.device = CUDA
    ev.timer = SimpleNamespace(config=TimingConfig(contention_wait_s=0.5))
    ev.alone(lambda: None)
    assert not ev.contended


def test_an_unknown_process_is_a_neighbour(fake_gpu, make_judge):
    fake_gpu.procs[4343] = 2**20
    ev = make_judge()
    ev.device = CUDA
    ev.timer = SimpleNamespace(config=TimingConfig(contention_wait_s=0.0))
    ev.alone(lambda: None)
    assert ev.contended


def test_memory_reading_counts_the_pair_and_leaves_out_the_lock_holders(fake_gpu, monkeypatch):
    gib = 2**30
    monkeypatch.setattr(contention, "_nvml_total", lambda device: 80 * gib)
    fake_gpu.procs.update({5151: 3 * gib, 4242: 9 * gib, 777: 10 * gib})  # candidate, other lane, trainer
    fake_gpu.idle.add(777)  # idle or not, what a foreign process holds is not the lanes' room
    r = contention.memory_reading(CUDA, pair={os.getpid(), 5151}, known={4242})
    assert r == contention.MemoryReading(pair_bytes=4 * gib, room_bytes=70 * gib)


def test_memory_reading_needs_nvml_and_a_cuda_device(fake_gpu, monkeypatch):
    assert contention.memory_reading(torch.device("cpu"), pair={os.getpid()}) is None

    def no_nvml(device):
        raise ImportError("no pynvml")

    monkeypatch.setattr(contention, "_nvml_total", no_nvml)
    assert contention.memory_reading(CUDA, pair={os.getpid()}) is None


def test_the_judge_records_its_pairs_memory_for_the_lanes(fake_gpu, monkeypatch, make_judge):
    from benchmark.evaluate.boundary import MEMORY_ENV, ROOM_ENV

    monkeypatch.setattr(contention, "_nvml_total", lambda device: 80 * 2**30)
    fake_gpu.procs[5151] = 2**30
    ev = make_judge()
    ev.device, ev.cuda, ev.candidate_pid = CUDA, True, 5151
    ev.kept_on_device = 3 * 2**30
    ev.note_memory()
    assert ev.env[MEMORY_ENV] == "2048" and ev.env[ROOM_ENV] == str(80 * 1024)
    # the judge's own parts beside the pair's: what it keeps, no arena yet, its allocator's readings
    assert ev.env["device_kept_mib"] == "3072" and ev.env["device_arena_mib"] == "0"
    assert {"device_judge_mib", "device_judge_peak_mib", "device_judge_live_peak_mib"} <= ev.env.keys()


def test_a_wait_for_company_that_left_is_recorded(fake_gpu, make_judge, monkeypatch):
    """A neighbour gone before the timing costs no retry, but its wait held the device: it is named."""
    fake_gpu.procs[777] = 2**20
    monkeypatch.setattr(contention.time, "sleep", lambda s: fake_gpu.procs.pop(777, None))
    c = contention.wait_until_alone(CUDA, 5.0)
    assert c.neighbours == () and c.waited_for == ("777 python3 (1 MiB)",)
    ev = make_judge()
    ev.device = CUDA
    ev.timer = SimpleNamespace(config=TimingConfig(contention_wait_s=5.0))
    fake_gpu.procs[777] = 2**20
    ev.alone(lambda: None)
    assert not ev.contended and not ev.neighbours and list(ev.waited_for) == ["777 python3 (1 MiB)"]
