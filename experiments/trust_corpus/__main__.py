"""`python -m experiments.trust_corpus`: see experiments.trust_corpus."""

import sys

from experiments.trust_corpus.cli import main

sys.exit(main())
