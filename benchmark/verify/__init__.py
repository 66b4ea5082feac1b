"""Verification at scale: pools of lanes and build workers on one host (verifier), a Ray cluster
(ray_executor) with the same API, and the rewards computed from verdicts (reward)."""
