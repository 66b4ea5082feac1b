"""SOLBench: a benchmark for language models that write GPU kernels."""

__version__ = "0.1.0"
