"""`python -m experiments.rl_demo`: see experiments.rl_demo."""

from experiments.rl_demo.cli import main

main()
