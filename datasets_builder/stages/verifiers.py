"""The build's verifiers: the one that judges every candidate and the one that times the subset.

Each is made from the config on first use (a build that never verifies starts no pool); verifiers
given in code (tests, callers with their own pools) are used as they are and left open."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from datasets_builder.config import BuildConfig

if TYPE_CHECKING:
    from benchmark.evaluate.harness import EvalConfig


def build_eval_config(config: BuildConfig, cache_dir: Path, measure: bool) -> EvalConfig:
    """The verifiers' EvalConfig: the build's own keys (device, verify.*, timing.*), then verify.eval
    for every other setting; the cache under the build's folder unless verify.eval names one."""
    from benchmark.evaluate.harness import EvalConfig

    v, stage = config.verify, config.timing
    extra = dict(v.eval)
    own = {
        "device": config.device,
        "trials": v.trials,
        "measure": measure,
        "strict": v.strict,
        "timeout_s": v.timeout_s,
        "baseline": stage.baseline if measure else "eager",
        "cache_dir": extra.pop("cache_dir", None) or cache_dir,
        "timing": {**(extra.pop("timing", None) or {}), "max_seconds": stage.max_seconds},
    }
    return EvalConfig.from_dict({**extra, **own})


class Verifiers:
    def __init__(self, config: BuildConfig, cache: Path, verifier=None, timing_verifier=None):
        self.config = config
        self.cache = cache
        self._verifier = verifier
        self._timing = timing_verifier
        self._own: list = []  # verifiers made here, closed by close()

    @property
    def verifier(self):
        """Judges every candidate: correctness and the anti-cheat rules, timed when verify.measure."""
        if self._verifier is None:
            v = self.config.verify
            self._verifier = self._make(v.measure, v.lanes_per_device)
        return self._verifier

    @property
    def timing(self):
        """Re-verifies the timing subset with timing, one candidate at a time on the device."""
        if self._timing is None:
            self._timing = self._make(True, 1)
        return self._timing

    def _make(self, measure: bool, lanes: int):
        from benchmark.verify.verifier import Verifier, VerifierConfig

        v = self.config.verify
        eval_config = build_eval_config(self.config, self.cache / "solbench", measure)
        verifier = Verifier(
            VerifierConfig(eval=eval_config, build_workers=v.build_workers, lanes_per_device=lanes)
        )
        self._own.append(verifier)
        return verifier

    def close(self) -> None:
        """Close the verifiers made here."""
        for verifier in self._own:
            verifier.close()
        self._own.clear()
