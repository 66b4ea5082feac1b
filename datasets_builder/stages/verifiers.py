"""The build's verifiers: the one that judges every candidate and the one that times the subset.

Each is made from the config on first use (a build that never verifies starts no pool); verifiers
given in code (tests, callers with their own pools) are used as they are and left open."""

from __future__ import annotations

from pathlib import Path

from datasets_builder.config import BuildConfig


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
        from benchmark.evaluate.harness import EvalConfig
        from benchmark.evaluate.timing import TimingConfig
        from benchmark.verify.verifier import Verifier, VerifierConfig

        v = self.config.verify
        eval_config = EvalConfig(
            device=self.config.device,
            trials=v.trials,
            measure=measure,
            strict=v.strict,
            timeout_s=v.timeout_s,
            baseline=self.config.timing.baseline if measure else "eager",
            timing=TimingConfig(max_seconds=self.config.timing.max_seconds),
            cache_dir=self.cache / "solbench",
        )
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
