import json

from experiments.generation_speed import main


def test_each_arm_generates_the_whole_batch_to_the_limit_and_reports_its_rate(capsys):
    results = main(
        [
            "--model",
            "tiny",
            "--batch",
            "3",
            "--prompt",
            "12",
            "--new",
            "5",
            "--device",
            "cpu",
            "--dtype",
            "float32",
        ]
    )
    assert [r.arm for r in results] == ["dynamic", "static", "compiled"]
    for r in results:
        assert (r.batch, r.prompt_tokens, r.new_tokens) == (3, 12, 5)
        assert r.steady_s > 0 and r.tokens_per_s == 15 / r.steady_s
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [line["arm"] for line in lines] == ["dynamic", "static", "compiled"]


def test_a_failing_arm_is_reported_and_the_others_still_run(monkeypatch, capsys):
    import experiments.generation_speed as speed

    monkeypatch.setitem(speed.ARMS, "static", {"cache_implementation": "no-such-cache"})
    results = main(
        [
            "--model",
            "tiny",
            "--batch",
            "2",
            "--prompt",
            "8",
            "--new",
            "3",
            "--device",
            "cpu",
            "--arms",
            "static",
            "dynamic",
        ]
    )
    assert [r.arm for r in results] == ["dynamic"]
    first = json.loads(capsys.readouterr().out.splitlines()[0])
    assert first["arm"] == "static" and "error" in first
