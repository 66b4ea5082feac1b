"""Faster builds: main.cpp from a shared precompiled header where gcc can use it and from
the header itself where it cannot, with the same verdicts and the same object code; the route part
of the build cache's key; a .cu's torch/extension.h tried as torch/types.h, the source as written
whenever that fails; build jobs that never oversubscribe the build cores; one GPU architecture."""

from __future__ import annotations

import dataclasses
import re
import shlex
import subprocess
from pathlib import Path

import pytest
import torch.utils.cpp_extension as cpp_extension

from benchmark.evaluate import harness
from benchmark.evaluate.candidate import (
    FAILED_MARK,
    LIGHT_CU_ENV,
    LIGHT_FAILED_MARK,
    PCH_ENV,
    PCH_FILE,
    SEEN_MARK,
    TORCH_INCLUDE,
    HeaderRoute,
    build_key,
    header_route,
    lighter_cuda_sources,
    lightest_cuda_call,
    prepare_torch_headers,
    route_builds,
    undeclared_in_torch,
)
from benchmark.evaluate.harness import BuildOutcome, EvalConfig, build, child_env, evaluate
from benchmark.task import load_task
from benchmark.verdict import Status
from benchmark.verify import verifier
from benchmark.verify.verifier import MAX_BUILD_JOBS, Verifier, VerifierConfig, default_build_cores

FLAGS = ["-O0"]
CALL = {"cpp_sources": "", "functions": ["apply"], "extra_cflags": FLAGS}


@pytest.fixture(scope="module")
def task(data_dir):
    return load_task(data_dir / "suite" / "level1" / "scale_shift.py")


@pytest.fixture
def cfg(fast_eval, tmp_path):
    return dataclasses.replace(fast_eval, measure=False, trials=1, cache_dir=tmp_path / "cache")


def folder_of(builds: Path, name: str) -> Path:
    [folder] = [d for d in builds.iterdir() if (d / f"{name}.so").exists()]
    return folder


def main_command(folder: Path, drop: str | None = None) -> list[str]:
    """The folder's compile of main.cpp as its ninja file has it (less `drop`), writing out.o."""
    lines = (folder / "build.ninja").read_text().splitlines()
    variables = dict(line.split(" = ", 1) for line in lines if " = " in line)
    [source] = [line.split()[-1] for line in lines if line.startswith("build main.o: compile ")]
    cflags = variables["cflags"].replace(f" {drop}", "") if drop else variables["cflags"]
    return shlex.split(f"{variables['cxx']} {cflags} -c {source} -o out.o")


def first_include(folder: Path) -> str:
    """gcc's first -H line for the folder's main.cpp ("! x.gch" where it reads a precompiled header,
    which it can only do for the first include), the compile stopped there."""
    with subprocess.Popen(
        [*main_command(folder), "-H", "-fsyntax-only"],
        cwd=folder,
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
    ) as gcc:
        line = gcc.stderr.readline().strip()
        gcc.kill()
    return line


@pytest.mark.slow
def test_the_header_route_gives_the_same_verdicts_and_object_code(task, cfg, cpp_candidate):
    builds = cfg.cache_dir / "builds"
    route = header_route(builds, CALL)
    route.folder.mkdir(parents=True)
    (route.folder / SEEN_MARK).touch()  # as if these flags had been used once: this build makes the .gch
    fast = cpp_candidate("solbench_pch_fast", headers="#include <torch/extension.h>\n")
    assert build(fast, cfg).ok
    assert (route.folder / PCH_FILE).exists()
    folder = folder_of(builds, "solbench_pch_fast")
    include = f"-I{route.folder}"
    assert include in (folder / "build.ninja").read_text()
    assert first_include(folder) == f"! {route.folder / PCH_FILE}"  # gcc read the .gch, not the header
    subprocess.run(main_command(folder, drop=include), cwd=folder, check=True)
    assert (folder / "out.o").read_bytes() == (folder / "main.o").read_bytes()  # the same object without it

    assert evaluate(task, fast, cfg).status is Status.PASS
    plain = evaluate(task, fast, dataclasses.replace(cfg, precompiled_header=False))
    assert plain.status is Status.PASS
    assert len([d for d in builds.iterdir() if (d / "solbench_pch_fast.so").exists()]) == 2  # one per route

    # main.cpp that opens with another header: gcc cannot use the .gch and includes the header
    late = cpp_candidate(
        "solbench_pch_late", headers="#include <vector>\n#include <torch/extension.h>\n", no_implicit=True
    )
    assert evaluate(task, late, cfg).status is Status.PASS
    late_folder = folder_of(builds, "solbench_pch_late")
    assert include in (late_folder / "build.ninja").read_text()
    assert first_include(late_folder).endswith("/vector")


