"""The verdict's one human line (what `benchmark.check` prints)."""

from benchmark.verdict import Status, Verdict


def test_the_summary_keeps_the_errors_first_line_whole():
    first = (
        "output 0 differs on trial 1 of 3: max |out - ref| 5.000e-01 at index (17, 203), where ref is "
        "1.2871e+00; allowed atol + rtol |ref| (atol=0.0001, rtol=0.0001, 8 x eager's own max error 4.77e-07)"
    )
    verdict = Verdict("level1/scale_shift", Status.INCORRECT, sample=2, error=f"{first}\nsecond line")
    assert verdict.summary() == f"level1/scale_shift#2 incorrect {first}"
    assert len(first) > 160
