"""A deliberately naive evaluator, the kind the exploits in this folder were written against.

It runs the candidate in the evaluator's own process, compares with torch.allclose at a loose
tolerance, times with time.perf_counter (or CUDA events on the current stream) over one reused
input set, and reports on stdout. Usage: python naive.py TASK CANDIDATE [--candidate-first] [--device D]
Each cheat test shows its exploit passes here, then that the real harness stops it."""

import argparse
import importlib.util
import json
import sys
import time

import torch


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def timed(fn, inputs, device, reps=20):
    if device == "cuda":
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(reps):
            fn(*inputs)
        end.record()
        end.synchronize()
        return start.elapsed_time(end) / reps
    t0 = time.perf_counter()
    for _ in range(reps):
        fn(*inputs)
    return (time.perf_counter() - t0) * 1e3 / reps


def main():
    p = argparse.ArgumentParser()
    p.add_argument("task")
    p.add_argument("candidate")
    p.add_argument("--candidate-first", action="store_true")
    p.add_argument("--device", default="cpu")
    args = p.parse_args()
    task = load(args.task, "naive_task")
    with torch.device(args.device):
        torch.manual_seed(0)
        ref_model = task.Model(*task.get_init_inputs())
        cand_mod = load(args.candidate, "naive_candidate")
        torch.manual_seed(0)
        new_model = cand_mod.ModelNew(*task.get_init_inputs())
        correct = True
        for trial in range(3):
            torch.manual_seed(trial)
            inputs = task.get_inputs()
            with torch.no_grad():
                if args.candidate_first:
                    out = new_model(*inputs)
                    ref = ref_model(*inputs)
                else:
                    ref = ref_model(*inputs)
                    out = new_model(*inputs)
            correct &= bool(torch.allclose(ref, out, atol=1e-2, rtol=1e-2))
        with torch.no_grad():
            t_ref = timed(ref_model, inputs, args.device)
            t_new = timed(new_model, inputs, args.device)
    print(json.dumps({"status": "pass" if correct else "fail", "speedup": t_ref / max(t_new, 1e-9)}))


if __name__ == "__main__":
    main()
