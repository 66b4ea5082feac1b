"""scripts/rl_demo.py, mostly without training: the arms a call runs, the per-task results of an
evaluation, the paired intervals of after - before RL and the claims they allow, the arm budget
(every arm all its steps, or skipped), --merge of several calls into one report, --sft-arms (SFT
recipes compared with plain SFT on the test split, over training seeds and tasks, pooled across
calls), and the arms' SFT model: the gate that trains it again below --sft-min-pass, and
--sft-cache, checked with real --tiny SFT on the CPU (the RL arms stubbed)."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
import rl_demo  # noqa: E402

from benchmark.stats import bootstrap_interval, resample_weights  # noqa: E402
from trainers.rl_rewards import Score  # noqa: E402


def test_every_arm_by_default_and_a_chosen_few_in_their_order(tmp_path):
    assert rl_demo.parse_args(["--out", str(tmp_path)]).arms == list(rl_demo.ARMS)
    assert rl_demo.parse_args(["--out", str(tmp_path), "--arms", "no_bdr", "full"]).arms == ["no_bdr", "full"]
    with pytest.raises(SystemExit):
        rl_demo.parse_args(["--out", str(tmp_path), "--arms", "no_such_arm"])


# ---------------------------------------------------------------------------------------- hand-made results

# per task, [passed, speedup] of two samples: the before-RL policy passes half and is slower than eager,
# the after-RL one passes more, faster; how much varies by task, but every task gains
BEFORE = {f"test/t{i:02d}": [[i % 3 > 0, 0.5 + 0.03 * i], [i % 3 > 1, 0.8]] for i in range(12)}
AFTER = {f"test/t{i:02d}": [[True, 1.5 + 0.1 * i], [i % 3 > 0, 2.0]] for i in range(12)}


def evaluation(per_task: dict) -> dict:
    return {**rl_demo.split_metrics(per_task), "per_task": per_task}


def arm(before: dict, after: dict) -> dict:
    """An arm's record as main() writes it, from per-task samples of both splits."""
    result = {split: evaluation(after) for split in ("rl", "test")}
    return {
        "steps": 10,
        "generations": 5,
        "seconds": 100.0,
        "stopped_by_deadline": False,
        "bdr": {"pushed": 0, "replayed": 0},
        "curve": [{"step": 2, "kernel/pass_rate": 0.5, "reward": 1.0}],
        "after": result,
        "differences": rl_demo.differences({split: evaluation(before) for split in ("rl", "test")}, result),
    }


def row(md: str, start: str) -> str:
    return next(line for line in md.splitlines() if line.startswith(start))


def run_file(
    path: Path,
    arms: dict,
    seed: int = 0,
    sft: dict | None = None,
    rl_lr: float = 1e-5,
    gpu: str = "NVIDIA H200",
) -> Path:
    results = {
        "settings": {"seed": seed, "rl_lr": rl_lr},
        "environment": {"gpu": gpu},
        "data": {"test": 12, "rl": 12},
        "sft": sft,
        "before": {split: evaluation(BEFORE) for split in ("rl", "test")},
        "arms": arms,
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(results))
    return path


# ---------------------------------------------------------------------------------------- evaluation


def test_evaluate_keeps_every_sample_by_task_and_the_aggregates_follow_from_them(tmp_path, monkeypatch):
    tasks = rl_demo.write_tasks(rl_demo.family(0, n_rl=2, n_test=2), tmp_path)
    test_ids = sorted(t for t in tasks if t.startswith("test/"))
    outcomes = {
        "fast": Score(2.0, "pass", speedup=2.0),
        "slow": Score(1.0, "pass", speedup=0.5),
        "wrong": Score(-1.0, "incorrect"),
    }
    monkeypatch.setattr(rl_demo, "generate", lambda *a: [["fast", "slow"], ["wrong", "fast"]])
    source = SimpleNamespace(score=lambda rows, texts, turns: [outcomes[t] for t in texts])
    args = SimpleNamespace(eval_samples=2, test_samples=2, eval_temperature=0.7, max_new=16, seed=0)
    builder = rl_demo.PromptBuilder(rl_demo.PromptConfig(backend="cuda-raw"))
    result = rl_demo.evaluate(None, None, tasks, builder, source, "test", args)
    assert result["per_task"] == {
        test_ids[0]: [[True, 2.0], [True, 0.5]],
        test_ids[1]: [[False, None], [True, 2.0]],
    }
    assert result["samples"] == 4
    assert result["pass_rate"] == 0.75
    assert result["fast_1"] == 0.5
    assert result["speedup_geomean"] == pytest.approx(2.0 ** (1 / 3))
    assert json.loads(json.dumps(result))["per_task"] == result["per_task"]


def test_the_test_split_is_sampled_test_samples_times_and_the_rl_split_eval_samples(tmp_path, monkeypatch):
    tasks = rl_demo.write_tasks(rl_demo.family(0, n_rl=2, n_test=2), tmp_path)
    asked = []

    def generate(model, tokenizer, prompts, n, temperature, max_new, seed):
        asked.append(n)
        return [["fast"] * n for _ in prompts]

    monkeypatch.setattr(rl_demo, "generate", generate)
    source = SimpleNamespace(
        score=lambda rows, texts, turns: [Score(2.0, "pass", speedup=2.0) for _ in texts]
    )
    args = SimpleNamespace(eval_samples=2, test_samples=8, eval_temperature=0.7, max_new=16, seed=0)
    builder = rl_demo.PromptBuilder(rl_demo.PromptConfig(backend="cuda-raw"))
    assert rl_demo.evaluate(None, None, tasks, builder, source, "test", args)["samples"] == 16
    assert rl_demo.evaluate(None, None, tasks, builder, source, "rl", args)["samples"] == 4
    assert asked == [8, 2]
    assert rl_demo.parse_args(["--out", str(tmp_path)]).test_samples == 8
    assert rl_demo.parse_args(["--out", str(tmp_path), "--tiny"]).test_samples == 2


# ---------------------------------------------------------------------------------------- paired intervals


def test_a_clear_gain_on_every_task_is_claimed_and_its_reverse_is_a_loss():
    gain = rl_demo.paired_differences(BEFORE, AFTER)
    assert gain["pass_rate"].value == pytest.approx(20 / 24 - 12 / 24)
    for d in gain.values():
        assert d.value > 0 and d.interval.lo > 0 and d.improved and not d.worse
        assert d.interval.lo <= d.value <= d.interval.hi
    loss = rl_demo.paired_differences(AFTER, BEFORE)
    for metric, d in loss.items():
        assert d.value == pytest.approx(-gain[metric].value)
        assert d.worse and not d.improved and d.interval.hi < 0


def test_a_gain_on_one_task_of_eight_is_not_claimed():
    before = {f"t{i}": [[True, 1.2], [False, None]] for i in range(8)}
    after = {**before, "t0": [[True, 1.2], [True, 1.2]]}
    d = rl_demo.paired_differences(before, after)
    assert d["pass_rate"].value == pytest.approx(1 / 16)
    assert d["pass_rate"].interval.lo == 0.0 < d["pass_rate"].interval.hi
    assert not d["pass_rate"].improved and not d["pass_rate"].worse
    assert d["pass_rate"].to_dict() == {
        "value": d["pass_rate"].value,
        "interval": d["pass_rate"].interval.to_list(),
        "improved": False,
        "worse": False,
    }


def test_tasks_are_resampled_together_for_both_sides():
    """The same results before and after differ by exactly zero on every resample, however unlike
    the tasks are; resampling each side on its own would give a wide interval."""
    for d in rl_demo.paired_differences(BEFORE, BEFORE).values():
        assert d.value == 0.0 and d.interval.to_list() == [0.0, 0.0]
        assert not d.improved and not d.worse


def test_a_speedup_difference_needs_a_timed_pass_on_both_sides():
    never = {t: [[False, None], [False, None]] for t in BEFORE}
    d = rl_demo.paired_differences(never, AFTER)
    assert d["speedup_geomean"].value is None and d["speedup_geomean"].interval is None
    assert d["speedup_geomean"].to_dict()["improved"] is False
    assert d["pass_rate"].improved
    # one passing task before: resamples without it have no value and are left out, not counted as 0
    once = {**never, "test/t05": [[True, 1.0], [False, None]]}
    d = rl_demo.paired_differences(once, AFTER)
    assert d["speedup_geomean"].value == pytest.approx(rl_demo.split_metrics(AFTER)["speedup_geomean"] - 1.0)
    assert d["speedup_geomean"].improved
    with pytest.raises(ValueError):
        rl_demo.paired_differences(BEFORE, {"test/t00": AFTER["test/t00"]})


