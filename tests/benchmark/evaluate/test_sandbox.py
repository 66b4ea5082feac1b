"""Sandbox properties, one test each: secrets scrubbed, no network. Each property again for both ways
of starting a worker (spawned, forked from the zygote), and no orphan after a killed run: test_zygote.py."""

from __future__ import annotations

import dataclasses

from benchmark.evaluate.harness import evaluate
from benchmark.evaluate.sandbox import network_isolated, scrubbed_env
from benchmark.task import load_task
from benchmark.verdict import Status

LEAK = """import os
import torch


class ModelNew(torch.nn.Module):
    def forward(self, x):
        raise RuntimeError("env:" + ",".join(sorted(k for k in os.environ if "TOKEN" in k or "KEY" in k)))
"""


def test_secrets_are_scrubbed(monkeypatch, data_dir, fast_eval):
    monkeypatch.setenv("HF_TOKEN", "hf_secret")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret")
    env = scrubbed_env()
    assert "HF_TOKEN" not in env and "OPENAI_API_KEY" not in env and "PATH" in env
    task = load_task(data_dir / "suite" / "level1" / "scale_shift.py")
    verdict = evaluate(task, LEAK, dataclasses.replace(fast_eval, strict=False, measure=False))
    assert verdict.status is Status.RUNTIME_ERROR
    assert "env:" in verdict.error and "HF_TOKEN" not in verdict.error and "OPENAI" not in verdict.error


def test_children_get_no_network_where_the_os_allows():
    # On this kind of machine (root, unshare permitted) the child's namespace has no interfaces.
    assert network_isolated()


def test_a_long_result_line_is_read_in_linear_time():
    """A 64 MiB result line once took 76 s to read (the pending line was joined again on every read)."""
    import json
    import os
    import threading
    import time

    from benchmark.evaluate.channel import sign
    from benchmark.evaluate.sandbox import CLOCK_PREFIX, Clocks, Pipe, _read_until

    nonce = "n" * 64
    clock = json.dumps({"clock": "build", "mac": sign(nonce, CLOCK_PREFIX + "build")}).encode() + b"\n"
    body = b'{"body": "' + b"x" * (64 << 20) + b'"}\n'
    read_fd, write_fd = os.pipe()

    def write():
        with os.fdopen(write_fd, "wb") as f:
            f.write(clock + body)

    clocks = Clocks({"run": 600.0, "build": 600.0}, "run", time.monotonic())
    writer = threading.Thread(target=write)
    writer.start()
    t0 = time.monotonic()
    pipe = Pipe(read_fd, nonce, lambda name: clocks.switch(name, time.monotonic()))
    over = _read_until([pipe], pipe, clocks)
    raw = b"".join(pipe.chunks)
    elapsed = time.monotonic() - t0
    writer.join()
    os.close(read_fd)
    assert over is None and raw == clock + body
    assert clocks.current == "build"  # the clock message before it was still followed
    assert elapsed < 10, elapsed
