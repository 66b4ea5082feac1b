"""Experiments built on the packages, kept apart from them: demonstrations, studies and the drivers
that produced the project's measured findings. Not installed: run from the repository root as
`python -m experiments.NAME`. They import the packages (benchmark, datasets_builder, trainers,
leaderboard) and each other, never scripts/ (the standalone benchmarks of the harness)."""
