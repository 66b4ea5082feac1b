"""`openai:MODEL` against a real HTTP server on loopback that speaks the chat-completions protocol
and serves recorded completions, driven through the official `openai` client."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from benchmark.models import GenerationRequest, get_backend
from benchmark.models.base import BackendError, BackendOptions, SamplingParams
from benchmark.models.cache import CachedBackend
from benchmark.run import main as run_main
from benchmark.task import load_task

KEY = "sk-test-key"
MODEL = "test-model"
TASK = """import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["elementwise"]}


class Model(nn.Module):
    def forward(self, x):
        return x + 1


def get_inputs():
    return [torch.randn(8, 8)]


def get_init_inputs():
    return []
"""
# Plain PyTorch: correct, and judged without the anti-cheat rules (--no-strict) to stay C++-free.
CORRECT = "```python\nimport torch\n\n\nclass ModelNew(torch.nn.Module):\n    def forward(self, x):\n        return x + 1\n```"
# Recorded completions for the task, picked by the request's seed (sample i asks for seed + i).
RECORDED = {"level1/add_one": [f"Here is a fused kernel.\n\n{CORRECT}\n", "Sorry, I cannot help with that."]}


class FakeServer:
    """State of the fake endpoint; tests script failures and delays through it."""

    def __init__(self):
        self.models = [MODEL]
        self.list_models = True
        self.failures: list[int] = []  # HTTP statuses to answer the next chat requests with, in order
        self.delay = 0.0  # seconds before every chat answer
        self.slow_marker: str | None = None  # requests whose messages contain it hang
        self.requests: list[dict] = []
        self.model_listings = 0
        self.inflight = 0
        self.max_inflight = 0
        self.release = threading.Event()  # set at teardown, frees hanging handlers
        self.lock = threading.Lock()

    def completion_for(self, body: dict) -> str:
        text = json.dumps(body["messages"])
        for task_id, answers in RECORDED.items():
            if task_id in text:
                return answers[(body.get("seed") or 0) % len(answers)]
        return f"echo: {body['messages'][-1]['content'][:40]}"


def make_handler(fake: FakeServer):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def _send(self, status: int, payload: dict, headers: dict | None = None):
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            try:
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (timeout test)

        def _error(self, status: int, message: str, code: str, headers: dict | None = None):
            self._send(
                status,
                {"error": {"message": message, "type": "invalid_request_error", "code": code}},
                headers,
            )

        def _authorized(self) -> bool:
            if self.headers.get("Authorization") != f"Bearer {KEY}":
                self._error(401, "Incorrect API key provided.", "invalid_api_key")
                return False
            return True

        def do_GET(self):
            if self.path != "/v1/models" or not fake.list_models:
                return self._error(404, "Not Found", "not_found")
            if not self._authorized():
                return None
            with fake.lock:
                fake.model_listings += 1
            self._send(
                200,
                {
                    "object": "list",
                    "data": [
                        {"id": m, "object": "model", "created": 0, "owned_by": "test"} for m in fake.models
                    ],
                },
            )

        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            if self.path != "/v1/chat/completions":
                return self._error(404, "Not Found", "not_found")
            if not self._authorized():
                return None
            if body["model"] not in fake.models:
                return self._error(404, f"The model `{body['model']}` does not exist.", "model_not_found")
            with fake.lock:
                fake.requests.append(body)
                failure = fake.failures.pop(0) if fake.failures else None
                fake.inflight += 1
                fake.max_inflight = max(fake.max_inflight, fake.inflight)
            try:
                if failure == 429:
                    return self._error(
                        429, "Rate limit reached.", "rate_limit_exceeded", {"retry-after-ms": "10"}
                    )
                if failure is not None:
                    return self._error(
                        failure, "The server had an error.", "server_error", {"retry-after-ms": "10"}
                    )
                if fake.slow_marker and fake.slow_marker in json.dumps(body["messages"]):
                    fake.release.wait(10)
                time.sleep(fake.delay)
                text = fake.completion_for(body)
                self._send(
                    200,
                    {
                        "id": f"chatcmpl-{len(fake.requests)}",
                        "object": "chat.completion",
                        "created": int(time.time()),
                        "model": body["model"],
                        "choices": [
                            {
                                "index": 0,
                                "message": {"role": "assistant", "content": text},
                                "finish_reason": "stop",
                            }
                        ],
                        "usage": {
                            "prompt_tokens": 100,
                            "completion_tokens": len(text.split()),
                            "total_tokens": 100 + len(text.split()),
                        },
                    },
                )
            finally:
                with fake.lock:
                    fake.inflight -= 1

    return Handler


@pytest.fixture
def server(monkeypatch):
    monkeypatch.setenv("SOLBENCH_TEST_KEY", KEY)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    fake = FakeServer()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), make_handler(fake))
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    fake.url = f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    yield fake
    fake.release.set()
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture
def task(tmp_path):
    path = tmp_path / "suite" / "level1" / "add_one.py"
    path.parent.mkdir(parents=True)
    path.write_text(TASK)
    return load_task(path, root=tmp_path / "suite")


def backend(server, tmp_path, model=MODEL, sampling=None, **opts):
    options = dict(
        base_url=server.url, api_key_env="SOLBENCH_TEST_KEY", cache_dir=tmp_path / "cache", max_retries=2
    )
    options.update(opts)
    return get_backend(f"openai:{model}", sampling or SamplingParams(seed=0), BackendOptions(**options))


def requests_for(task, n, text="Write ModelNew."):
    return [
        GenerationRequest(task, s, messages=({"role": "user", "content": f"{text} #{s}"},)) for s in range(n)
    ]


def test_completions_and_token_counts(server, tmp_path, task):
    got = sorted(backend(server, tmp_path).generate(requests_for(task, 3)), key=lambda c: c.request.sample)
    assert [c.request.sample for c in got] == [0, 1, 2]
    assert all(c.error is None and c.text.startswith("echo: Write ModelNew. #") for c in got)
    assert got[0].prompt_tokens == 100 and got[0].completion_tokens == 4
    assert [r["seed"] for r in sorted(server.requests, key=lambda r: r["seed"])] == [0, 1, 2]
    assert server.requests[0]["max_tokens"] == 8192 and server.requests[0]["temperature"] == 0.0


def test_requests_run_concurrently_up_to_the_limit(server, tmp_path, task):
    server.delay = 0.4
    start = time.monotonic()
    got = list(backend(server, tmp_path, concurrency=4, cache=False).generate(requests_for(task, 8)))
    elapsed = time.monotonic() - start
    assert len(got) == 8 and all(c.error is None for c in got)
    assert server.max_inflight == 4
    assert elapsed < 8 * 0.4  # sequential would take 3.2 s


def test_retries_after_429_and_500(server, tmp_path, task):
    server.failures = [429, 500]
    (got,) = list(backend(server, tmp_path, concurrency=1).generate(requests_for(task, 1)))
    assert got.error is None and got.text.startswith("echo:")
    assert len(server.requests) == 3  # two refused, the third answered


def test_server_errors_beyond_the_retries_stop_the_run(server, tmp_path, task):
    server.failures = [503] * 10
    with pytest.raises(BackendError, match=r"kept failing after 2 retries \(HTTP 503"):
        list(backend(server, tmp_path, concurrency=1).generate(requests_for(task, 2)))
    assert len(server.requests) == 3


def test_timeout_fails_only_its_own_sample(server, tmp_path, task):
    server.slow_marker = "#1"
    b = backend(server, tmp_path, request_timeout=0.5, max_retries=1)
    got = {c.request.sample: c for c in b.generate(requests_for(task, 3))}
    assert "timed out after 0.5 s (2 attempts)" in got[1].error
    assert got[0].error is None and got[2].error is None
    assert sum("#1" in r["messages"][0]["content"] for r in server.requests) == 2  # retried once


def test_bad_key_is_one_clear_error_before_any_generation(server, tmp_path, task, monkeypatch):
    monkeypatch.setenv("SOLBENCH_TEST_KEY", "sk-wrong")
    b = backend(server, tmp_path)
    with pytest.raises(
        BackendError, match=r"rejected the API key from \$SOLBENCH_TEST_KEY: Incorrect API key"
    ):
        list(b.generate(requests_for(task, 4)))
    assert server.requests == []


def test_missing_key_variable_is_reported(server, tmp_path, monkeypatch):
    monkeypatch.delenv("SOLBENCH_TEST_KEY")
    with pytest.raises(BackendError, match="SOLBENCH_TEST_KEY .* is not set"):
        backend(server, tmp_path)


def test_unknown_model_names_the_served_ones(server, tmp_path, task):
    with pytest.raises(BackendError, match=r"model 'gpt-nope' is not served at .*it serves: test-model"):
        list(backend(server, tmp_path, model="gpt-nope").generate(requests_for(task, 2)))
    assert server.requests == []


def test_unknown_model_without_a_models_endpoint(server, tmp_path, task):
    server.list_models = False
    with pytest.raises(BackendError, match="model 'gpt-nope' is not served .*does not exist"):
        list(backend(server, tmp_path, model="gpt-nope").generate(requests_for(task, 2)))


def test_unreachable_server(tmp_path, task, monkeypatch):
    monkeypatch.setenv("SOLBENCH_TEST_KEY", KEY)
    b = get_backend(
        f"openai:{MODEL}",
        SamplingParams(),
        BackendOptions(
            base_url="http://127.0.0.1:9/v1", api_key_env="SOLBENCH_TEST_KEY", max_retries=0, cache=False
        ),
    )
    with pytest.raises(BackendError, match="cannot reach http://127.0.0.1:9/v1"):
        list(b.generate(requests_for(task, 1)))


def test_cache_hit_makes_no_request(server, tmp_path, task):
    first = backend(server, tmp_path)
    assert isinstance(first, CachedBackend)
    texts = {c.request.sample: c.text for c in first.generate(requests_for(task, 2))}
    asked, listed = len(server.requests), server.model_listings
    assert asked == 2
    again = list(backend(server, tmp_path).generate(requests_for(task, 2)))
    assert len(server.requests) == asked and server.model_listings == listed  # not even a model listing
    assert {c.request.sample: c.text for c in again} == texts
    assert all(c.meta["cached"] and c.prompt_tokens == 100 for c in again)
    # A changed prompt, sampling parameter or sample index is a different completion.
    list(backend(server, tmp_path).generate(requests_for(task, 3, text="Other prompt.")))
    list(
        backend(server, tmp_path, sampling=SamplingParams(seed=0, temperature=0.7)).generate(
            requests_for(task, 1)
        )
    )
    assert len(server.requests) == asked + 3 + 1
    # More samples reuse the first ones.
    list(backend(server, tmp_path).generate(requests_for(task, 3)))
    assert len(server.requests) == asked + 5
    # --no-cache asks again.
    list(backend(server, tmp_path, cache=False).generate(requests_for(task, 2)))
    assert len(server.requests) == asked + 7


def test_failed_requests_are_not_cached(server, tmp_path, task):
    server.slow_marker = "#0"
    b = backend(server, tmp_path, request_timeout=0.3, max_retries=0)
    assert list(b.generate(requests_for(task, 1)))[0].error
    server.slow_marker = None
    (again,) = list(backend(server, tmp_path).generate(requests_for(task, 1)))
    assert again.error is None and not again.meta.get("cached")


def cli(server, tmp_path, out: Path, *extra: str) -> int:
    return run_main(
        [
            "--model",
            f"openai:{MODEL}",
            "--base-url",
            server.url,
            "--api-key-env",
            "SOLBENCH_TEST_KEY",
            "--suite",
            str(tmp_path / "suite"),
            "--device",
            "cpu",
            "--no-timing",
            "--trials",
            "1",
            "--no-strict",
            "--samples",
            "2",
            "--seed",
            "0",
            "--cache-dir",
            str(tmp_path / "cache"),
            "--out",
            str(out),
            "--quiet",
            *extra,
        ]
    )


def test_end_to_end_run_and_rerun_without_requests(server, tmp_path, task, capsys):
    assert cli(server, tmp_path, tmp_path / "run1") == 0
    printed = capsys.readouterr().out
    assert "tokens: 200 prompt" in printed
    records = [json.loads(line) for line in (tmp_path / "run1" / "results.jsonl").read_text().splitlines()]
    assert sorted((r["sample"], r["verdict"]) for r in records) == [(0, "pass"), (1, "no_code")]
    summary = json.loads((tmp_path / "run1" / "summary.json").read_text())
    assert summary["usage"]["prompt_tokens"] == 200 and summary["usage"]["from_cache"] == 0
    assert summary["turns"]["1"]["pass_rate"] == 0.5
    info = json.loads((tmp_path / "run1" / "run.json").read_text())
    assert info["backend"]["model"] == MODEL and info["prompt"]["prompt"] == "zero-shot"
    assert KEY not in json.dumps(info)
    first_prompt = server.requests[0]["messages"]
    assert first_prompt[0]["role"] == "system" and "level1/add_one" in first_prompt[1]["content"]
    assert len(server.requests) == 2

    # The same command into a fresh directory: every completion comes from the cache.
    assert cli(server, tmp_path, tmp_path / "run2") == 0
    assert len(server.requests) == 2
    summary2 = json.loads((tmp_path / "run2" / "summary.json").read_text())
    assert summary2["usage"]["from_cache"] == 2
    assert summary2["metrics"]["overall"]["avg_at_k"] == summary["metrics"]["overall"]["avg_at_k"]


def test_cli_auth_error_stops_before_evaluating(server, tmp_path, task, monkeypatch, capsys):
    monkeypatch.setenv("SOLBENCH_TEST_KEY", "sk-wrong")
    assert cli(server, tmp_path, tmp_path / "run") == 2
    err = capsys.readouterr().err
    assert err.count("rejected the API key") == 1
    assert not (tmp_path / "run" / "results.jsonl").exists()


def test_an_unreachable_server_stops_the_run_quickly_and_leaves_no_run_directory(
    tmp_path, monkeypatch, data_dir
):
    import time

    from benchmark.evaluate.harness import EvalConfig
    from benchmark.runner import RunConfig, run

    monkeypatch.setenv("SOLBENCH_TEST_KEY", KEY)
    out = tmp_path / "run"
    config = RunConfig(
        model=f"openai:{MODEL}",
        out=out,
        suite=str(data_dir / "suite"),
        eval=EvalConfig(measure=False),
        progress=False,
        backend=BackendOptions(
            base_url="http://127.0.0.1:9/v1", api_key_env="SOLBENCH_TEST_KEY", cache=False
        ),  # default retries
    )
    t0 = time.monotonic()
    with pytest.raises(BackendError, match="cannot reach http://127.0.0.1:9/v1"):
        run(config)
    assert time.monotonic() - t0 < 20
    assert not out.exists()
