"""Stage 1 on small inputs: generated task files load, run on their alternate shapes, pass the suite
validator (fast mode), are reproducible from their seed, and keep their parameters off the free sizes."""

from __future__ import annotations

import pytest
import torch

from benchmark.evaluate.program import TaskProgram
from benchmark.suite.validate import ValidationConfig, validate_task
from benchmark.task import load_task
from datasets_builder import ops, synth_blocks, synth_compose, synth_variants
from datasets_builder.chain import ROWS, ChainBuilder, ShapeError
from datasets_builder.importer import ImportConfig, import_folder
from datasets_builder.sizing import Cost, SizeConfig, solve_rows
from datasets_builder.task_source import InputSpec, TaskSpec, render


def write(tmp_path, spec) -> object:
    path = tmp_path / f"level{spec.level}" / f"{spec.name}.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render(spec))
    return load_task(path, root=tmp_path)


def specs(tiny, n=3, seed=5):
    return (
        synth_variants.generate(synth_variants.VariantConfig(count=n, seed=seed), tiny)
        + synth_compose.generate(synth_compose.ComposeConfig(count=n, seed=seed), tiny)
        + synth_blocks.generate(
            synth_blocks.BlockConfig(count=4, seed=seed, seq_lens=(8,), head_dims=(4,)), tiny
        )
    )


def test_generated_tasks_load_run_and_validate(tmp_path, tiny):
    generated = specs(tiny)
    assert {s.level for s in generated} == {1, 2, 3}
    failures = []
    for spec in generated:
        task = write(tmp_path, spec)
        assert task.level == spec.level and task.dtype == spec.dtype and "synthetic" in task.tags
        module = task.load_module()
        program = TaskProgram(module, torch.device("cpu"))
        assert program.n_alt() == len(spec.alt) == 2
        for alt in range(program.n_alt()):
            model = program.build(module.Model, 0)
            with torch.no_grad():
                model(*program.inputs(0, alt))
        report = validate_task(
            task, ValidationConfig(device="cpu", fast=True, measure=False, task_timeout_s=60)
        )
        if not report.ok:
            failures.append((task.task_id, report.failures))
    # generators avoid the degenerate cases they can foresee; the validator is the judge of the rest
    assert len(failures) <= len(generated) // 4, failures


def test_generation_is_reproducible_and_seeded(tiny):
    a = [render(s) for s in specs(tiny, seed=1)]
    b = [render(s) for s in specs(tiny, seed=1)]
    c = [render(s) for s in specs(tiny, seed=2)]
    assert a == b and a != c
    names = [s.name for s in specs(tiny, n=20, seed=1)]
    assert len(set(names)) == len(names)


def test_variant_grid_crosses_families_dtypes_layouts():
    grid = synth_variants.grid(synth_variants.VariantConfig(families=("activation", "scan")))
    assert {c[2] for c in grid} == {"float32", "bfloat16", "float16"}
    assert {c[3] for c in grid} == {"contiguous", "transposed"}
    assert all(c[2] == "float32" for c in grid if c[0] == "cumsum")  # scans stay fp32
    with pytest.raises(ValueError, match="unknown operator family"):
        synth_variants.VariantConfig(families=("nope",))


def test_variant_cells_drawn_at_several_shapes(tiny):
    one = synth_variants.VariantConfig(count=10_000, families=("normalization",), seed=3)
    two = synth_variants.VariantConfig(count=10_000, families=("normalization",), seed=3, shapes=2)
    first, both = synth_variants.generate(one, tiny), synth_variants.generate(two, tiny)
    assert len(both) == 2 * len(first) == 2 * len(synth_variants.grid(one))
    by_name = {s.name: render(s) for s in both}
    assert len(by_name) == len(both)
    assert all(by_name[s.name] == render(s) for s in first)  # a second draw leaves the first as it was
    sizes = {(tuple(s.generator["cell"]), tuple(s.dims.items())) for s in both}
    assert len(sizes) > len(first)  # second draws at other sizes
    assert {s.generator["draw"] for s in both} == {0, 1}
    with pytest.raises(ValueError, match="shapes"):
        synth_variants.VariantConfig(shapes=0)


def test_transposed_layout_and_free_sizes(tmp_path, tiny):
    cells = [
        c
        for c in synth_variants.grid(synth_variants.VariantConfig(families=("normalization",)))
        if c[0] == "rms_norm" and c[3] == "transposed" and c[1] == 2
    ]
    spec = synth_variants.variant_one(cells[0], synth_variants.VariantConfig(), tiny)
    assert "D" not in spec.free and "D" in spec.init_dims  # the parameter fixes the width
    module = write(tmp_path, spec).load_module()
    x = module.get_inputs()[0]
    assert not x.is_contiguous() and x.transpose(-1, -2).is_contiguous()


def test_chain_shape_inference():
    rng = __import__("random").Random(0)
    b = ChainBuilder("float32", {"D": 8, "H": 4}, rng)
    b.add_input((ROWS, "D"))
    b.linear(ops.op("linear"), "H")
    assert b.value_dims(b.current) == (ROWS, "H")
    b.reduce(ops.op("sum"), axis=-1, keepdim=False)
    assert b.value_dims(b.current) == (ROWS,)
    with pytest.raises(ShapeError):
        b.reduce(ops.op("amax"), axis=-1, keepdim=False)
    with pytest.raises(ShapeError, match="row count"):
        b.binary(ops.op("add"), "param")


def test_sizing_hits_the_target_within_bounds():
    cfg = SizeConfig(target_ms=1.0, max_bytes=10**9, row_multiple=16)
    rows = solve_rows(Cost(per_row_s=1e-9, fixed_s=0.0, bytes_per_row=100.0, fixed_bytes=0.0), cfg)
    assert rows == 1_000_000 // 16 * 16
    capped = solve_rows(Cost(per_row_s=1e-12, fixed_s=0.0, bytes_per_row=10_000.0, fixed_bytes=0.0), cfg)
    assert capped * 10_000 <= cfg.max_bytes


def test_spec_validation():
    with pytest.raises(ValueError, match="dtype"):
        TaskSpec("x", "f", 1, "int8", "d", {"N": 4}, ("N",), (), (InputSpec("x", ("N",)),), ("return x",))
    with pytest.raises(ValueError, match="alternate set"):
        TaskSpec(
            "x", "f", 1, "float32", "d", {"N": 4}, ("N",), ({},), (InputSpec("x", ("N",)),), ("return x",)
        )


def test_import_external_folder(tmp_path, tiny):
    ext = tmp_path / "ext" / "level2"
    ext.mkdir(parents=True)
    spec = synth_compose.compose_one(0, synth_compose.ComposeConfig(seed=3), tiny)
    (ext / "my_task.py").write_text(render(spec))
    (ext / "broken.py").write_text("this is not python(")
    (tmp_path / "ext" / "LICENSE").write_text("SPDX-License-Identifier: MIT\n")
    source = ImportConfig(str(tmp_path / "ext"), prefix="kb", url="https://example.org/kb", revision="v1")
    result = import_folder(source)
    assert [t.name for t in result.tasks] == ["kb_level2_my_task"] and result.tasks[0].level == 2
    assert len(result.errors) == 1 and "broken.py" in result.errors[0]
    assert result.record.license == "MIT" and result.record.tasks == 1
    with pytest.raises(FileNotFoundError):
        import_folder(ImportConfig(str(tmp_path / "missing")))
