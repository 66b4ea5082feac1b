"""The task suite: what tasks there are (catalog), whether each is a valid benchmark task (validate),
their measured reference times and floors (manifest), the suite's documentation (docs) and its Hub
dataset (dataset). `python -m benchmark.suite` is the CLI (cli)."""

from benchmark.suite.catalog import BUILTIN_SUITE, HUB_PREFIX, LoadFailure, Suite, load_suite, resolve_suite

__all__ = ["BUILTIN_SUITE", "HUB_PREFIX", "LoadFailure", "Suite", "load_suite", "resolve_suite"]