def test_the_route_is_part_of_the_key(tmp_path, monkeypatch):
    call = {**CALL, "use_pch": True}
    route = header_route(tmp_path, call)
    routed = route.routed(call)
    assert routed["extra_cflags"] == [*FLAGS, f"-I{route.folder}"]
    assert "use_pch" not in routed  # torch's own .gch lives in its install, deleted by every other build
    assert build_key("ext", routed) != build_key("ext", call)
    assert header_route(tmp_path, call) == route  # the build and the execution child agree
    assert header_route(tmp_path, {**call, "extra_cflags": ["-O3"]}).folder != route.folder
    assert header_route(tmp_path, {**call, "extra_include_paths": [str(tmp_path)]}).folder != route.folder
    monkeypatch.setenv(PCH_ENV, "0")
    assert header_route(tmp_path, call) is None


def test_a_header_that_cannot_be_made_costs_only_time(tmp_path, monkeypatch):
    monkeypatch.setattr(cpp_extension, "check_compiler_is_gcc", lambda compiler: False)
    route = header_route(tmp_path, CALL)
    route.prepare()
    assert (route.folder / SEEN_MARK).exists() and not (route.folder / FAILED_MARK).exists()
    route.prepare()  # the second sighting would make it
    assert "not gcc" in (route.folder / FAILED_MARK).read_text()
    assert not (route.folder / PCH_FILE).exists()
    monkeypatch.setattr(cpp_extension, "check_compiler_is_gcc", lambda compiler: 1 / 0)
    (route.folder / FAILED_MARK).unlink()
    route.prepare()  # an error making it is recorded, never raised into the candidate's build
    assert "ZeroDivisionError" in (route.folder / FAILED_MARK).read_text()


def test_the_default_headers_are_made_at_once_for_the_flags_candidates_use(tmp_path, monkeypatch):
    made = []

    def compile_(route: HeaderRoute) -> None:
        made.append(route.folder)
        (route.folder / PCH_FILE).parent.mkdir(parents=True, exist_ok=True)
        (route.folder / PCH_FILE).write_text("gch")

    monkeypatch.setattr(HeaderRoute, "_compile", compile_)
    ready = prepare_torch_headers(tmp_path)
    cpp = header_route(
        tmp_path, {"cpp_sources": "torch::Tensor f(torch::Tensor x) { return x; }", "functions": ["f"]}
    )
    assert (
        ready["cpp"] and made.count(cpp.folder) == 1
    )  # no first sighting needed, and the candidates' folder
    assert not (cpp.folder / SEEN_MARK).exists()
    cuda = header_route(tmp_path, {"cpp_sources": "", "cuda_sources": "__global__ void k() {}"})
    assert ready["cuda"] == (cuda is not None)  # no CUDA toolkit for torch here: no CUDA route either
    prepare_torch_headers(tmp_path)
    assert len(made) == len(set(made))  # made once


@pytest.mark.slow
def test_a_warm_verifier_builds_its_first_candidate_from_the_header(task, cfg, cpp_candidate):
    with Verifier(VerifierConfig(eval=cfg, build_workers=1)) as v:
        startup = v.warm()
        route = header_route(cfg.cache_dir / "builds", {"cpp_sources": "", "functions": ["apply"]})
        assert (route.folder / PCH_FILE).exists() and startup["headers_s"] > 0
        code = cpp_candidate("solbench_warm_first").replace(", extra_cflags=['-O0']", "")  # default flags
        assert v.submit(task, code).result().status is Status.PASS
    folder = folder_of(cfg.cache_dir / "builds", "solbench_warm_first")
    assert first_include(folder) == f"! {route.folder / PCH_FILE}"  # the first build already read the .gch


@pytest.mark.parametrize("cores", [1, 2, 3, 7, 15, 16, 63])
def test_build_jobs_never_oversubscribe_the_build_cores(cores):
    default = VerifierConfig(build_cores=cores)
    assert default.builds_at_once * default.build_jobs == cores  # every core busy, none twice
    for workers in range(1, cores + 1):
        config = VerifierConfig(build_cores=cores, build_workers=workers)
        assert 1 <= config.build_jobs <= MAX_BUILD_JOBS
        assert workers * config.build_jobs <= cores
        idle = cores - workers * config.build_jobs
        assert config.build_jobs == MAX_BUILD_JOBS or idle < workers  # one more job each would oversubscribe
    assert VerifierConfig(build_cores=cores, build_workers=cores + 3).build_jobs == 1


