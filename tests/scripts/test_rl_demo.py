"""scripts/rl_demo.py without training: the arms a call runs, the per-task results of an evaluation,
the paired intervals of after - before RL and the claims they allow, the arm budget (every arm all
its steps, or skipped), --merge of several calls into one report, and --sft-arms (SFT recipes
compared with plain SFT on the test split)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
import rl_demo  # noqa: E402

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


def run_file(path: Path, arms: dict, seed: int = 0) -> Path:
    results = {
        "settings": {"seed": seed},
        "data": {"test": 12, "rl": 12},
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
    args = SimpleNamespace(eval_samples=2, eval_temperature=0.7, max_new=16, seed=0)
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


def test_main_runs_every_arm_that_fits_in_full_and_records_the_rest_as_skipped(tmp_path, monkeypatch):
    """The phases are stand-ins on a fake clock: evaluations take 10 s a split, arms 100 s, the budget
    is 400 s; three arms fit whole, the fourth is skipped rather than cut."""
    clock = SimpleNamespace(now=0.0)
    monkeypatch.setattr(rl_demo, "time", SimpleNamespace(monotonic=lambda: clock.now))

    def evaluate(model, tokenizer, tasks, builder, source, split, args):
        clock.now += 10.0
        return evaluation(AFTER if model == "trained" else BEFORE)

    def run_arm(name, overrides, model_dir, tokenizer, dataset, source, args, deadline):
        assert deadline == 400.0 - 20.0  # the run's deadline less the last evaluation's cost
        clock.now += 100.0
        info = {"steps": 10, "generations": 5, "seconds": 100.0, "stopped_by_deadline": False}
        return "trained", info | {"bdr": {"pushed": 0, "replayed": 0}, "curve": []}

    sft = rl_demo.SFTRun(tmp_path, 6, 2.0, 1.0, None, 1.0, False)
    monkeypatch.setattr(rl_demo, "train_sft", lambda args, tokenizer, corpus: sft)
    monkeypatch.setattr(rl_demo, "evaluate", evaluate)
    monkeypatch.setattr(rl_demo, "run_arm", run_arm)
    monkeypatch.setattr(
        "transformers.AutoModelForCausalLM.from_pretrained",
        lambda path: SimpleNamespace(to=lambda device: "sft"),
    )
    results = rl_demo.main(["--tiny", "--out", str(tmp_path / "out"), "--budget-s", "400"])
    arms = results["arms"]
    assert list(arms) == list(rl_demo.ARMS)
    assert arms["no_mirrorpop"] == {"skipped": "budget"}
    for name in ("full", "no_primeecho", "no_bdr"):
        assert arms[name]["steps"] == 10 and arms[name]["differences"]["test"]["pass_rate"]["improved"]
    assert json.loads((tmp_path / "out" / "rl_demo.json").read_text())["arms"]["no_mirrorpop"] == {
        "skipped": "budget"
    }
    assert "| no_mirrorpop | skipped (budget) |" in (tmp_path / "out" / "rl_demo.md").read_text()


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


# ---------------------------------------------------------------------------------------- --sft-arms


def test_sft_arms_need_plain_and_run_it_first(tmp_path):
    args = rl_demo.parse_args(["--out", str(tmp_path), "--sft-arms", "cuset", "plain", "cuset_no_regions"])
    assert args.sft_arms == ["plain", "cuset", "cuset_no_regions"]
    assert rl_demo.parse_args(["--out", str(tmp_path)]).sft_arms is None
    with pytest.raises(SystemExit):
        rl_demo.parse_args(["--out", str(tmp_path), "--sft-arms", "cuset"])
    with pytest.raises(SystemExit):
        rl_demo.parse_args(["--out", str(tmp_path), "--sft-arms", "plain", "no_such_arm"])


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


def test_main_trains_each_sft_arm_with_its_config_and_compares_it_with_plain_on_the_test_split(
    tmp_path, monkeypatch
):
    """The real train_sft with a stand-in trainer on a fake clock: each arm trains 100 s, an evaluation
    takes 10 s, the budget is 330 s; plain and cuset run whole, cuset_no_regions is skipped, no RL runs."""
    clock = SimpleNamespace(now=0.0)
    monkeypatch.setattr(rl_demo, "time", SimpleNamespace(monotonic=lambda: clock.now))
    configs, deadlines, evaluated = [], [], []

    class Trainer:
        def __init__(self, model, args, train_dataset, processing_class, callbacks):
            configs.append(args)
            deadlines.append(callbacks[0].deadline)
            self.args = args
            self.state = SimpleNamespace(global_step=0, log_history=[])

        def train(self):
            clock.now += 100.0
            nll = {"cuset/nll": 0.5} if self.args.cuset else {}
            self.state = SimpleNamespace(
                global_step=self.args.max_steps, log_history=[{"loss": 2.0}, {"loss": 1.0, **nll}]
            )

    def evaluate(model, tokenizer, tasks, builder, source, split, args):
        evaluated.append((model, split))
        clock.now += 10.0
        return evaluation(BEFORE if model == "plain" else AFTER)

    def no_rl(*args, **kwargs):
        raise AssertionError("--sft-arms runs no RL")

    monkeypatch.setattr(rl_demo, "KernelSFTTrainer", Trainer)
    monkeypatch.setattr(rl_demo, "build_model", lambda *a, **k: None)
    monkeypatch.setattr(rl_demo, "save_model_folder", lambda model, tokenizer, path: path)
    monkeypatch.setattr(rl_demo, "save_final_model", lambda trainer: Path(trainer.args.output_dir))
    monkeypatch.setattr(rl_demo, "evaluate", evaluate)
    monkeypatch.setattr(rl_demo, "run_arm", no_rl)
    monkeypatch.setattr(
        "transformers.AutoModelForCausalLM.from_pretrained",
        lambda path: SimpleNamespace(to=lambda device: Path(path).name),
    )
    out = tmp_path / "out"
    results = rl_demo.main(
        ["--tiny", "--out", str(out), "--budget-s", "330", "--sft-arms", "cuset", "cuset_no_regions", "plain"]
    )

    plain, cuset = configs
    assert not plain.cuset and cuset.cuset
    assert cuset.cuset_token_masking and cuset.cuset_regions and cuset.cuset_sample_reweighting
    assert plain.output_dir == str(out / "sft-arms" / "plain") and cuset.output_dir == str(
        out / "sft-arms" / "cuset"
    )
    for field in ("max_steps", "seed", "learning_rate", "per_device_train_batch_size"):
        assert getattr(plain, field) == getattr(cuset, field)
    assert deadlines == [330.0, 330.0 - 10.0]  # the budget less the last evaluation's cost
    assert evaluated == [("plain", "test"), ("cuset", "test")]
    assert "arms" not in results and "before" not in results

    arms = results["sft_arms"]
    assert list(arms) == ["plain", "cuset", "cuset_no_regions"]
    assert arms["cuset_no_regions"] == {"skipped": "budget"}
    assert arms["plain"]["sft"] == {
        "steps": 6,
        "loss_first": 2.0,
        "loss_last": 1.0,
        "nll_last": None,
        "seconds": 100.0,
        "stopped_by_deadline": False,
    }
    assert arms["cuset"]["sft"]["nll_last"] == 0.5
    assert set(arms["plain"]["eval"]) == {"test"} and "differences" not in arms["plain"]
    assert arms["cuset"]["differences"]["test"]["pass_rate"]["improved"]
    assert json.loads((out / "rl_demo.json").read_text())["sft_arms"]["cuset_no_regions"] == {
        "skipped": "budget"
    }
    md = (out / "rl_demo.md").read_text()
    assert (
        "| cuset_no_regions | skipped (budget) |" in md and row(md, "| cuset | +33 pp").count("improved") == 3
    )


def sft_arm(samples: dict, plain: dict | None, nll: float | None) -> dict:
    """An SFT arm's record as main() writes it."""
    result = {"test": evaluation(samples)}
    sft = {
        "steps": 6,
        "loss_first": 2.0,
        "loss_last": 1.5,
        "nll_last": nll,
        "seconds": 1.0,
        "stopped_by_deadline": False,
    }
    record = {"sft": sft, "eval": result}
    if plain is not None:
        record["differences"] = rl_demo.differences({"test": evaluation(plain)}, result)
    return record


def test_the_sft_tables_show_each_arm_and_its_difference_from_plain():
    results = {
        "data": {"test": 12},
        "sft_arms": {
            "plain": sft_arm(BEFORE, None, None),
            "cuset": sft_arm(AFTER, BEFORE, 0.25),
            "cuset_no_masking": sft_arm(BEFORE, BEFORE, 0.5),
            "cuset_no_regions": {"skipped": "budget"},
        },
    }
    md = rl_demo.tables(results)
    assert "| plain | 6 | 1.5000 | 50% | 0.71 | 0% |" in md
    assert row(md, "| cuset | 6 | 0.2500 | 83% |")
    assert "| cuset_no_regions | skipped (budget) |" in md
    assert "arm - plain SFT (paired bootstrap 95% over 12 test tasks)" in md
    assert row(md, "| cuset | +33 pp").count("improved") == 3
    assert row(md, "| cuset_no_masking | +0 pp").count("no change shown") == 3
    assert not any(line.startswith("| plain | +") for line in md.splitlines())
    assert "claimed only where the 95% interval excludes zero" in md
    assert "RL steps" not in md
