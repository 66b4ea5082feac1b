"""MirrorPop: drop whole sequences whose policy has drifted too far from the one that sampled them.

For a completion sampled by a behaviour policy (the vLLM engine's log-probs when generating with
vLLM, the old policy's log-probs otherwise), the per-token log ratio is

    log rho_t = log pi_theta(y_t | ...) - log pi_behaviour(y_t | ...)

and MirrorPop keeps the sequence iff  mean_t |log rho_t| <= delta  over its completion tokens. A
masked sequence contributes no gradient. The absolute value is the point: the signed mean
(mean_t log rho_t, the sequence-level log importance weight) lets tokens that moved up cancel tokens
that moved down, so a sequence that drifted a lot in both directions looks on-policy. Both rules
are here, so the trainer can ablate one against the other and the tests can show the difference.

Tokens whose behaviour log-prob is unknown (NaN, as vLLM reports for a few tokens) carry no drift
evidence and are left out of the mean rather than counted as zero.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

RULES = ("abs", "signed")


@dataclass(frozen=True)
class MirrorPopResult:
    keep: torch.Tensor  # (B,) bool: the sequences that keep their gradient
    drift: torch.Tensor  # (B,) float: the statistic the rule compared with delta
    has_tokens: torch.Tensor  # (B,) bool: sequences with at least one scored completion token

    @property
    def masked_fraction(self) -> float:
        """Share of sequences with tokens that were masked (0.0 when there are none)."""
        n = int(self.has_tokens.sum())
        return float((~self.keep & self.has_tokens).sum()) / n if n else 0.0


def sequence_drift(
    logps: torch.Tensor, behaviour_logps: torch.Tensor, mask: torch.Tensor, rule: str = "abs"
) -> tuple[torch.Tensor, torch.Tensor]:
    """Per-sequence drift, mean_t |log rho_t| ('abs') or mean_t log rho_t ('signed'), over the
    masked tokens; returns (drift, has_tokens). All inputs are (B, T); nothing here needs gradients."""
    if rule not in RULES:
        raise ValueError(f"unknown MirrorPop rule {rule!r}; use one of {', '.join(RULES)}")
    if logps.shape != behaviour_logps.shape or logps.shape != mask.shape:
        raise ValueError(
            f"shape mismatch: logps {tuple(logps.shape)}, behaviour {tuple(behaviour_logps.shape)}, "
            f"mask {tuple(mask.shape)}"
        )
    log_rho = logps.detach().float() - behaviour_logps.detach().float()
    valid = mask.bool() & ~torch.isnan(log_rho)
    log_rho = torch.where(valid, log_rho, torch.zeros_like(log_rho))
    per_token = log_rho.abs() if rule == "abs" else log_rho
    count = valid.sum(-1)
    drift = per_token.sum(-1) / count.clamp(min=1)
    return drift, count > 0


def keep_mask(
    logps: torch.Tensor,
    behaviour_logps: torch.Tensor,
    mask: torch.Tensor,
    delta: float,
    rule: str = "abs",
) -> MirrorPopResult:
    """Which sequences to keep. 'abs' is MirrorPop (keep iff mean |log rho| <= delta); 'signed' is
    the rule it improves on (keep iff |mean log rho| <= delta). A sequence without scored tokens is
    kept: it has no gradient to give anyway."""
    if delta <= 0:
        raise ValueError(f"delta must be positive, got {delta}")
    drift, has_tokens = sequence_drift(logps, behaviour_logps, mask, rule)
    keep = (drift.abs() <= delta) | ~has_tokens
    return MirrorPopResult(keep=keep, drift=drift, has_tokens=has_tokens)


def apply_keep(values: torch.Tensor, keep: torch.Tensor) -> torch.Tensor:
    """The same values, with the rows of masked sequences cut off from the graph (detached): every
    loss term computed from them (clipped ratio, KL, entropy bonus) then has zero gradient, while
    shapes and the loss normaliser stay as they were."""
    return torch.where(keep.unsqueeze(-1), values, values.detach())
