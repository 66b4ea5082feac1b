"""`--model openai:MODEL`: any OpenAI-compatible chat-completions endpoint (vLLM, SGLang, hosted APIs).

    python -m benchmark.run --model openai:Qwen/Qwen3-8B --base-url http://127.0.0.1:8000/v1

The key comes from $OPENAI_API_KEY, or from the variable named by `--api-key-env`; a local server
without auth needs none. Requests run `concurrency` at a time on a thread pool. Rate limits (429),
server errors (5xx), timeouts and dropped connections are retried by the official client with
exponential backoff (honouring Retry-After), up to `max_retries` times.

What stops the run, with one message and before anything is evaluated: a rejected key (401/403),
an unknown model, an unreachable server, and rate limits or server errors that outlast the retries
(rerun later: finished samples are kept). What fails only its own sample (verdict no_code, with the
reason): a request the server rejects as invalid (400, e.g. a prompt longer than the context) and
a request that keeps timing out."""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait

from benchmark.models.base import (
    Backend,
    BackendError,
    BackendOptions,
    Completion,
    GenerationRequest,
    SamplingParams,
    register_backend,
)

log = logging.getLogger(__name__)
NO_KEY = "EMPTY"  # what local servers started without --api-key accept
# The reachability check before the first request: an unreachable server fails in seconds, not after
# the full retry schedule of a generation request (8 retries with backoff took 33 s).
CHECK_OPTIONS = {"max_retries": 1, "timeout": 15.0}


