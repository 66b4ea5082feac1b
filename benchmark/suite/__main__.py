"""`python -m benchmark.suite`: the suite's CLI (benchmark.suite.cli)."""

from benchmark.suite.cli import main

raise SystemExit(main())