def test_the_table_shows_each_arms_difference_and_the_rule():
    results = {
        "data": {"test": 12},
        "before": {split: evaluation(BEFORE) for split in ("rl", "test")},
        "arms": {
            "full": arm(BEFORE, AFTER),
            "no_bdr": arm(BEFORE, BEFORE),
            "no_mirrorpop": {"skipped": "budget"},
        },
    }
    stored = results["arms"]["full"]["differences"]
    assert set(stored) == {"rl", "test"} and set(stored["test"]) == set(rl_demo.METRICS)
    assert stored["test"]["fast_1"]["improved"] and len(stored["test"]["fast_1"]["interval"]) == 2
    md = rl_demo.tables(results)
    assert "after - before RL (paired bootstrap 95% over 12 tasks)" in md
    assert row(md, "| full | +33 pp").count("improved") == 3
    no_change = row(md, "| no_bdr | +0 pp")
    assert no_change.count("no change shown") == 3 and "improved" not in no_change
    assert "| no_mirrorpop | skipped (budget) |" in md
    assert "claimed only where the 95% interval excludes zero" in md


# ---------------------------------------------------------------------------------------- budget


def test_an_arm_trains_to_the_run_deadline_less_its_evaluation_or_is_skipped():
    assert rl_demo.arm_deadline(1000.0, 100.0, [], now=0.0) == 900.0  # the first arm: any time left
    assert rl_demo.arm_deadline(1000.0, 100.0, [], now=950.0) is None
    assert rl_demo.arm_deadline(1000.0, 100.0, [300.0, 200.0], now=600.0) == 900.0
    assert rl_demo.arm_deadline(1000.0, 100.0, [300.0, 200.0], now=750.0) is None  # 150 s < the quickest arm
    # before any arm ran all its steps, the expected arm (--arm-s) must fit
    assert rl_demo.arm_deadline(1000.0, 100.0, [], now=600.0, first_s=250.0) == 900.0
    assert rl_demo.arm_deadline(1000.0, 100.0, [], now=700.0, first_s=250.0) is None


def stub_run(monkeypatch, tmp_path: Path, trained_evaluation=None) -> SimpleNamespace:
    """main's phases stood in for on a fake clock: SFT instant, evaluations 10 s a split, arms 100 s
    (the model they return is "trained"); `trained_evaluation` replaces the trained model's
    evaluation. Records each arm's deadline."""
    seen = SimpleNamespace(now=0.0, deadlines=[])
    monkeypatch.setattr(rl_demo, "time", SimpleNamespace(monotonic=lambda: seen.now))

    def evaluate(model, tokenizer, tasks, builder, source, split, args):
        if model == "trained" and trained_evaluation:
            return trained_evaluation()
        seen.now += 10.0
        return evaluation(AFTER if model == "trained" else BEFORE)

    def run_arm(name, overrides, model_dir, tokenizer, dataset, source, args, deadline):
        seen.deadlines.append(deadline)
        seen.now += 100.0
        info = {"steps": 10, "generations": 5, "seconds": 100.0, "stopped_by_deadline": False}
        return "trained", info | {"bdr": {"pushed": 0, "replayed": 0}, "curve": [{"step": 1, "reward": 0.5}]}

    sft = rl_demo.SFTRun(tmp_path, 6, 2.0, 1.0, None, 1.0, False)
    monkeypatch.setattr(rl_demo, "train_sft", lambda args, tokenizer, corpus, **kwargs: sft)
    monkeypatch.setattr(rl_demo, "evaluate", evaluate)
    monkeypatch.setattr(rl_demo, "run_arm", run_arm)
    monkeypatch.setattr(
        "transformers.AutoModelForCausalLM.from_pretrained",
        lambda path: SimpleNamespace(to=lambda device: "sft"),
    )
    return seen


def test_main_runs_every_arm_that_fits_in_full_and_records_the_rest_as_skipped(tmp_path, monkeypatch):
    """The budget is 400 s; three arms fit whole, the fourth is skipped rather than cut."""
    seen = stub_run(monkeypatch, tmp_path)
    results = rl_demo.main(["--tiny", "--out", str(tmp_path / "out"), "--budget-s", "400"])
    # the run's deadline less a reserve for the arm's evaluation: before any after-RL evaluation a
    # multiple of the before-RL one (20 s), then the last after-RL evaluation's cost
    assert seen.deadlines == [400.0 - rl_demo.AFTER_EVAL_RESERVE * 20.0, 380.0, 380.0]
    arms = results["arms"]
    assert list(arms) == list(rl_demo.ARMS)
    assert arms["no_mirrorpop"] == {"skipped": "budget"}
    for name in ("full", "no_primeecho", "no_bdr"):
        assert arms[name]["steps"] == 10 and arms[name]["differences"]["test"]["pass_rate"]["improved"]
    assert json.loads((tmp_path / "out" / "rl_demo.json").read_text())["arms"]["no_mirrorpop"] == {
        "skipped": "budget"
    }
    assert "| no_mirrorpop | skipped (budget) |" in (tmp_path / "out" / "rl_demo.md").read_text()


def test_a_run_killed_during_an_arms_evaluation_keeps_the_arms_training(tmp_path, monkeypatch):
    def killed():
        raise KeyboardInterrupt  # the stage's limit, as a signal would end it

    stub_run(monkeypatch, tmp_path, trained_evaluation=killed)
    with pytest.raises(KeyboardInterrupt):
        rl_demo.main(["--tiny", "--out", str(tmp_path / "out"), "--budget-s", "400", "--arms", "full"])
    full = json.loads((tmp_path / "out" / "rl_demo.json").read_text())["arms"]["full"]
    assert full["steps"] == 10 and full["curve"] == [{"step": 1, "reward": 0.5}]
    assert full["error"] == "stopped during its after-RL evaluation" and "after" not in full


# ---------------------------------------------------------------------------------------- --merge


def test_merge_reports_the_arms_of_several_calls_each_against_its_own_before(tmp_path):
    first = run_file(
        tmp_path / "a" / "rl_demo.json", {"full": arm(BEFORE, AFTER), "no_bdr": {"skipped": "budget"}}
    )
    second = run_file(tmp_path / "b" / "rl_demo.json", {"no_bdr": arm(BEFORE, BEFORE)})
    out = tmp_path / "merged"
    results = rl_demo.main(["--merge", str(first), str(second), "--out", str(out)])
    assert results["arms"]["full"]["call"] == 1 and results["arms"]["no_bdr"]["call"] == 2
    md = (out / "rl_demo.md").read_text()
    assert "| SFT (before RL, call 1) |" in md and "| SFT (before RL, call 2) |" in md
    assert row(md, "| full (call 1) | +33 pp").count("improved") == 3
    assert "| no_bdr (call 2) | +0 pp [+0, +0] no change shown" in md
    assert "skipped" not in md
    assert "against the before-RL evaluation of its own call" in md and str(second) in md
    assert (out / "learning_curves.svg").read_text().startswith("<svg")
    assert not (out / "rl_demo.json").exists()


def test_merge_refuses_calls_that_do_not_compare(tmp_path):
    first = run_file(tmp_path / "a.json", {"full": arm(BEFORE, AFTER)})
    other_seed = run_file(tmp_path / "b.json", {"no_bdr": arm(BEFORE, AFTER)}, seed=1)
    again = run_file(tmp_path / "c.json", {"full": arm(BEFORE, BEFORE)})
    for second in (other_seed, again):
        with pytest.raises(SystemExit):
            rl_demo.merge([first, second])
    other_lr = run_file(tmp_path / "d.json", {"no_bdr": arm(BEFORE, AFTER)}, rl_lr=1e-4)
    with pytest.raises(SystemExit, match="another rl_lr"):
        rl_demo.merge([first, other_lr])
    other_gpu = run_file(tmp_path / "e.json", {"no_bdr": arm(BEFORE, AFTER)}, gpu="NVIDIA H100 80GB HBM3")
    with pytest.raises(SystemExit, match="ran on NVIDIA H100 80GB HBM3"):
        rl_demo.merge([first, other_gpu])


