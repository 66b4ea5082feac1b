"""The per-device reader-writer lock: checks share the device, timing has it alone. Each thread
opens its own handle, as each evaluation process does."""

import threading
import time

from benchmark.evaluate.gpu_lock import DeviceLock, admit, dismiss


def test_shared_holders_overlap(tmp_path):
    inside, peak = [0], [0]

    def reader():
        with DeviceLock(tmp_path / "gpu0").shared():
            inside[0] += 1
            peak[0] = max(peak[0], inside[0])
            time.sleep(0.3)
            inside[0] -= 1

    threads = [threading.Thread(target=reader) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert peak[0] == 3


def test_exclusive_waits_for_readers_and_blocks_new_ones(tmp_path):
    events = []

    def reader(name, delay):
        lock = DeviceLock(tmp_path / "gpu0")
        time.sleep(delay)
        with lock.shared():
            events.append(f"{name} in")
            time.sleep(0.4)
            events.append(f"{name} out")

    def writer():
        lock = DeviceLock(tmp_path / "gpu0")
        time.sleep(0.1)
        with lock.exclusive():
            events.append("writer in")
            time.sleep(0.3)
            events.append("writer out")

    threads = [
        threading.Thread(target=reader, args=("r1", 0.0)),
        threading.Thread(target=writer),
        threading.Thread(target=reader, args=("r2", 0.2)),
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert events.index("writer in") > events.index("r1 out")  # waited for the reader already in
    assert events.index("r2 in") > events.index("writer out")  # a later reader waited behind the writer


def test_no_path_is_a_no_op():
    lock = DeviceLock(None)
    with lock.shared(), lock.exclusive():
        pass


def test_time_held_alone_is_counted_apart_from_the_wait(tmp_path):
    reader, writer = DeviceLock(tmp_path / "gpu0"), DeviceLock(tmp_path / "gpu0")
    held = threading.Event()

    def read():
        with reader.shared():
            held.set()
            time.sleep(0.3)

    t = threading.Thread(target=read)
    t.start()
    held.wait()
    with writer.exclusive():
        time.sleep(0.2)
    t.join()
    assert writer.waited_s > 0.15  # behind the reader
    assert 0.2 <= writer.held_alone_s < 0.3
    assert reader.held_alone_s == 0.0  # shared holding is not alone


def test_a_wait_for_the_lock_is_told_so_it_is_charged_to_no_limit(tmp_path):
    """The judge reports its clock as waiting while `on_wait` says so (benchmark.evaluate.sandbox
    charges that time to no limit); a lock taken at once tells nothing."""
    told: list[bool] = []
    holder = DeviceLock(tmp_path / "gpu0")
    waiter = DeviceLock(tmp_path / "gpu0", on_wait=told.append)
    with waiter.shared():
        pass
    assert told == []
    released = threading.Event()

    def hold():
        with holder.exclusive():
            released.wait(5)

    t = threading.Thread(target=hold)
    t.start()
    time.sleep(0.2)
    threading.Timer(0.3, released.set).start()
    with waiter.shared():
        assert told == [True, False]
    t.join()


def test_an_admitted_process_is_a_member_until_dismissed_or_gone(tmp_path):
    """The parent admits a candidate's process (it calls the GPU only on its judge's requests, made
    under the lock), so other lanes' neighbour checks know it; a dismissed or dead one is not."""
    import subprocess
    import sys

    other = DeviceLock(tmp_path / "gpu0")  # another lane's judge
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        admit(tmp_path / "gpu0", child.pid)
        assert child.pid in other.members()
        dismiss(tmp_path / "gpu0", child.pid)
        assert child.pid not in other.members()
        admit(tmp_path / "gpu0", child.pid)
    finally:
        child.kill()
        child.wait()
    assert child.pid not in other.members()
