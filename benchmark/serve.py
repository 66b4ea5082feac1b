"""The verifier as an HTTP service, for trainers and builders on other machines:

    SOLBENCH_TOKEN=secret python -m benchmark.serve --port 8765 --device cuda

POST /verify   {"items": [{"task_id": "level1/gelu_tanh_fp32" | "task_source": "...", "code": "...",
                "sample": 0, "turn": 1, "model": "", "sol_ms": null}, ...]}  ->  {"results": [{"verdict": {...}, "reward": 1.3}, ...]}
GET  /health   -> {"status": "ok" | "draining", "pending": N, "capacity": M}

Every request needs `Authorization: Bearer TOKEN` (the token from SOLBENCH_TOKEN, or the variable
--api-key-env names).
Bodies over --max-body bytes get 413. At most --capacity items are in flight; a batch that does not
fit gets 503 with Retry-After (back-pressure, nothing is queued unboundedly). SIGTERM or SIGINT
drains: new work gets 503, work already accepted is finished and answered, then the process exits.
A Python client with the verifier's own interface comes with it (docs/verifier.md)."""

from __future__ import annotations

import argparse
import dataclasses
import hmac
import json
import logging
import os
import signal
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from benchmark.evaluate.harness import EvalConfig, TaskError
from benchmark.flags import SUITE_HELP, add_api_key_env, add_device
from benchmark.host import default_device
from benchmark.suite import load_suite
from benchmark.task import Task, TaskLoadError, load_task, sha256_text
from benchmark.verdict import Verdict
from benchmark.verify.verifier import Request, Verifier, VerifierBase, VerifierConfig

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ServeConfig:
    host: str = "127.0.0.1"
    port: int = 8765
    token: str = ""
    max_body: int = 4 * 2**20  # bytes per request
    capacity: int = 256  # items accepted and not yet answered, across all requests


class Service:
    def __init__(self, config: ServeConfig, verifier: Verifier, suite_root: str | None = None):
        if not config.token:
            raise ValueError(
                "the service needs a token: set SOLBENCH_TOKEN (or name another variable with --api-key-env)"
            )
        self.config = config
        self.verifier = verifier
        self.tasks = {t.task_id: t for t in load_suite(suite_root).tasks}
        self._pending = 0
        self._lock = threading.Lock()
        self.draining = False
        self._task_dir = Path(tempfile.mkdtemp(prefix="solbench-serve-tasks-"))
        self.httpd = ThreadingHTTPServer((config.host, config.port), self._handler())
        self.httpd.daemon_threads = False  # shutdown waits for requests in flight

    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}"

    # admission
    def _reserve(self, n: int) -> bool:
        with self._lock:
            if self.draining or self._pending + n > self.config.capacity:
                return False
            self._pending += n
            return True

    def _release(self, n: int) -> None:
        with self._lock:
            self._pending -= n

    def _task(self, item: dict) -> Task:
        if "task_id" in item:
            task = self.tasks.get(item["task_id"])
            if task is None:
                raise KeyError(f"unknown task_id {item['task_id']!r}")
            return task
        source = item.get("task_source")
        if not isinstance(source, str):
            raise KeyError("each item needs task_id or task_source")
        path = self._task_dir / f"task_{sha256_text(source)[:16]}.py"
        if not path.exists():  # named by its content; written whole, since requests share it
            partial = path.with_suffix(f".{threading.get_ident()}.partial")
            partial.write_text(source)
            os.replace(partial, path)
        return load_task(path)

    def verify(self, items: list[dict]) -> list[dict]:
        futures = []
        for item in items:
            sol_ms = item.get("sol_ms")
            req = Request(
                self._task(item),
                item.get("code"),
                sample=int(item.get("sample", 0)),
                turn=int(item.get("turn", 1)),
                model=str(item.get("model", "")),
                sol_ms=float(sol_ms) if sol_ms is not None else None,
            )
            futures.append(self.verifier.submit_request(req))
        results = []
        for f in futures:
            try:
                verdict: Verdict = f.result()
                results.append({"verdict": verdict.to_dict(), "reward": self.verifier.reward(verdict)})
            except TaskError as e:
                results.append({"error": f"task error: {e}"})
        return results

    def _handler(self):
        service = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, fmt, *args):
                log.info("%s " + fmt, self.address_string(), *args)

            def _send(self, code: int, payload: dict, headers: dict | None = None) -> None:
                body = json.dumps(payload).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(body)

            def _authorized(self) -> bool:
                given = self.headers.get("Authorization", "").removeprefix("Bearer ").strip()
                if hmac.compare_digest(given.encode(), service.config.token.encode()):
                    return True
                self._send(401, {"error": "missing or wrong bearer token"})
                return False

            def do_GET(self):
                if not self._authorized():
                    return
                if self.path != "/health":
                    return self._send(404, {"error": f"no such endpoint {self.path}"})
                self._send(
                    200,
                    {
                        "status": "draining" if service.draining else "ok",
                        "pending": service._pending,
                        "capacity": service.config.capacity,
                    },
                )

            def do_POST(self):
                if not self._authorized():
                    return
                if self.path != "/verify":
                    return self._send(404, {"error": f"no such endpoint {self.path}"})
                length = int(self.headers.get("Content-Length") or 0)
                if length > service.config.max_body:
                    self.close_connection = True
                    return self._send(
                        413,
                        {"error": f"body of {length} bytes is over the limit of {service.config.max_body}"},
                    )
                try:
                    items = json.loads(self.rfile.read(length))["items"]
                    if not isinstance(items, list) or not all(isinstance(i, dict) for i in items):
                        raise TypeError("items must be a list of objects")
                except (ValueError, KeyError, TypeError) as e:
                    return self._send(400, {"error": f"bad request: {e}"})
                if not service._reserve(len(items)):
                    reason = "draining" if service.draining else "at capacity"
                    return self._send(503, {"error": f"service {reason}; retry later"}, {"Retry-After": "5"})
                try:
                    self._send(200, {"results": service.verify(items)})
                except (KeyError, TaskLoadError) as e:
                    self._send(400, {"error": f"bad request: {e}"})
                finally:
                    service._release(len(items))

        return Handler

    # lifecycle
    def serve_forever(self) -> None:
        self.httpd.serve_forever()

    def begin_drain(self) -> None:
        """Refuse new work from now on and stop serve_forever (safe to call from a signal handler)."""
        if not self.draining:
            self.draining = True
            threading.Thread(target=self.httpd.shutdown, daemon=True).start()

    def finish(self) -> None:
        """After serve_forever returns: answer the requests already accepted, then release everything."""
        self.httpd.server_close()  # joins the threads still answering accepted requests
        self.verifier.close()