# ---------------------------------------------------------------------------------------- --sft-arms


def test_sft_arms_need_plain_and_run_it_first_and_train_at_seed_by_default(tmp_path):
    args = rl_demo.parse_args(["--out", str(tmp_path), "--sft-arms", "cuset", "plain", "cuset_no_regions"])
    assert args.sft_arms == ["plain", "cuset", "cuset_no_regions"]
    assert args.sft_seeds == [0]
    assert rl_demo.parse_args(["--out", str(tmp_path), "--seed", "3", "--sft-arms", "plain"]).sft_seeds == [3]
    seeds = ["--sft-arms", "plain", "--sft-seeds", "2", "0", "2"]
    assert rl_demo.parse_args(["--out", str(tmp_path), *seeds]).sft_seeds == [2, 0]
    assert rl_demo.parse_args(["--out", str(tmp_path)]).sft_arms is None
    for wrong in (["--sft-arms", "cuset"], ["--sft-arms", "plain", "no_such_arm"]):
        with pytest.raises(SystemExit):
            rl_demo.parse_args(["--out", str(tmp_path), *wrong])


def test_every_ablation_arm_switches_off_one_cuset_part_that_is_on_by_default():
    defaults = rl_demo.KernelSFTConfig(output_dir="unused", use_cpu=True, report_to="none")
    assert (
        not defaults.cuset
        and rl_demo.SFT_ARMS["plain"] == {}
        and rl_demo.SFT_ARMS["cuset"] == {"cuset": True}
    )
    for name, overrides in rl_demo.SFT_ARMS.items():
        if name.startswith("cuset_no_"):
            (part, value), *others = (kv for kv in overrides.items() if kv[0] != "cuset")
            assert overrides["cuset"] is True and not others and value is False
            assert getattr(defaults, part) is True, f"{name} switches off {part}, which is off already"


def stub_sft(monkeypatch) -> SimpleNamespace:
    """The real train_sft and run_sft_arms with a stand-in trainer on a fake clock: a training run
    takes 100 s, an evaluation 10 s; plain's models score BEFORE, every other arm's AFTER. Records
    each run's config and deadline, the init seeds, and each evaluation's (arm, split, --seed)."""
    seen = SimpleNamespace(now=0.0, configs=[], deadlines=[], inits=[], evaluated=[])
    monkeypatch.setattr(rl_demo, "time", SimpleNamespace(monotonic=lambda: seen.now))

    class Trainer:
        def __init__(self, model, args, train_dataset, processing_class, callbacks):
            seen.configs.append(args)
            seen.deadlines.append(callbacks[0].deadline)
            self.args = args
            self.state = SimpleNamespace(global_step=0, log_history=[])

        def train(self):
            seen.now += 100.0
            nll = {"cuset/nll": 0.5} if self.args.cuset else {}
            self.state = SimpleNamespace(
                global_step=self.args.max_steps, log_history=[{"loss": 2.0}, {"loss": 1.0, **nll}]
            )

    def evaluate(model, tokenizer, tasks, builder, source, split, args):
        seen.evaluated.append((model, split, args.seed))
        seen.now += 10.0
        return evaluation(BEFORE if model == "plain" else AFTER)

    def no_rl(*args, **kwargs):
        raise AssertionError("--sft-arms runs no RL")

    monkeypatch.setattr(rl_demo, "KernelSFTTrainer", Trainer)
    monkeypatch.setattr(rl_demo, "build_model", lambda *a, seed, **k: seen.inits.append(seed))
    monkeypatch.setattr(rl_demo, "save_model_folder", lambda model, tokenizer, path: path)
    monkeypatch.setattr(rl_demo, "save_final_model", lambda trainer: Path(trainer.args.output_dir))
    monkeypatch.setattr(rl_demo, "weights_digest", lambda path: f"weights of {Path(path).parent.name}")
    monkeypatch.setattr(rl_demo, "evaluate", evaluate)
    monkeypatch.setattr(rl_demo, "run_arm", no_rl)
    monkeypatch.setattr(  # a model is its arm's name: output_dir is sft-arms/ARM/seed-S
        "transformers.AutoModelForCausalLM.from_pretrained",
        lambda path: SimpleNamespace(to=lambda device: Path(path).parent.name),
    )
    return seen


def test_main_trains_each_sft_arm_with_its_config_and_compares_it_with_plain_on_the_test_split(
    tmp_path, monkeypatch
):
    """One training seed (the default): budget 330 s; plain and cuset run whole, cuset_no_regions is
    skipped, no RL runs, and the interval is over tasks only."""
    seen = stub_sft(monkeypatch)
    out = tmp_path / "out"
    results = rl_demo.main(
        ["--tiny", "--out", str(out), "--budget-s", "330", "--sft-arms", "cuset", "cuset_no_regions", "plain"]
    )

    plain, cuset = seen.configs
    assert not plain.cuset and cuset.cuset
    assert cuset.cuset_token_masking and cuset.cuset_regions and cuset.cuset_sample_reweighting
    assert plain.output_dir == str(out / "sft-arms" / "plain" / "seed-0")
    assert cuset.output_dir == str(out / "sft-arms" / "cuset" / "seed-0")
    for field in ("max_steps", "seed", "learning_rate", "per_device_train_batch_size"):
        assert getattr(plain, field) == getattr(cuset, field)
    assert seen.deadlines == [330.0, 330.0 - 10.0]  # the budget less the last evaluation's cost
    assert seen.evaluated == [("plain", "test", 0), ("cuset", "test", 0)]
    assert "arms" not in results and "before" not in results

    arms = results["sft_arms"]
    assert list(arms) == ["plain", "cuset", "cuset_no_regions"]
    assert arms["cuset_no_regions"] == {"runs": {"0": {"skipped": "budget"}}}
    assert arms["plain"]["runs"]["0"]["sft"] == {
        "steps": 6,
        "loss_first": 2.0,
        "loss_last": 1.0,
        "nll_last": None,
        "seconds": 100.0,
        "stopped_by_deadline": False,
        "weights": "weights of plain",
    }
    assert arms["cuset"]["runs"]["0"]["sft"]["nll_last"] == 0.5
    assert set(arms["plain"]["runs"]["0"]["eval"]) == {"test"} and "differences" not in arms["plain"]
    assert arms["cuset"]["differences"]["test"] == {
        m: d.to_dict() for m, d in rl_demo.paired_differences(BEFORE, AFTER).items()
    }
    assert arms["cuset"]["differences"]["test"]["pass_rate"]["improved"]
    assert json.loads((out / "rl_demo.json").read_text())["sft_arms"]["cuset_no_regions"] == {
        "runs": {"0": {"skipped": "budget"}}
    }
    md = (out / "rl_demo.md").read_text()
    assert "| cuset_no_regions | 0 | skipped (budget) |" in md
    assert row(md, f"| cuset | 1 / 1 ({rl_demo.TASKS_ONLY}) | +33 pp").count("improved") == 3


def test_sft_seeds_run_seed_after_seed_plain_first_and_a_budget_cut_loses_a_whole_seed(tmp_path, monkeypatch):
    """Seeds 5, 6, 7 of two arms, 110 s a run, budget 450 s: seeds 5 and 6 run whole (440 s), seed 7
    is skipped for both arms. Each run's init and trainer take its training seed; the corpus, tasks and
    evaluation sampling keep --seed (0)."""
    seen = stub_sft(monkeypatch)
    out = tmp_path / "out"
    args = ["--tiny", "--out", str(out), "--budget-s", "450", "--sft-arms", "plain", "cuset"]
    results = rl_demo.main([*args, "--sft-seeds", "5", "6", "7"])

    order = [(Path(c.output_dir).parent.name, c.seed) for c in seen.configs]
    assert order == [("plain", 5), ("cuset", 5), ("plain", 6), ("cuset", 6)]
    assert seen.inits == [5, 5, 6, 6]
    assert {seed for _, _, seed in seen.evaluated} == {0}
    arms = results["sft_arms"]
    for name in ("plain", "cuset"):
        assert list(arms[name]["runs"]) == ["5", "6", "7"]
        assert arms[name]["runs"]["7"] == {"skipped": "budget"}
        assert arms[name]["over_seeds"]["seeds"] == [5, 6]
    assert arms["plain"]["over_seeds"]["pass_rate"] == rl_demo.split_metrics(BEFORE)["pass_rate"]
    assert arms["cuset"]["differences"]["test"] == {
        m: d.to_dict() for m, d in rl_demo.seed_task_differences([BEFORE] * 2, [AFTER] * 2).items()
    }
    md = (out / "rl_demo.md").read_text()
    assert "| plain | 7 | skipped (budget) |" in md and "| cuset | 6 | 6 | 0.5000 | 83% |" in md
    assert row(md, "| cuset | 2 / 2 | +33 pp").count("improved") == 3
    assert "| plain | 2 | 50% | 50%-50% |" in md