def test_build_cores_follow_the_affinity(monkeypatch):
    monkeypatch.setattr(verifier.os, "sched_getaffinity", lambda pid: set(range(8)))
    assert default_build_cores() == 7 and VerifierConfig().builds_at_once == 7
    monkeypatch.setattr(verifier.os, "sched_getaffinity", lambda pid: {3})
    assert default_build_cores() == 1


def test_the_pool_tells_each_build_its_jobs(task, cfg, monkeypatch, cpp_candidate):
    seen: list[dict | None] = []

    def recording(code, config, env=None):
        seen.append(env)
        return BuildOutcome(False, "build failed: recorded", final=True)

    monkeypatch.setattr(verifier, "build", recording)
    with Verifier(VerifierConfig(eval=cfg, build_cores=6, build_workers=3)) as pool:
        v = pool.submit(task, cpp_candidate("solbench_jobs_probe")).result()
    assert v.status is Status.COMPILE_ERROR and seen == [{"MAX_JOBS": "2"}]


def test_builds_target_the_gpu_alone(monkeypatch):
    monkeypatch.setattr(harness, "cuda_arch_list", lambda: "9.0")
    monkeypatch.setenv("TORCH_CUDA_ARCH_LIST", "7.0 8.0 8.6 9.0+PTX")  # as some images set it
    env = child_env(EvalConfig(device="cuda"))
    assert env["TORCH_CUDA_ARCH_LIST"] == "9.0" and env[PCH_ENV] == "1"
    assert harness.build_env(EvalConfig(device="cuda"))["TORCH_CUDA_ARCH_LIST"] == "9.0"
    assert "TORCH_CUDA_ARCH_LIST" not in child_env(EvalConfig(device="cpu"))
    assert child_env(EvalConfig(precompiled_header=False))[PCH_ENV] == "0"


KERNEL = "__global__ void k(float* y) { y[0] = 1.0f; }\ntorch::Tensor f(torch::Tensor x) { return x; }\n"


def test_the_lighter_cuda_header_replaces_only_the_cus_own_torch_extension_include():
    cu = "#include <torch/extension.h>\n#include <ATen/cuda/CUDAContext.h>\n" + KERNEL
    assert (
        lighter_cuda_sources(cu) == "#include <torch/types.h>\n#include <ATen/cuda/CUDAContext.h>\n" + KERNEL
    )
    assert lighter_cuda_sources(["// kernels", '  #  include "torch/extension.h"']) == [
        "// kernels",
        "#include <torch/types.h>",
    ]
    assert lighter_cuda_sources(KERNEL) is None  # nothing to lighten
    for needs_more in ("PYBIND11_MODULE(m, x) {}", "namespace py = pybind11;", "torch::nn::Linear l(1, 1);"):
        assert lighter_cuda_sources(f"#include <torch/extension.h>\n{needs_more}\n") is None
    assert lighter_cuda_sources(None) is None and lighter_cuda_sources([1]) is None


@pytest.fixture
def recorded_builds(tmp_path, monkeypatch):
    """load_inline routed over a stand-in for torch's, which records the .cu of each build and fails
    where the .cu holds FAIL_LIGHT and no torch/extension.h (a kernel that needs the full header)."""
    seen: list[str] = []
    named: dict[str, object] = {}
    monkeypatch.setattr(cpp_extension.JIT_EXTENSION_VERSIONER, "entries", {})

    def fake_load_inline(
        name,
        cpp_sources,
        cuda_sources=None,
        functions=None,
        extra_cflags=None,
        extra_include_paths=None,
        build_directory=None,
        verbose=False,
        with_cuda=None,
    ):
        seen.append(cuda_sources)
        versions = cpp_extension.JIT_EXTENSION_VERSIONER.entries
        named[name] = versions.get(name)  # what torch knew of the name when this build began
        versions[name] = ("built from", cuda_sources)  # torch records every build of a name
        if "FAIL_LIGHT" in cuda_sources and "torch/extension.h" not in cuda_sources:
            raise RuntimeError("Error building extension: 'torch::something' was not declared")
        return f"module built from {cuda_sources!r}"

    monkeypatch.setattr(cpp_extension, "load_inline", fake_load_inline)
    monkeypatch.setenv(PCH_ENV, "0")
    route_builds(tmp_path)
    return tmp_path, seen, named


