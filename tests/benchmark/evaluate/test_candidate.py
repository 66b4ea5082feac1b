"""benchmark.evaluate.candidate: why a candidate gave no ModelNew is a kind, and only an import failure is
left for the execution child to judge."""

from __future__ import annotations

import pytest
import torch.utils.cpp_extension as cpp_extension

from benchmark.evaluate.candidate import CandidateLoadError, LoadErrorKind, load_candidate


@pytest.mark.parametrize(
    ("source", "kind"),
    [
        ("class ModelNew(:\n", LoadErrorKind.SYNTAX),
        ("import torch\n", LoadErrorKind.NO_MODEL),
        ("ModelNew = 3\n", LoadErrorKind.NO_MODEL),
        ("raise RuntimeError('needs a GPU')\n", LoadErrorKind.IMPORT),
    ],
)
def test_a_load_failure_says_its_kind(tmp_path, monkeypatch, source, kind):
    # load_candidate reroutes load_inline and the extensions folder: undone after the test.
    monkeypatch.setattr(cpp_extension, "load_inline", cpp_extension.load_inline)
    monkeypatch.setenv("TORCH_EXTENSIONS_DIR", str(tmp_path / "builds"))
    path = tmp_path / "candidate.py"
    path.write_text(source)
    with pytest.raises(CandidateLoadError) as e:
        load_candidate(path, tmp_path / "builds")
    assert e.value.kind is kind
    assert e.value.kind.final == (kind is not LoadErrorKind.IMPORT)