# ---------------------------------------------------------------------------------------- seeds and tasks

N_TASKS = 16


def outcomes(passes: int) -> dict:
    """Per task, two samples of which `passes` of the 32 pass (2x faster than eager): one per task
    first, then the second sample of the first tasks."""
    return {
        f"test/t{t:02d}": [
            [t + N_TASKS * j < passes, 2.0 if t + N_TASKS * j < passes else None] for j in (0, 1)
        ]
        for t in range(N_TASKS)
    }


def test_seeds_that_swing_but_agree_on_average_show_no_difference_where_one_seed_pair_would():
    """The H200 case: one run of plain passed 6 of 32 (19%), another of the same recipe 30 (94%). Two
    arms whose seeds swing like that, with equal means, differ by zero with an interval that holds
    zero; their first seeds alone, over tasks, would claim +47 pp."""
    plain, arm = [outcomes(k) for k in (6, 30, 21)], [outcomes(k) for k in (21, 6, 30)]
    one_pair = rl_demo.paired_differences(plain[0], arm[0])["pass_rate"]
    assert one_pair.value == pytest.approx(15 / 32) and one_pair.improved
    d = rl_demo.seed_task_differences(plain, arm)["pass_rate"]
    assert d.value == 0.0
    assert d.interval.lo < -0.2 and d.interval.hi > 0.2
    assert not d.improved and not d.worse


def test_a_difference_every_seed_shows_is_claimed_over_seeds_and_tasks():
    plain, arm = [outcomes(k) for k in (6, 10, 14)], [outcomes(k) for k in (20, 24, 28)]
    diffs = rl_demo.seed_task_differences(plain, arm)
    assert diffs["pass_rate"].value == pytest.approx(14 / 32)
    assert diffs["pass_rate"].improved and diffs["pass_rate"].interval.lo > 0.2
    assert diffs["fast_1"].improved
    assert diffs["speedup_geomean"].value == pytest.approx(0.0, abs=1e-12)
    assert not diffs["speedup_geomean"].improved and not diffs["speedup_geomean"].worse
    reverse = rl_demo.seed_task_differences(arm, plain)["pass_rate"]
    assert reverse.worse and reverse.value == pytest.approx(-14 / 32)


def test_one_seed_a_side_is_the_paired_interval_over_tasks():
    """With one run a side the seed draw is always that run: the interval is benchmark.stats'
    paired bootstrap over tasks, to the last bit."""
    d = rl_demo.seed_task_differences([BEFORE], [AFTER])["pass_rate"]
    tasks = sorted(BEFORE)
    columns = [
        list(c)
        for c in zip(
            *(rl_demo.task_sums(BEFORE[t]) + rl_demo.task_sums(AFTER[t]) for t in tasks), strict=True
        )
    ]

    def pass_difference(sums):
        return sums[6] / sums[5] - sums[1] / sums[0]

    assert d.interval == bootstrap_interval(columns, pass_difference, resample_weights(len(tasks)))


def test_runs_on_other_tasks_are_refused():
    with pytest.raises(ValueError):
        rl_demo.seed_task_differences([BEFORE, outcomes(3)], [AFTER])


# ---------------------------------------------------------------------------------------- SFT reports and --merge


def sft_run(per_task: dict, nll: float | None = None) -> dict:
    """One SFT run's record as main() writes it."""
    sft = {
        "steps": 6,
        "loss_first": 2.0,
        "loss_last": 1.5,
        "nll_last": nll,
        "seconds": 1.0,
        "stopped_by_deadline": False,
    }
    return {"sft": sft, "eval": {"test": evaluation(per_task)}}


def sft_arms(runs: dict) -> dict:
    """sft_arms of rl_demo.json from {arm: {seed: per_task or a skip record}}."""
    arms = {
        name: {
            "runs": {
                str(s): r if "skipped" in r else sft_run(r, None if name == "plain" else 0.25)
                for s, r in by_seed.items()
            }
        }
        for name, by_seed in runs.items()
    }
    rl_demo.compare_sft_arms(arms)
    return arms


def test_the_sft_tables_show_each_run_each_arms_spread_over_seeds_and_its_difference_from_plain():
    results = {
        "data": {"test": 12},
        "sft_arms": sft_arms(
            {
                "plain": {0: BEFORE, 1: AFTER},
                "cuset": {0: AFTER, 1: AFTER},
                "cuset_no_masking": {0: BEFORE},
                "cuset_no_regions": {0: {"skipped": "budget"}},
            }
        ),
    }
    md = rl_demo.tables(results)
    assert "| plain | 0 | 6 | 1.5000 | 50% | 0.71 | 0% |" in md and "| plain | 1 | 6 | 1.5000 | 83% |" in md
    assert row(md, "| cuset | 0 | 6 | 0.2500 | 83% |")
    assert "| cuset_no_regions | 0 | skipped (budget) |" in md
    assert "| plain | 2 | 67% | 50%-83% |" in md and "| cuset | 2 | 83% | 83%-83% |" in md
    assert "arm - plain SFT (two-level paired bootstrap 95% over training seeds and 12 test tasks)" in md
    assert row(md, "| cuset | 2 / 2 | +17 pp")
    assert row(md, "| cuset_no_masking | 1 / 2 (one seed on a side")
    assert not any(line.startswith("| plain | 2 /") for line in md.splitlines())
    assert "then the test tasks with replacement, the same tasks for both arms" in md
    assert "claimed only where the 95% interval excludes zero" in md
    assert "RL steps" not in md


def sft_file(path: Path, runs: dict, seed: int = 0, **settings) -> Path:
    results = {
        "settings": {"seed": seed, "test_tasks": N_TASKS, "sft_steps": 1600, **settings},
        "data": {"test": N_TASKS},
        "sft_arms": sft_arms(runs),
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(results))
    return path


def test_merge_pools_sft_runs_of_several_calls_by_arm_and_training_seed(tmp_path):
    first = sft_file(
        tmp_path / "a.json",
        {"plain": {0: outcomes(6), 1: outcomes(30)}, "cuset": {0: outcomes(21), 1: {"skipped": "budget"}}},
    )
    second = sft_file(
        tmp_path / "b.json", {"plain": {2: outcomes(21)}, "cuset": {1: outcomes(6), 2: outcomes(30)}}
    )
    out = tmp_path / "merged"
    results = rl_demo.main(["--merge", str(first), str(second), "--out", str(out)])
    arms = results["sft_arms"]
    assert {name: {s: r["call"] for s, r in arm["runs"].items()} for name, arm in arms.items()} == {
        "plain": {"0": 1, "1": 1, "2": 2},
        "cuset": {"0": 1, "1": 2, "2": 2},
    }
    plain, cuset = ([outcomes(k) for k in ks] for ks in ((6, 30, 21), (21, 6, 30)))
    assert arms["cuset"]["differences"]["test"] == {
        m: d.to_dict() for m, d in rl_demo.seed_task_differences(plain, cuset).items()
    }
    assert arms["plain"]["over_seeds"]["pass_rate_range"] == [6 / 32, 30 / 32]
    assert results["settings"]["sft_seeds"] == [0, 1, 2]
    md = (out / "rl_demo.md").read_text()
    assert "| cuset | 1 (call 2) | 6 |" in md and "skipped" not in md
    assert row(md, "| cuset | 3 / 3 | +0 pp").count("no change shown") == 3
    assert "runs pooled by (arm, training seed)" in md and str(second) in md


