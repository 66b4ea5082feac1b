"""The evaluation of one sample: build the candidate (candidate), run it in a confined child
(sandbox, zygote, confine; the child's entry point is worker, which imports the rest and is imported
by nothing), check it against the reference (correctness, exact, reference_store), time it (timing,
contention, gpu_lock) against its speed-of-light floor (sol, device_profile), and catch cheats
(anticheat). `harness.evaluate` is the entry point for callers."""