class RemoteVerifier(VerifierBase):
    """Client of the service with Verifier's API (submit, submit_request, verify, reward, close, a
    context manager), so the runner, the dataset builder and the RL rewards can verify through a
    service on another machine. `config` should be the service's: its reward settings shape the
    rewards here, its eval settings name the device and strictness of verdicts decided here. The
    task travels as its source; the verdict names it by the caller's id and level. A full service
    (503, at capacity) is retried after its Retry-After, up to `timeout`; a draining one is not."""

    def __init__(
        self,
        url: str,
        token: str,
        config: VerifierConfig | None = None,
        timeout: float = 3600.0,
        concurrency: int = 8,
    ):
        self.url = url.rstrip("/")
        self.token = token
        self.config = config or VerifierConfig()
        self.timeout = timeout
        self._pool = ThreadPoolExecutor(concurrency, thread_name_prefix="solbench-remote")

    def _call(self, method: str, path: str, payload: dict | None = None) -> dict:
        data = json.dumps(payload).encode() if payload is not None else None
        req = urllib.request.Request(
            self.url + path,
            data=data,
            method=method,
            headers={"Authorization": f"Bearer {self.token}", "Content-Type": "application/json"},
        )
        with urllib.request.urlopen(req, timeout=self.timeout) as resp:
            return json.loads(resp.read())

    def health(self) -> dict:
        return self._call("GET", "/health")

    def verify_items(self, items: list[dict]) -> list[dict]:
        """The protocol itself: one POST /verify of raw items, its raw results."""
        deadline = time.monotonic() + self.timeout
        while True:
            try:
                return self._call("POST", "/verify", {"items": items})["results"]
            except urllib.error.HTTPError as e:
                body = e.read().decode(errors="replace")
                wait = float(e.headers.get("Retry-After") or 5)
                if e.code != 503 or "draining" in body or time.monotonic() + wait > deadline:
                    raise RuntimeError(f"verifier service answered {e.code}: {body}") from e
                time.sleep(wait)

    # lifecycle
    def close(self, cancel_pending: bool = False) -> None:
        self._pool.shutdown(wait=True, cancel_futures=cancel_pending)

    # the API (with VerifierBase's)
    def submit_request(self, req: Request) -> Future[Verdict]:
        if req.trusted:
            raise ValueError("the service evaluates no trusted code: every candidate gets the strict checks")
        return self._pool.submit(self._verify_one, req)

    def _verify_one(self, req: Request) -> Verdict:
        item = {
            "task_source": req.task.source,
            "code": req.code,
            "sample": req.sample,
            "turn": req.turn,
            "model": req.model,
            "sol_ms": req.sol_ms,
        }
        (result,) = self.verify_items([item])
        if "error" in result:
            raise TaskError(result["error"].removeprefix("task error: "))
        verdict = Verdict.from_dict(result["verdict"])
        return dataclasses.replace(verdict, task_id=req.task.task_id, level=req.task.level)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m benchmark.serve",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1)")
    p.add_argument("--port", type=int, default=8765, help="port to listen on (default: 8765)")
    add_api_key_env(
        p,
        default="SOLBENCH_TOKEN",
        secret="the shared token clients send as their bearer token",
        old=("--token-env",),
    )
    add_device(p)
    p.add_argument("--gpus", default=None, help="comma-separated GPU indices (default: all visible)")
    p.add_argument("--suite", default=None, help=f"the suite whose task ids requests may name: {SUITE_HELP}")
    p.add_argument("--capacity", type=int, default=256, help="items in flight before 503")
    p.add_argument("--max-body", type=int, default=4 * 2**20, help="largest request body in bytes")
    p.add_argument("--no-timing", action="store_true", help="correctness only (no speedup in rewards)")
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    token = os.environ.get(args.api_key_env, "")
    eval_cfg = EvalConfig(device=args.device or default_device(), measure=not args.no_timing)
    gpus = tuple(int(g) for g in args.gpus.split(",")) if args.gpus else None
    try:
        service = Service(
            ServeConfig(args.host, args.port, token, args.max_body, args.capacity),
            Verifier(VerifierConfig(eval=eval_cfg, gpus=gpus)),
            args.suite,
        )
    except (ValueError, RuntimeError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: service.begin_drain())
    log.info("serving on %s", service.url)
    service.serve_forever()
    log.info("draining: finishing accepted work")
    service.finish()
    return 0


if __name__ == "__main__":
    sys.exit(main())