def test_merge_refuses_sft_calls_that_do_not_pool(tmp_path):
    first = sft_file(tmp_path / "a.json", {"plain": {0: outcomes(6)}, "cuset": {0: outcomes(21)}})
    cases = {
        "another seed": sft_file(tmp_path / "b.json", {"plain": {1: outcomes(6)}}, seed=1),
        "sft_steps": sft_file(tmp_path / "c.json", {"plain": {1: outcomes(6)}}, sft_steps=800),
        "sft_values 'wide'": sft_file(tmp_path / "w.json", {"plain": {1: outcomes(6)}}, sft_values="wide"),
        "ran in two of the files": sft_file(tmp_path / "d.json", {"plain": {0: outcomes(30)}}),
        "mix --sft-arms and RL calls": run_file(tmp_path / "e.json", {"full": arm(BEFORE, AFTER)}),
    }
    for message, second in cases.items():
        with pytest.raises(SystemExit, match=message):
            rl_demo.merge([first, second])
    # a file from before --sft-values ran on the grid
    grid = sft_file(tmp_path / "g.json", {"plain": {1: outcomes(6)}}, sft_values="grid")
    assert sorted(rl_demo.merge([first, grid])["sft_arms"]["plain"]["runs"]) == ["0", "1"]


def test_wide_sft_tasks_hold_out_the_same_test_and_rl_tasks_and_every_value_of_theirs():
    grid, wide = rl_demo.family(0, 8, 16), rl_demo.family(0, 8, 16, "wide")
    assert (wide["test"], wide["rl"]) == (grid["test"], grid["rl"])
    assert len(grid["sft"]) == 360 and len(wide["sft"]) == len(set(wide["sft"])) == 6 * 24 * 16 - 24
    assert not set(wide["sft"]) & set(grid["test"] + grid["rl"])
    held = grid["test"] + grid["rl"]
    assert {s.a for s in held} <= {s.a for s in wide["sft"]} and {s.b for s in held} <= {
        s.b for s in wide["sft"]
    }
    assert rl_demo.family(1, 8, 16, "wide")["sft"] != wide["sft"]  # the order is seeded


def test_wide_sft_corpus_has_a_row_per_task_and_its_mistakes_use_its_values(tmp_path):
    from benchmark.prompts import PromptBuilder, PromptConfig

    splits = rl_demo.family(0, 2, 2, "wide")
    tasks = rl_demo.write_tasks({"sft": splits["sft"][:40]}, tmp_path)
    builder = PromptBuilder(PromptConfig(backend="cuda-raw"))
    rows = rl_demo.sft_corpus(tasks, builder, "sft", rl_demo.SFT_ROWS_PER_TASK["wide"], 1.0, 0, "wide")
    assert sorted(r["task_id"] for r in rows) == sorted(tasks)
    wrong = [rl_demo.read_answer(r["messages"][-3]["content"].split("```python\n")[1]) for r in rows]
    off_grid = [a for _, a, b, _ in wrong if a not in rl_demo.A_VALUES] + [
        b for _, a, b, _ in wrong if b not in rl_demo.B_VALUES
    ]
    assert off_grid  # the repair dialogues' wrong constants come from the wide values too


H200_CUSET = Path(__file__).resolve().parents[2] / "docs" / "rl-demo" / "cuset-2026-12-03.json"


def test_a_file_from_before_sft_seeds_reads_as_one_run_per_arm_at_its_seed(tmp_path):
    """The H200 call of 2026-12-03 (one run per arm, seed 0): merged alone it gives back the
    intervals it recorded; with a later call's seed-1 runs it pools into two seeds per arm."""
    old = json.loads(H200_CUSET.read_text())
    alone = rl_demo.merge([H200_CUSET])["sft_arms"]
    for name in ("cuset", "cuset_no_masking", "cuset_no_regions"):
        assert list(alone[name]["runs"]) == ["0"]
        for metric, recorded in old["sft_arms"][name]["differences"]["test"].items():
            now = alone[name]["differences"]["test"][metric]
            # the speedup's last bit follows the platform's log and exp (the file is from the GPU's Python)
            assert now == {**recorded, "value": pytest.approx(recorded["value"], rel=1e-12)} | {
                "interval": pytest.approx(recorded["interval"], rel=1e-12)
            }
        assert (
            alone["cuset"]["differences"]["test"]["pass_rate"]
            == old["sft_arms"]["cuset"]["differences"]["test"]["pass_rate"]
        )
    later = {
        **old,
        "sft_arms": sft_arms(
            {
                name: {1: old["sft_arms"][other]["eval"]["test"]["per_task"]}
                for name, other in (("plain", "cuset"), ("cuset", "plain"))
            }
        ),
    }
    second = tmp_path / "later.json"
    second.write_text(json.dumps(later))
    arms = rl_demo.merge([H200_CUSET, second])["sft_arms"]
    assert list(arms["plain"]["runs"]) == ["0", "1"] and list(arms["cuset_no_regions"]["runs"]) == ["0"]
    assert arms["cuset"]["differences"]["test"]["pass_rate"]["value"] == 0.0
    assert not arms["cuset"]["differences"]["test"]["pass_rate"]["improved"]


H100_ARMS = Path(__file__).resolve().parents[2] / "docs" / "rl-demo" / "arms-h100-2026-12-05"


def test_the_four_h100_arms_merge_as_one_sft_model_with_their_recorded_differences():
    """The twentieth session's four calls, one arm each from one cached model: the merged report
    compares them (one SFT model, one GPU) and keeps each call's recorded intervals."""
    arms = ("full", "no_primeecho", "no_bdr", "no_mirrorpop")
    files = [H100_ARMS / f"{arm}.json" for arm in arms]
    merged = rl_demo.merge(files)
    assert merged["one_sft_model"]
    ran = {name: arm for name, arm in merged["arms"].items() if "differences" in arm}
    assert sorted(ran) == sorted(arms)
    for arm, path in zip(arms, files, strict=True):
        recorded = json.loads(path.read_text())["arms"][arm]
        assert recorded["steps"] == ran[arm]["steps"] == 10
        assert ran[arm]["differences"]["test"] == recorded["differences"]["test"]


# ---------------------------------------------------------------------------------------- the SFT gate


def sft_record(key: str | None, created: str | None, reused: bool, gate: str = "passed") -> dict:
    """rl_demo.json's "sft" as run_rl writes it, with a cache entry where key is given."""
    record = {
        "steps": 6,
        "gate": gate,
        "min_pass": 0.5,
        "attempts_allowed": 3,
        "attempts_made": 1 if gate == "passed" else 3,
        "attempt": 1,
        "seed": 0,
        "rl_pass_rate": 0.75 if gate == "passed" else 0.25,
        "stopped": None if gate == "passed" else "all 3 attempts below the minimum",
    }
    if key:
        record["cache"] = {
            "key": key,
            "dir": f"/c/{key}",
            "reused": reused,
            "created": created,
            "not_written": None,
        }
    return record


def stub_gate(
    monkeypatch, tmp_path: Path, rl_passes: dict[str, int], cacheable: bool = False
) -> SimpleNamespace:
    """run_rl with train_sft, evaluate and the arms stood in for on a fake clock: an SFT training takes
    100 s, an evaluation 10 s a split, an arm 50 s. An attempt's model is its folder (sft,
    sft-attempt-2, ...), and passes rl_passes[folder] of 32 samples on either split. Records each
    training's (folder, seed) and the model each arm started from. `cacheable`: a cache entry of these
    empty model folders reads back (its tokenizer check stood in for)."""
    seen = SimpleNamespace(now=0.0, trained=[], arm_models=[])
    monkeypatch.setattr(rl_demo, "time", SimpleNamespace(monotonic=lambda: seen.now))

    def train_sft(args, tokenizer, corpus, overrides=None, folder="sft", deadline=None, seed=None):
        seen.trained.append((folder, seed))
        seen.now += 100.0
        model_dir = tmp_path / "models" / folder
        model_dir.mkdir(parents=True, exist_ok=True)
        return rl_demo.SFTRun(model_dir, 6, 2.0, 1.0, None, 100.0, False)

    def evaluate(model, tokenizer, tasks, builder, source, split, args):
        seen.now += 10.0
        return evaluation(outcomes(rl_passes[model]))

    def run_arm(name, overrides, model_dir, tokenizer, dataset, source, args, deadline):
        seen.arm_models.append(model_dir.name)
        seen.now += 50.0
        info = {"steps": 10, "generations": 5, "seconds": 50.0, "stopped_by_deadline": False}
        return model_dir.name, info | {"bdr": {"pushed": 0, "replayed": 0}, "curve": []}

    monkeypatch.setattr(rl_demo, "train_sft", train_sft)
    monkeypatch.setattr(rl_demo, "evaluate", evaluate)
    monkeypatch.setattr(rl_demo, "run_arm", run_arm)
    monkeypatch.setattr(
        "transformers.AutoModelForCausalLM.from_pretrained",
        lambda path: SimpleNamespace(to=lambda device: Path(path).name),
    )
    if cacheable:
        monkeypatch.setattr("transformers.PreTrainedTokenizerFast.from_pretrained", lambda path: None)
        monkeypatch.setattr(rl_demo, "tokenizer_digest", lambda tokenizer: "the tokenizer")
    return seen


