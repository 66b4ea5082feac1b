"""The signatures on the messages a worker writes to its parent over the private result
descriptor (benchmark.evaluate.worker writes them, benchmark.evaluate.sandbox checks them): each is an HMAC with the
job's nonce, which only the parent and that child know, so a candidate that writes to the
descriptor cannot forge a result."""

from __future__ import annotations

import hashlib
import hmac

CLOCK_PREFIX = "clock:"  # what a clock message signs, so it never verifies as a result
PHASE_PREFIX = "phase:"  # what a phase message signs (the judge's: what it is doing now)


def sign(nonce: str, body: str) -> str:
    return hmac.new(nonce.encode(), body.encode(), hashlib.sha256).hexdigest()