@pytest.fixture
def tiered_builds(tmp_path, monkeypatch):
    """load_inline routed over a stand-in for a torch with `no_implicit_headers`, which records the .cu
    of each build and fails as the .cu says: `MISSING_NAME` without torch/types.h or torch/extension.h
    (a name only the fuller headers declare), `OWN_ERROR` always (an error in the candidate's code)."""
    seen: list[str] = []
    monkeypatch.setattr(cpp_extension.JIT_EXTENSION_VERSIONER, "entries", {})

    def fake_load_inline(
        name, cpp_sources, cuda_sources=None, functions=None, no_implicit_headers=False, **kw
    ):
        cu = "\n".join(cuda_sources) if isinstance(cuda_sources, list) else cuda_sources
        seen.append(cu)
        if "MISSING_NAME" in cu and not re.search(r"torch/(types|extension)\.h", cu):
            raise RuntimeError('Error building extension: namespace "torch" has no member "from_blob"')
        if "OWN_ERROR" in cu:
            raise RuntimeError('Error building extension: expected a ";"')
        if "UNKNOWN_CALL" in cu:  # a function no header declares, whatever the headers
            raise RuntimeError(
                'Error building extension: identifier "solbench_no_such_function" is undefined'
            )
        return f"module built from {cu!r}"

    monkeypatch.setattr(cpp_extension, "load_inline", fake_load_inline)
    monkeypatch.setenv(PCH_ENV, "0")
    route_builds(tmp_path)
    return tmp_path, seen


def test_the_lightest_cu_names_the_op_headers_it_calls_and_keeps_main_cpp_as_torch_writes_it():
    cu = (
        "#include <torch/extension.h>\n"
        + KERNEL
        + "torch::Tensor g(torch::Tensor x) { return torch::empty_like(x); }\n"
    )
    call = lightest_cuda_call({"cpp_sources": "torch::Tensor f(torch::Tensor x);", "cuda_sources": cu})
    preamble, body = call["cuda_sources"]
    includes = [line for line in preamble.splitlines() if line.startswith("#include")]
    assert includes[0] == "#include <ATen/core/Tensor.h>" and "#include <ATen/ops/empty_like.h>" in includes
    assert not any(name in preamble for name in ("ops/g.h", "ops/k.h", "torch/types.h", "ATen/ATen.h"))
    assert "using namespace at;" in preamble and "kFloat32" in preamble  # torch/types.h's own block
    assert body == "\n" + KERNEL + "torch::Tensor g(torch::Tensor x) { return torch::empty_like(x); }\n"
    assert call["cpp_sources"] == ["#include <torch/extension.h>", "torch::Tensor f(torch::Tensor x);"]
    assert call["no_implicit_headers"] is True
    for needs_all in ("#include <ATen/ATen.h>", "#include <torch/torch.h>", "namespace py = pybind11;"):
        assert lightest_cuda_call({"cpp_sources": "", "cuda_sources": f"{needs_all}\n{KERNEL}"}) is None
    assert (
        lightest_cuda_call({"cpp_sources": "", "cuda_sources": KERNEL, "no_implicit_headers": True}) is None
    )
    assert lightest_cuda_call({"cpp_sources": "x", "cuda_sources": None}) is None