def test_the_gate_trains_again_with_the_next_seed_until_the_rl_split_passes(tmp_path, monkeypatch):
    seen = stub_gate(monkeypatch, tmp_path, {"sft": 8, "sft-attempt-2": 24, "sft-attempt-3": 32})
    out = tmp_path / "out"
    results = rl_demo.main(["--tiny", "--out", str(out), "--arms", "full", "--seed", "3"])
    assert seen.trained == [("sft", 3), ("sft-attempt-2", 1003)]  # stops at the first that passes
    assert seen.arm_models == ["sft-attempt-2"]
    assert [(a["attempt"], a["seed"], a["rl_pass_rate"]) for a in results["sft_attempts"]] == [
        (1, 3, 0.25),
        (2, 1003, 0.75),
    ]
    assert (
        results["sft_attempts"][0]["test_pass_rate"] == 0.25 and results["sft_attempts"][0]["eval_s"] == 20.0
    )
    sft = results["sft"]
    assert (sft["gate"], sft["attempt"], sft["seed"], sft["attempts_made"], sft["stopped"]) == (
        "passed",
        2,
        1003,
        2,
        None,
    )
    assert "cache" not in sft
    assert results["before"]["rl"]["pass_rate"] == 0.75
    assert results["timing"]["sft_s"] == 200.0 and results["timing"]["eval_before_s"] == 40.0
    md = (out / "rl_demo.md").read_text()
    assert "SFT model: trained in the call, not cached (no --sft-cache); gate passed (minimum 50%" in md
    assert "attempt 2 of 2 kept, training seed 1003, RL pass 75%" in md


def test_the_gate_tries_the_seeds_it_is_given_in_their_order(tmp_path, monkeypatch):
    assert rl_demo.parse_args(["--out", str(tmp_path), "--seed", "3", "--sft-attempts", "2"]).sft_seeds == [
        3,
        1003,
    ]
    seen = stub_gate(monkeypatch, tmp_path, {"sft": 8, "sft-attempt-2": 24, "sft-attempt-3": 32})
    results = rl_demo.main(
        ["--tiny", "--out", str(tmp_path / "out"), "--arms", "full", "--sft-seeds", "2000", "5"]
    )
    assert seen.trained == [("sft", 2000), ("sft-attempt-2", 5)]
    assert results["sft"]["seed"] == 5 and results["sft"]["attempts_allowed"] == 2


def test_where_no_attempt_passes_the_gate_fails_keeps_the_best_and_runs_no_arm(tmp_path, monkeypatch, caplog):
    seen = stub_gate(monkeypatch, tmp_path, {"sft": 8, "sft-attempt-2": 16, "sft-attempt-3": 16})
    out = tmp_path / "out"
    results = rl_demo.main(["--tiny", "--out", str(out), "--arms", "full", "no_bdr", "--sft-min-pass", "0.9"])
    assert seen.trained == [("sft", 0), ("sft-attempt-2", 1000), ("sft-attempt-3", 2000)]
    assert seen.arm_models == []
    assert results["arms"] == {name: {"skipped": "the SFT gate failed"} for name in ("full", "no_bdr")}
    sft = results["sft"]
    assert (sft["gate"], sft["attempt"], sft["attempts_made"]) == ("failed", 2, 3)
    assert sft["stopped"] == "all 3 attempts below the minimum"
    assert [a["rl_pass_rate"] for a in results["sft_attempts"]] == [0.25, 0.5, 0.5]
    assert "SFT gate failed" in caplog.text
    md = (out / "rl_demo.md").read_text()
    assert (
        "gate failed (minimum 90% of the RL split): attempt 2 of 3 kept" in md
    )  # the best, the earliest of equals
    assert "| full | skipped (the SFT gate failed) |" in md


def test_the_gate_trains_while_an_attempt_fits_and_a_call_cut_short_leaves_its_attempts_to_the_next(
    tmp_path, monkeypatch
):
    """An attempt takes 120 s (training and two evaluations). With 300 s, the first two fail and 60 s
    are left, short of a third: the gate stops, failed, and no arm runs. Every attempt is in the
    cache, so the next call reads both (no training) and trains only the third, which passes; its arm
    then runs. Arms are not reserved for: a model that has learned the task comes first."""
    seen = stub_gate(
        monkeypatch, tmp_path, {"sft": 8, "sft-attempt-2": 8, "sft-attempt-3": 24}, cacheable=True
    )
    cache = tmp_path / "cache"
    args = ["--tiny", "--arms", "full", "--sft-cache", str(cache)]
    results = rl_demo.main([*args, "--out", str(tmp_path / "a"), "--budget-s", "300"])
    assert seen.trained == [("sft", 0), ("sft-attempt-2", 1000)] and seen.arm_models == []
    sft = results["sft"]
    assert sft["gate"] == "failed" and sft["attempts_made"] == 2
    assert sft["stopped"] == "budget: 60 s left, less than another attempt (120 s)"
    assert [a["cache"]["reused"] for a in results["sft_attempts"]] == [False, False]
    assert len([p for p in cache.iterdir() if not p.name.startswith(".")]) == 2

    seen.now, seen.trained = 0.0, []
    results = rl_demo.main([*args, "--out", str(tmp_path / "b"), "--budget-s", "300"])
    assert seen.trained == [("sft-attempt-3", 2000)] and seen.arm_models == ["sft-attempt-3"]
    assert [a["cache"]["reused"] for a in results["sft_attempts"]] == [True, True, False]
    assert [a["rl_pass_rate"] for a in results["sft_attempts"]] == [0.25, 0.25, 0.75]
    assert results["sft"]["gate"] == "passed" and results["sft"]["cache"]["reused"] is False
    assert results["timing"]["sft_s"] == 100.0 and "sft_cache_load_s" in results["timing"]


def test_the_first_arm_is_skipped_rather_than_cut_where_the_expected_arm_does_not_fit(tmp_path, monkeypatch):
    """The gate passes at the first attempt (120 s of 300); the arm's evaluation reserve is 3 x 20 s,
    so 120 s are left to train: enough for --arm-s 100, not for 150."""
    seen = stub_gate(monkeypatch, tmp_path, {"sft": 24})
    args = ["--tiny", "--arms", "full", "--budget-s", "300"]
    results = rl_demo.main([*args, "--out", str(tmp_path / "a"), "--arm-s", "150"])
    assert seen.arm_models == [] and results["arms"]["full"] == {"skipped": "budget"}
    seen.now = 0.0
    results = rl_demo.main([*args, "--out", str(tmp_path / "b"), "--arm-s", "100"])
    assert seen.arm_models == ["sft"] and results["arms"]["full"]["steps"] == 10


def test_gate_and_cache_options(tmp_path):
    args = rl_demo.parse_args(["--out", str(tmp_path)])
    assert (args.sft_cache, args.sft_min_pass, args.sft_attempts, args.arm_s) == (None, 0.5, 3, 240.0)
    assert rl_demo.parse_args(["--out", str(tmp_path), "--tiny"]).arm_s == 60.0
    for wrong in (["--sft-attempts", "0"], ["--sft-arms", "plain", "--sft-cache", str(tmp_path)]):
        with pytest.raises(SystemExit):
            rl_demo.parse_args(["--out", str(tmp_path), *wrong])


# ---------------------------------------------------------------------------------------- the SFT cache


