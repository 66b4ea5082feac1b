"""The one capture of a result's environment."""

import torch

from benchmark.environment import (
    RESULT_PACKAGES,
    device_environment,
    host_environment,
    package_versions,
    torch_versions,
)


def test_the_environment_records_the_versions_that_change_results():
    env = host_environment()
    assert set(RESULT_PACKAGES) <= set(env)
    assert env["numpy"] and env["torch"]


def test_a_verdicts_environment_on_cpu_names_torch_python_and_the_device():
    env = device_environment(torch.device("cpu"))
    assert set(env) == {"torch", "python", "device"} and env["device"] == "cpu"


def test_versions_leave_out_or_mark_missing_packages():
    assert package_versions(("no-such-package-solbench",)) == {"no-such-package-solbench": None}
    assert "no-such-package-solbench" not in torch_versions(("no-such-package-solbench",))
    assert torch_versions()["torch"] == torch.__version__