def test_the_lightest_headers_declare_what_a_launcher_uses(tmp_path):
    """The preamble, as C++ (gcc parses the host side of a .cu alike): tensors, their methods, torch::
    factories and dtypes, the dispatch macros, TORCH_CHECK."""
    launcher = """
torch::Tensor f(torch::Tensor x) {
    TORCH_CHECK(x.dim() == 2, "x must be 2-D");
    auto y = torch::empty_like(x.contiguous());
    auto z = torch::zeros({x.size(0)}, x.options().dtype(torch::kFloat32));
    AT_DISPATCH_FLOATING_TYPES(x.scalar_type(), "f", [&] { (void)y.data_ptr<scalar_t>(); });
    return z;
}
"""
    call = lightest_cuda_call(
        {"cpp_sources": "", "cuda_sources": "#include <torch/extension.h>\n" + launcher}
    )
    preamble = (
        call["cuda_sources"][0].replace("#include <cuda.h>", "").replace("#include <cuda_runtime.h>", "")
    )
    source = tmp_path / "launcher.cpp"
    source.write_text(preamble + "\n" + call["cuda_sources"][1])
    includes = [f"-I{TORCH_INCLUDE}", f"-I{TORCH_INCLUDE / 'torch' / 'csrc' / 'api' / 'include'}"]
    done = subprocess.run(
        ["g++", "-std=c++17", "-fsyntax-only", *includes, str(source)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "#include <ATen/ops/zeros.h>" in preamble


def test_the_lightest_cu_that_builds_is_the_build(tiered_builds):
    builds, seen = tiered_builds
    cu = "#include <torch/extension.h>\n" + KERNEL
    module = cpp_extension.load_inline("ext", "", cuda_sources=cu, functions=["f"])
    assert len(seen) == 1 and "ATen/core/Tensor.h" in seen[0] and "torch/types.h" not in seen[0]
    assert "ATen/core/Tensor.h" in module


def test_a_lightest_cu_missing_a_name_tries_torch_types_then_as_written(tiered_builds):
    builds, seen = tiered_builds
    cu = "#include <torch/extension.h>\n// MISSING_NAME\n" + KERNEL
    module = cpp_extension.load_inline("ext", "", cuda_sources=cu, functions=["f"])
    assert "ATen/core/Tensor.h" in seen[0] and seen[1:] == [lighter_cuda_sources(cu)]
    assert "torch/types.h" in module
    failing = "#include <torch/extension.h>\n// OWN_ERROR\n" + KERNEL
    with pytest.raises(RuntimeError, match="expected a"):
        cpp_extension.load_inline("ext2", "", cuda_sources=failing, functions=["f"])
    assert "ATen/core/Tensor.h" in seen[2] and seen[3:] == [failing]  # torch/types.h would not mend it
    assert len([d for d in builds.iterdir() if (d / LIGHT_FAILED_MARK).exists()]) == 2


def test_a_name_torch_never_spells_goes_from_the_lightest_cu_to_the_source_as_written(tiered_builds):
    """On the H200 mix b's compile errors (a call of an undeclared function) built three times,
    54-73 s: torch/types.h cannot declare a name that no torch header spells."""
    _, seen = tiered_builds
    failing = "#include <torch/extension.h>\n// UNKNOWN_CALL\n" + KERNEL
    with pytest.raises(RuntimeError, match="is undefined"):
        cpp_extension.load_inline("ext3", "", cuda_sources=failing, functions=["f"])
    assert "ATen/core/Tensor.h" in seen[0] and seen[1:] == [failing]


def test_undeclared_names_are_looked_up_in_torchs_headers():
    assert undeclared_in_torch('cuda.cu(9): error: identifier "solbench_no_such_function" is undefined')
    assert undeclared_in_torch("x.cpp:3:5: error: ‘solbench_nothing’ was not declared in this scope")
    assert not undeclared_in_torch('error: namespace "torch" has no member "from_blob"')  # torch spells it
    assert not undeclared_in_torch(  # one of two names is torch's: a fuller header may declare it
        'identifier "solbench_nothing" is undefined\nidentifier "empty_like" is undefined'
    )
    assert not undeclared_in_torch("error: no instance of overloaded function")  # no name to look up


def test_a_lighter_cu_that_builds_is_the_build(recorded_builds):
    builds, seen, _ = recorded_builds
    cu = "#include <torch/extension.h>\n" + KERNEL
    module = cpp_extension.load_inline("ext", "", cuda_sources=cu, functions=["f"])
    assert seen == [lighter_cuda_sources(cu)] and "torch/types.h" in module
    assert cpp_extension.load_inline("ext", "", cuda_sources=cu, functions=["f"]) == module  # loaded again


def test_a_lighter_cu_that_fails_is_built_as_written_and_not_tried_again(recorded_builds):
    builds, seen, named = recorded_builds
    cu = "#include <torch/extension.h>\n// FAIL_LIGHT\n" + KERNEL
    assert "torch/extension.h" in cpp_extension.load_inline("ext", "", cuda_sources=cu, functions=["f"])
    assert seen == [lighter_cuda_sources(cu), cu]
    assert named["ext"] is None  # torch had forgotten the failed build: no `ext_v1` here, `ext` elsewhere
    [marked] = [d for d in builds.iterdir() if (d / LIGHT_FAILED_MARK).exists()]
    assert "was not declared" in (marked / LIGHT_FAILED_MARK).read_text()
    cpp_extension.load_inline("ext", "", cuda_sources=cu, functions=["f"])
    assert seen == [lighter_cuda_sources(cu), cu, cu]  # the failed lighter build is not retried


def test_the_lighter_cuda_header_can_be_turned_off(recorded_builds, monkeypatch):
    _, seen, _ = recorded_builds
    monkeypatch.setenv(LIGHT_CU_ENV, "0")
    cu = "#include <torch/extension.h>\n" + KERNEL
    cpp_extension.load_inline("ext", "", cuda_sources=cu, functions=["f"])
    assert seen == [cu]
    assert child_env(EvalConfig(lighter_cuda_header=False))[LIGHT_CU_ENV] == "0"
    assert child_env(EvalConfig())[LIGHT_CU_ENV] == "1"