def test_merge_says_whether_every_call_started_from_one_sft_model(tmp_path):
    entry = ("0123456789abcdef", "2026-12-03T10:00:00+00:00")
    first = run_file(tmp_path / "a.json", {"full": arm(BEFORE, AFTER)}, sft=sft_record(*entry, reused=False))
    second = run_file(
        tmp_path / "b.json", {"no_bdr": arm(BEFORE, AFTER)}, sft=sft_record(*entry, reused=True)
    )
    out = tmp_path / "merged"
    results = rl_demo.main(["--merge", str(first), str(second), "--out", str(out)])
    assert results["one_sft_model"] is True
    assert [c["sft"]["cache"]["reused"] for c in results["calls"]] == [False, True]
    md = (out / "rl_demo.md").read_text()
    assert (
        "- call 1: trained in the call, stored as cache entry 0123456789abcdef (created 2026-12-03T10:00"
        in md
    )
    assert (
        "- call 2: cache entry 0123456789abcdef (created 2026-12-03T10:00:00+00:00), reused; gate passed"
        in md
    )
    assert "All calls started from one SFT model (cache entry 0123456789abcdef" in md

    # the same key written twice (the first entry was replaced): two models
    again = run_file(
        tmp_path / "c.json",
        {"no_bdr": arm(BEFORE, AFTER)},
        sft=sft_record(entry[0], "2026-12-04", reused=False),
    )
    uncached = run_file(
        tmp_path / "d.json", {"no_bdr": arm(BEFORE, AFTER)}, sft=sft_record(None, None, False)
    )
    old = run_file(tmp_path / "e.json", {"no_bdr": arm(BEFORE, AFTER)})  # from before the cache
    for other in (again, uncached, old):
        merged = rl_demo.merge([first, other])
        assert merged["one_sft_model"] is False
        assert "Not one SFT model" in rl_demo.tables(merged)
    assert rl_demo.merge([uncached])["one_sft_model"] is True
    assert "trained in the call (no gate or cache recorded)" in rl_demo.tables(rl_demo.merge([first, old]))


def test_merge_compares_calls_on_fresh_machines_whose_models_have_one_digest(tmp_path):
    """Two cache entries (two machines), one weights digest: reproducible training made one model, and
    the report says so; another digest is another model."""
    a = {**sft_record("aaaaaaaaaaaaaaaa", "2026-12-05T10:00:00+00:00", reused=False), "weights": "0f0f"}
    b = {**sft_record("aaaaaaaaaaaaaaaa", "2026-12-06T10:00:00+00:00", reused=False), "weights": "0f0f"}
    first = run_file(tmp_path / "a.json", {"full": arm(BEFORE, AFTER)}, sft=a)
    second = run_file(tmp_path / "b.json", {"no_bdr": arm(BEFORE, AFTER)}, sft=b)
    merged = rl_demo.merge([first, second])
    assert merged["one_sft_model"] is True
    md = rl_demo.tables(merged)
    assert "All calls started from one SFT model (weights 0f0f in every call, trained alike)" in md
    assert "training seed 0, RL pass 75%; weights 0f0f" in md
    other = run_file(tmp_path / "c.json", {"no_bdr": arm(BEFORE, AFTER)}, sft={**b, "weights": "1e1e"})
    assert rl_demo.merge([first, other])["one_sft_model"] is False
    unrecorded = run_file(tmp_path / "d.json", {"no_bdr": arm(BEFORE, AFTER)}, sft={**b, "weights": None})
    assert rl_demo.merge([first, unrecorded])["one_sft_model"] is False


def test_the_weights_digest_sees_every_tensor_and_nothing_else(tmp_path):
    import torch
    from synthetic import build_model, build_tokenizer, save_model_folder

    tokenizer = build_tokenizer()
    model = build_model(len(tokenizer), seed=0)
    first = rl_demo.weights_digest(save_model_folder(model, tokenizer, tmp_path / "a"))
    assert rl_demo.weights_digest(save_model_folder(model, tokenizer, tmp_path / "b")) == first
    assert (
        rl_demo.weights_digest(
            save_model_folder(build_model(len(tokenizer), seed=1), tokenizer, tmp_path / "c")
        )
        != first
    )
    with torch.no_grad():
        model.model.norm.weight[0] += 1e-3
    assert rl_demo.weights_digest(save_model_folder(model, tokenizer, tmp_path / "d")) != first


def test_reproducible_training_asks_for_deterministic_kernels_and_gives_the_settings_back(monkeypatch):
    import torch

    monkeypatch.delenv("CUBLAS_WORKSPACE_CONFIG", raising=False)
    cuda = torch.backends.cuda
    assert not torch.are_deterministic_algorithms_enabled() and cuda.flash_sdp_enabled()
    with rl_demo.reproducible_training():
        assert torch.are_deterministic_algorithms_enabled()
        assert torch.is_deterministic_algorithms_warn_only_enabled()
        assert (
            cuda.math_sdp_enabled() and not cuda.flash_sdp_enabled() and not cuda.mem_efficient_sdp_enabled()
        )
        assert rl_demo.os.environ["CUBLAS_WORKSPACE_CONFIG"] == ":4096:8"
    assert not torch.are_deterministic_algorithms_enabled() and cuda.flash_sdp_enabled()


def test_an_entry_is_written_whole_or_not_at_all(tmp_path):
    """The entry is built beside its place and renamed into it: a failure half-way (here the model
    folder is missing) leaves neither an entry nor a temporary folder."""
    run = rl_demo.SFTRun(tmp_path / "no-model", 6, 2.0, 1.0, None, 1.0, False)
    attempt = rl_demo.SFTAttempt(1, 0, run, {}, 1.0, 2.0)
    cache = tmp_path / "cache"
    with pytest.raises(FileNotFoundError):
        rl_demo.write_sft_entry(cache / "k", {}, attempt)
    assert list(cache.iterdir()) == []


def test_an_unusable_entry_says_what_is_wrong_with_it(tmp_path, caplog):
    base = {"version": 1, "settings": {"sft_steps": 6}, "corpus": "c", "tokenizer": "t", "tasks": "x"}
    cache = rl_demo.SFTCache(tmp_path, base)
    folder, material = cache.folder(seed=0)
    assert material == {**base, "seed": 0} and cache.folder(seed=1)[0] != folder  # an entry per seed
    assert cache.load(1, 0) is None and not caplog.text  # no entry: no warning
    folder.mkdir()
    whole = {"created": "t", "material": material, "run": {}, "before": {"rl": {}, "test": {}}, "eval_s": 1.0}
    cases = {
        "no entry.json": None,
        "JSONDecodeError": "{",
        "entry.json lacks before, wall_s": {k: v for k, v in whole.items() if k != "before"},
        "made with other seed, settings than this run's": {
            **whole,
            "wall_s": 2.0,
            "material": {**material, "settings": {"sft_steps": 5}, "seed": 1000},
        },
        "its before-RL evaluation covers ['rl'], not rl and test": {
            **whole,
            "wall_s": 2.0,
            "before": {"rl": {}},
        },
        "OSError": {**whole, "wall_s": 2.0},  # no model folder
    }
    for message, entry in cases.items():
        (folder / "entry.json").unlink(missing_ok=True)
        if entry is not None:
            (folder / "entry.json").write_text(entry if isinstance(entry, str) else json.dumps(entry))
        caplog.clear()
        assert cache.load(1, 0) is None
        assert "ignored, training afresh" in caplog.text and message in caplog.text, message


def stub_arms(monkeypatch) -> list[Path]:
    """run_arm as a no-op (the arm's model is the SFT model itself), recording each arm's model_dir:
    the cache tests train SFT for real (--tiny, CPU) and need no RL."""
    from transformers import AutoModelForCausalLM

    started_from: list[Path] = []

    def run_arm(name, overrides, model_dir, tokenizer, dataset, source, args, deadline):
        started_from.append(Path(model_dir))
        info = {"steps": 0, "generations": 0, "seconds": 0.0, "stopped_by_deadline": False}
        return AutoModelForCausalLM.from_pretrained(model_dir), info | {
            "bdr": {"pushed": 0, "replayed": 0},
            "curve": [],
        }

    monkeypatch.setattr(rl_demo, "run_arm", run_arm)
    return started_from


def tiny(out: Path, cache: Path | None, *extra: str) -> list[str]:
    """A --tiny RL call with one arm and a gate that every model passes, unless extra says otherwise."""
    cached = ["--sft-cache", str(cache)] if cache else []
    return ["--tiny", "--out", str(out), "--arms", "full", "--sft-min-pass", "0", *cached, *extra]


