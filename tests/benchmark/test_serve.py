"""The HTTP verifier service on loopback: auth, limits, back-pressure, results, graceful drain."""

from __future__ import annotations

import dataclasses
import json
import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import pytest

from benchmark.evaluate.harness import TaskError
from benchmark.serve import RemoteVerifier, ServeConfig, Service
from benchmark.task import load_task
from benchmark.verdict import Status
from benchmark.verify.verifier import Request, Verifier, VerifierConfig

TOKEN = "test-token"
SLOW = "import torch\nimport time\nclass ModelNew(torch.nn.Module):\n    def forward(self, x):\n        time.sleep(1.5)\n        return x * 2 + 1\n"


@pytest.fixture
def service(data_dir, fast_eval):
    cfg = dataclasses.replace(fast_eval, measure=False, strict=False)
    svc = Service(
        ServeConfig(port=0, token=TOKEN, max_body=20_000, capacity=2),
        Verifier(VerifierConfig(eval=cfg, build_workers=1)),
        str(data_dir / "suite"),
    )
    thread = threading.Thread(target=svc.serve_forever, daemon=True)
    thread.start()
    yield svc
    if not svc.draining:
        svc.begin_drain()
    thread.join(timeout=30)
    svc.finish()


def post(url, payload, token=TOKEN, raw=None):
    data = raw if raw is not None else json.dumps(payload).encode()
    req = urllib.request.Request(
        url + "/verify",
        data=data,
        method="POST",
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(req, timeout=300) as resp:
            return resp.status, json.loads(resp.read()), resp.headers
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read()), e.headers


def test_auth_is_required(service):
    assert post(service.url, {"items": []}, token="wrong")[0] == 401
    with pytest.raises(urllib.error.HTTPError) as e:
        RemoteVerifier(service.url, "").health()
    assert e.value.code == 401
    assert RemoteVerifier(service.url, TOKEN).health()["status"] == "ok"


def test_limits_and_back_pressure(service):
    assert post(service.url, None, raw=b"x" * 30_000)[0] == 413
    assert post(service.url, None, raw=b"not json")[0] == 400
    code, body, headers = post(service.url, {"items": [{"task_id": "level1/scale_shift", "code": ""}] * 3})
    assert code == 503 and headers["Retry-After"] == "5"
    assert post(service.url, {"items": [{"task_id": "level1/nope", "code": ""}]})[0] == 400


def test_verdicts_and_rewards(service, data_dir):
    source = (data_dir / "suite" / "level1" / "scale_shift.py").read_text()
    correct = (data_dir / "candidates" / "torch_correct.py").read_text()
    results = RemoteVerifier(service.url, TOKEN).verify_items(
        [{"task_id": "level1/scale_shift", "code": ""}, {"task_source": source, "code": correct}]
    )
    assert [r["verdict"]["verdict"] for r in results] == ["no_code", "pass"]
    assert [r["reward"] for r in results] == [-1.0, 1.0]


def test_the_client_has_the_verifiers_api(service, data_dir):
    """submit/verify/reward/close as benchmark.verify.verifier.Verifier: Verdicts that name the caller's task,
    more samples than the service's capacity (its 503s are waited out), a broken task as TaskError."""
    task = load_task(data_dir / "suite" / "level1" / "scale_shift.py", root=data_dir / "suite")
    correct = (data_dir / "candidates" / "torch_correct.py").read_text()
    with RemoteVerifier(service.url, TOKEN, service.verifier.config) as remote:
        verdicts = remote.verify([Request(task, correct, sample=i, turn=2) for i in range(3)])
        broken = remote.submit(load_task(data_dir / "broken_task.py"), correct)
        with pytest.raises(TaskError):
            broken.result()
        with pytest.raises(ValueError, match="trusted"):
            remote.submit(task, correct, trusted=True)
    assert [(v.status, v.task_id, v.level, v.sample, v.turn) for v in verdicts] == [
        (Status.PASS, "level1/scale_shift", 1, i, 2) for i in range(3)
    ]
    assert remote.reward(verdicts[0]) == 1.0


def test_drain_finishes_accepted_work(service):
    answers = []
    worker = threading.Thread(
        target=lambda: answers.append(
            post(service.url, {"items": [{"task_id": "level1/scale_shift", "code": SLOW}]})
        )
    )
    worker.start()
    time.sleep(0.5)
    while service._pending == 0 and worker.is_alive():
        time.sleep(0.2)
    service.begin_drain()
    worker.join(timeout=300)
    assert answers and answers[0][0] == 200
    assert answers[0][1]["results"][0]["verdict"]["verdict"] == "pass"


def test_token_is_mandatory(data_dir, fast_eval):
    with pytest.raises(ValueError, match="SOLBENCH_TOKEN"):
        Service(
            ServeConfig(port=0, token=""), Verifier(VerifierConfig(eval=fast_eval)), str(data_dir / "suite")
        )


def test_concurrent_requests_of_one_task_source_each_load_it(service, data_dir):
    """Handler threads share the file a task's source is written to: none may read it half-written
    (one of three concurrent requests once got "task file does not define Model")."""
    base = (data_dir / "suite" / "level1" / "scale_shift.py").read_text()
    with ThreadPoolExecutor(8) as pool:
        for round_ in range(20):
            source = f"{base}\n# round {round_}\n" + "# padding\n" * 2000  # a new file each round
            barrier = threading.Barrier(8)

            def load(_, source=source, barrier=barrier):
                barrier.wait()
                return service._task({"task_source": source}).task_id

            assert len(set(pool.map(load, range(8)))) == 1
