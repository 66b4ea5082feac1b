"""The public surface: `import benchmark` names what a script uses, and each name is the object the
package defines (not a copy), without importing torch until one is used."""

import subprocess
import sys

import benchmark


def test_every_public_name_resolves_to_its_definition():
    from benchmark.evaluate.harness import EvalConfig, evaluate
    from benchmark.runner import run

    assert sorted(benchmark.__all__) == sorted(benchmark._PUBLIC)
    for name in benchmark.__all__:
        assert getattr(benchmark, name) is not None
    assert benchmark.evaluate_candidate is evaluate and benchmark.run_model is run
    assert benchmark.EvalConfig is EvalConfig


def test_the_public_names_survive_importing_the_subpackages_they_are_named_apart_from():
    import benchmark.evaluate.harness
    import benchmark.run  # noqa: F401 - the command module, beside the run_model function

    assert callable(benchmark.run_model) and callable(benchmark.evaluate_candidate)


def test_importing_the_package_stays_light():
    code = "import sys, benchmark; print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_an_unknown_name_is_an_attribute_error():
    import pytest

    with pytest.raises(AttributeError, match="no attribute 'evaluate_sample'"):
        benchmark.evaluate_sample  # noqa: B018