@pytest.fixture(scope="module")
def first_call(tmp_path_factory):
    """One real --tiny call that trains SFT (6 steps on the CPU) and stores it in a fresh cache."""
    root = tmp_path_factory.mktemp("sft-cache")
    with pytest.MonkeyPatch.context() as monkeypatch:
        started_from = stub_arms(monkeypatch)
        results = rl_demo.main(tiny(root / "first", root / "cache"))
    return SimpleNamespace(root=root, cache=root / "cache", results=results, started_from=started_from)


def copy_cache(first_call, tmp_path: Path) -> Path:
    cache = tmp_path / "cache"
    shutil.copytree(first_call.cache, cache)
    return cache


@pytest.mark.slow
def test_a_first_call_trains_once_and_stores_the_model_with_its_evaluation(first_call):
    sft = first_call.results["sft"]
    assert sft["gate"] == "passed" and sft["attempts_made"] == 1  # --sft-min-pass 0: never trains again
    assert len(first_call.results["sft_attempts"]) == 1
    cache = sft["cache"]
    assert cache["reused"] is False and cache["created"] and cache["not_written"] is None
    entry = first_call.cache / cache["key"]
    assert [p.name for p in first_call.cache.iterdir()] == [cache["key"]]  # no temporary folder left
    stored = json.loads((entry / "entry.json").read_text())
    assert stored["before"] == first_call.results["before"] and stored["created"] == cache["created"]
    attempt = first_call.results["sft_attempts"][0]
    assert (
        stored["run"]["weights"] == sft["weights"] == attempt["weights"]
        and stored["wall_s"] == attempt["wall_s"]
    )
    assert attempt["cache"] == cache
    assert (entry / "model" / "model.safetensors").is_file() and (
        entry / "model" / "tokenizer.json"
    ).is_file()
    assert first_call.started_from == [first_call.root / "first" / "sft"]


@pytest.mark.slow
def test_a_second_call_with_the_same_settings_reuses_the_model_and_its_evaluation(
    first_call, tmp_path, monkeypatch
):
    started_from = stub_arms(monkeypatch)

    def no_training(*args, **kwargs):
        raise AssertionError("a reused SFT model is not trained again")

    monkeypatch.setattr(rl_demo, "train_sft", no_training)
    results = rl_demo.main(tiny(tmp_path / "second", first_call.cache, "--arms", "no_bdr"))
    first = first_call.results
    key = first["sft"]["cache"]["key"]
    assert results["sft"]["cache"] == {**first["sft"]["cache"], "reused": True}
    assert results["before"] == first["before"]
    assert [{**a, "cache": None} for a in results["sft_attempts"]] == [
        {**a, "cache": None} for a in first["sft_attempts"]
    ]
    assert results["sft_attempts"][0]["cache"]["reused"] is True
    assert {k: v for k, v in results["sft"].items() if k != "cache"} == {
        k: v for k, v in first["sft"].items() if k != "cache"
    }
    assert "sft_s" not in results["timing"] and "sft_cache_load_s" in results["timing"]
    assert started_from == [first_call.cache / key / "model"]
    assert (
        f"SFT model: cache entry {key} (created {first['sft']['cache']['created']}), reused"
        in (tmp_path / "second" / "rl_demo.md").read_text()
    )
    merged = rl_demo.merge([first_call.root / "first" / "rl_demo.json", tmp_path / "second" / "rl_demo.json"])
    assert merged["one_sft_model"] is True


@pytest.mark.slow
def test_a_changed_setting_misses_the_cache(first_call, tmp_path, monkeypatch):
    stub_arms(monkeypatch)
    cache = copy_cache(first_call, tmp_path)
    results = rl_demo.main(tiny(tmp_path / "other", cache, "--sft-steps", "5"))
    first_key = first_call.results["sft"]["cache"]["key"]
    assert results["sft"]["cache"]["reused"] is False and results["sft"]["cache"]["key"] != first_key
    assert results["sft"]["steps"] == 5
    assert sorted(p.name for p in cache.iterdir()) == sorted([first_key, results["sft"]["cache"]["key"]])


@pytest.mark.slow
def test_a_model_whose_cached_evaluation_ran_on_another_gpu_is_evaluated_again_and_stored_so(
    first_call, tmp_path, monkeypatch
):
    """Speedups are the GPU's: a cached before-RL evaluation from another GPU (or from before entries
    recorded theirs) would meet an after-RL one made here. The model is reused, its evaluation made
    again here and stored, so the next call on this machine reuses both."""
    stub_arms(monkeypatch)
    monkeypatch.setattr(
        rl_demo, "train_sft", lambda *a, **k: pytest.fail("a reused SFT model is not trained")
    )
    evaluated = []
    evaluate_before = rl_demo.evaluate_before
    monkeypatch.setattr(rl_demo, "evaluate_before", lambda *a: evaluated.append(a[1]) or evaluate_before(*a))
    cache = copy_cache(first_call, tmp_path)
    key = first_call.results["sft"]["cache"]["key"]
    path = cache / key / "entry.json"
    entry = json.loads(path.read_text())
    assert entry["gpu"] is None  # --tiny evaluates on the CPU
    path.write_text(json.dumps(entry | {"gpu": "NVIDIA H200"}))

    results = rl_demo.main(tiny(tmp_path / "here", cache))
    use = results["sft"]["cache"]
    assert use["reused"] is True and evaluated == [cache / key / "model"]
    assert use["evaluated_again"] == "its before-RL evaluation ran on NVIDIA H200, this call's on the CPU"
    stored = json.loads(path.read_text())
    assert stored["gpu"] is None and stored["before"] == results["before"]
    assert stored["run"] == entry["run"]  # the same model, only its evaluation new
    assert "eval_before_s" in results["timing"]
    assert (
        "reused, evaluated again (its before-RL evaluation ran on NVIDIA H200"
        in (tmp_path / "here" / "rl_demo.md").read_text()
    )

    again = rl_demo.main(tiny(tmp_path / "again", cache))
    assert evaluated == [cache / key / "model"]  # stored with this device's evaluation: not made again
    assert again["sft"]["cache"]["evaluated_again"] is None and again["before"] == results["before"]


@pytest.mark.slow
def test_a_partial_entry_is_trained_afresh_and_replaced(first_call, tmp_path, monkeypatch, caplog):
    stub_arms(monkeypatch)
    cache = copy_cache(first_call, tmp_path)
    key = first_call.results["sft"]["cache"]["key"]
    (cache / key / "model" / "model.safetensors").unlink()
    results = rl_demo.main(tiny(tmp_path / "again", cache))
    assert f"SFT cache entry {cache / key} ignored, training afresh" in caplog.text
    assert results["sft"]["cache"]["reused"] is False and results["sft"]["cache"]["created"]
    assert (cache / key / "model" / "model.safetensors").is_file()
    assert [p.name for p in cache.iterdir()] == [key]  # the unusable entry is gone, no temporary folder left
    assert json.loads((cache / key / "entry.json").read_text())["before"] == results["before"]
    # trained again alike: the same model, by its weights digest, so arms of both calls compare
    assert results["sft"]["weights"] == first_call.results["sft"]["weights"]
    assert rl_demo.weights_digest(cache / key / "model") == results["sft"]["weights"]


@pytest.mark.slow
def test_the_gate_trains_again_below_the_minimum_and_keeps_the_best(tmp_path, monkeypatch):
    """Real --tiny SFT with a minimum no model can meet: two attempts with seeds 0 and 1000, the gate
    failed, the better on the RL split kept (the first of equals), and no arm run."""
    started_from = stub_arms(monkeypatch)
    out = tmp_path / "out"
    results = rl_demo.main(tiny(out, None, "--sft-min-pass", "1.01", "--sft-attempts", "2"))
    attempts = results["sft_attempts"]
    assert [(a["attempt"], a["seed"]) for a in attempts] == [(1, 0), (2, 1000)]
    best = max(attempts, key=lambda a: a["rl_pass_rate"])
    sft = results["sft"]
    assert (sft["gate"], sft["attempt"], sft["stopped"]) == (
        "failed",
        best["attempt"],
        "all 2 attempts below the minimum",
    )
    assert results["before"]["rl"]["pass_rate"] == best["rl_pass_rate"]
    assert attempts[0]["weights"] != attempts[1]["weights"]  # another seed, another model
    assert started_from == [] and results["arms"] == {"full": {"skipped": "the SFT gate failed"}}