def _message(err: Exception) -> str:
    """The server's own words, without the client's boilerplate."""
    body = getattr(err, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and inner.get("message"):
            return str(inner["message"])
        if isinstance(body.get("message"), str):
            return body["message"]
    return str(getattr(err, "message", None) or err)


def _mentions_unknown_model(text: str) -> bool:
    t = text.lower()
    return "model" in t and any(
        w in t for w in ("does not exist", "not found", "unknown", "not exist", "no such")
    )


class OpenAIBackend(Backend):
    name = "openai"

    def __init__(self, model: str, sampling: SamplingParams, options: BackendOptions):
        import openai

        if not model:
            raise ValueError("openai needs a model name: --model openai:MODEL")
        self.openai = openai
        self.model = model
        self.sampling = sampling
        self.options = options
        key = os.environ.get(options.api_key_env)
        if not key:
            if options.api_key_env != "OPENAI_API_KEY":
                raise BackendError(
                    f"environment variable {options.api_key_env} (from --api-key-env) is not set"
                )
            if not (options.base_url or os.environ.get("OPENAI_BASE_URL")):
                raise BackendError(
                    "no API key: set OPENAI_API_KEY, name another variable with --api-key-env, "
                    "or point --base-url at a local server"
                )
            key = NO_KEY
        self.client = openai.OpenAI(
            api_key=key,
            base_url=options.base_url,
            timeout=options.request_timeout,
            max_retries=options.max_retries,
        )
        self.endpoint = str(self.client.base_url).rstrip("/")
        self._tokens_param = "max_tokens"
        self._checked = False
        self._lock = threading.Lock()
        self._stopping = threading.Event()  # set by a run-stopping error: no further request is sent

    # -- failing fast ---------------------------------------------------------------------------

    def check(self) -> None:
        """List the served models: a bad key or an unreachable server fails here, once. A model
        missing from the list is confirmed with a one-token request, since some providers list
        only part of what they serve."""
        with self._lock:
            if self._checked:
                return
            o = self.openai
            try:
                served = [m.id for m in self.client.with_options(**CHECK_OPTIONS).models.list()]
            except (o.AuthenticationError, o.PermissionDeniedError) as e:
                raise self._auth_error(e) from None
            except o.APIConnectionError as e:
                raise BackendError(f"cannot reach {self.endpoint}: {e}") from None
            except o.APIStatusError as e:
                log.info(
                    "%s does not list models (%s); the first request will tell", self.endpoint, e.status_code
                )
                served = None
            if served is None or self.model not in served:
                self._probe(served)
            self._checked = True

    def _probe(self, served: list[str] | None) -> None:
        try:
            self.client.chat.completions.create(
                model=self.model, messages=[{"role": "user", "content": "Reply with OK."}], max_tokens=1
            )
        except self.openai.APIStatusError as e:
            fatal = self._fatal(e, served)
            if fatal is not None:
                raise fatal from None
            log.info("probe request was refused (%s: %s); carrying on", e.status_code, _message(e))
        except self.openai.APIConnectionError as e:
            raise BackendError(f"cannot reach {self.endpoint}: {e}") from None

    def _auth_error(self, e: Exception) -> BackendError:
        return BackendError(
            f"{self.endpoint} rejected the API key from ${self.options.api_key_env}: {_message(e)}"
        )

    def _unknown_model(self, e: Exception, served: list[str] | None) -> BackendError:
        if served is None:
            try:
                served = [m.id for m in self.client.with_options(**CHECK_OPTIONS).models.list()]
            except self.openai.OpenAIError:
                served = []
        listed = (
            f"; it serves: {', '.join(served[:20])}{' ...' if len(served) > 20 else ''}" if served else ""
        )
        return BackendError(f"model {self.model!r} is not served at {self.endpoint} ({_message(e)}){listed}")

    def _fatal(self, e: Exception, served: list[str] | None = None) -> BackendError | None:
        """The error as a run-stopping BackendError, or None when only this request failed."""
        o = self.openai
        retries = f"after {self.options.max_retries} retries"
        if isinstance(e, o.AuthenticationError | o.PermissionDeniedError):
            return self._auth_error(e)
        if isinstance(e, o.NotFoundError):
            return self._unknown_model(e, served)
        if isinstance(e, o.BadRequestError | o.UnprocessableEntityError) and _mentions_unknown_model(
            _message(e)
        ):
            return self._unknown_model(e, served)
        if isinstance(e, o.RateLimitError):
            return BackendError(
                f"{self.endpoint} is still rate limiting {retries}: {_message(e)}; rerun later to resume"
            )
        if isinstance(e, o.APIStatusError) and e.status_code >= 500:
            return BackendError(
                f"{self.endpoint} kept failing {retries} (HTTP {e.status_code}: {_message(e)}); rerun later to resume"
            )
        if isinstance(e, o.APITimeoutError):
            return None
        if isinstance(e, o.APIConnectionError):
            return BackendError(f"lost the connection to {self.endpoint} {retries}: {e}")
        return None

    # -- generation -----------------------------------------------------------------------------

    def _create(self, req: GenerationRequest):
        params = dict(
            model=self.model,
            messages=list(req.messages),
            temperature=self.sampling.temperature,
            top_p=self.sampling.top_p,
        )
        seed = self.sampling.seed_for(req.sample)
        if seed is not None:
            params["seed"] = seed
        try:
            return self.client.chat.completions.create(
                **params, **{self._tokens_param: self.sampling.max_tokens}
            )
        except self.openai.BadRequestError as e:
            if self._tokens_param == "max_tokens" and "max_completion_tokens" in _message(e):
                self._tokens_param = "max_completion_tokens"  # newer hosted models refuse max_tokens
                return self.client.chat.completions.create(
                    **params, max_completion_tokens=self.sampling.max_tokens
                )
            raise

    def _one(self, req: GenerationRequest) -> Completion:
        if not req.messages:
            raise ValueError("openai backend needs prompt messages")
        if self._stopping.is_set():  # a worker thread may take the next request before the run stops
            return Completion(req, "", error="not sent: the run is stopping")
        try:
            resp = self._create(req)
        except self.openai.OpenAIError as e:
            fatal = self._fatal(e)
            if fatal is not None:
                self._stopping.set()
                raise fatal from None
            if isinstance(e, self.openai.APITimeoutError):
                return Completion(
                    req,
                    "",
                    error=(
                        f"request timed out after {self.options.request_timeout:g} s "
                        f"({self.options.max_retries + 1} attempts)"
                    ),
                )
            status = getattr(e, "status_code", None)
            return Completion(req, "", error=f"request refused (HTTP {status}): {_message(e)}")
        if not resp.choices:
            return Completion(req, "", error="the server returned no choices")
        choice = resp.choices[0]
        usage = resp.usage
        return Completion(
            req,
            choice.message.content or "",
            prompt_tokens=usage.prompt_tokens if usage else None,
            completion_tokens=usage.completion_tokens if usage else None,
            meta={"finish_reason": choice.finish_reason, "id": resp.id},
        )

    def generate(self, requests: Sequence[GenerationRequest]) -> Iterator[Completion]:
        if not requests:
            return
        self.check()
        self._stopping.clear()
        pool = ThreadPoolExecutor(self.options.concurrency, thread_name_prefix="solbench-openai")
        pending: set[Future] = {pool.submit(self._one, req) for req in requests}
        try:
            while pending:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for fut in done:
                    yield fut.result()
        finally:
            pool.shutdown(wait=False, cancel_futures=True)

    def cache_identity(self) -> dict:
        return {"backend": self.name, "model": self.model, "endpoint": self.endpoint}

    def describe(self) -> dict:
        return {
            "backend": self.name,
            "model": self.model,
            "endpoint": self.endpoint,
            "api_key_env": self.options.api_key_env,
            "concurrency": self.options.concurrency,
            "request_timeout": self.options.request_timeout,
            "max_retries": self.options.max_retries,
        }


@register_backend("openai")
def _make(arg: str, sampling: SamplingParams | None = None, options: BackendOptions | None = None) -> Backend:
    return OpenAIBackend(arg, sampling or SamplingParams(), options or BackendOptions())
