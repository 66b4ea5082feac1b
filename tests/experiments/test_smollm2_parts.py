"""experiments/smollm2.py --pack/--stash/--unpack: the GGUF file reaches the GPU machine in parts, one call
each, and comes back byte for byte only when every part is there and intact."""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from experiments import smollm2


@pytest.fixture
def source(tmp_path) -> Path:
    """Random bytes (barely compressible, so every part is non-trivial) and a run of zeros (which is)."""
    path = tmp_path / "model.Q4_1.gguf"
    path.write_bytes(os.urandom(200_000) + b"\0" * 100_000 + os.urandom(50_001))
    return path


def spread(packed: Path, folders: list[Path]) -> None:
    """Move part i into folders[i % len(folders)]; the manifest stays in the first."""
    for folder in folders:
        folder.mkdir(parents=True, exist_ok=True)
    manifest = smollm2.Manifest.from_json((packed / smollm2.MANIFEST).read_text())
    for i, part in enumerate(manifest.parts):
        shutil.move(packed / part.name, folders[i % len(folders)] / part.name)
    shutil.move(packed / smollm2.MANIFEST, folders[0] / smollm2.MANIFEST)


@pytest.mark.parametrize("n", [2, 3])
def test_parts_spread_over_two_folders_unpack_to_the_same_bytes(tmp_path, source, n):
    manifest = smollm2.pack(source, tmp_path / "packed", parts=n)
    sizes = [p.size for p in manifest.parts]
    assert len(sizes) == n and max(sizes) - min(sizes) <= 1
    on_disk = json.loads((tmp_path / "packed" / smollm2.MANIFEST).read_text())
    assert on_disk["gguf_name"] == source.name and on_disk["gguf_size"] == source.stat().st_size
    assert [p["name"] for p in on_disk["parts"]] == [
        f"smollm2.gguf.xz.part-{i}-of-{n}" for i in range(1, n + 1)
    ]
    a, b = tmp_path / "a", tmp_path / "b"
    spread(tmp_path / "packed", [a, b])
    got = smollm2.unpack([a, b], tmp_path / "out")
    assert got.missing == () and got.path == tmp_path / "out" / source.name
    assert got.path.read_bytes() == source.read_bytes()


def test_a_missing_part_is_named_and_nothing_is_written(tmp_path, source):
    smollm2.pack(source, tmp_path / "packed", parts=3)
    (tmp_path / "packed" / smollm2.part_name(2, 3)).unlink()
    got = smollm2.unpack([tmp_path / "packed"], tmp_path / "out")
    assert got.path is None and got.have == (1, 3) and got.missing == (2,)
    assert got.message() == "have parts 1, 3 of 3; missing 2: carry them in the next call"
    assert not (tmp_path / "out").exists()


def test_the_cli_exits_3_on_missing_parts_and_2_on_a_corrupt_one(tmp_path, source, capsys):
    packed = tmp_path / "packed"
    assert smollm2.main(["--pack", str(packed), "--source", str(source)]) == 0
    part2 = packed / smollm2.part_name(2, 2)
    aside = part2.rename(tmp_path / part2.name)
    assert smollm2.main(["--unpack", str(packed), "--to", str(tmp_path / "out")]) == 3
    assert "have parts 1 of 2; missing 2: carry them in the next call" in capsys.readouterr().err
    aside.rename(part2)
    data = bytearray(part2.read_bytes())
    data[len(data) // 2] ^= 0xFF
    part2.write_bytes(data)
    assert smollm2.main(["--unpack", str(packed), "--to", str(tmp_path / "out")]) == 2
    assert part2.name in capsys.readouterr().err


def test_a_corrupted_part_is_refused_naming_it(tmp_path, source):
    smollm2.pack(source, tmp_path / "packed", parts=2)
    part = tmp_path / "packed" / smollm2.part_name(1, 2)
    data = bytearray(part.read_bytes())
    data[100] ^= 0x01  # same size, one bit off
    part.write_bytes(data)
    with pytest.raises(smollm2.PartsError, match=r"part 1 of 2 .*part-1-of-2"):
        smollm2.unpack([tmp_path / "packed"], tmp_path / "out")
    assert not (tmp_path / "out" / source.name).exists()


def test_two_stashes_then_unpack_from_the_stash_alone(tmp_path, source):
    """Call 1 carries part 1 and the wheel, call 2 part 2: the stash then holds everything."""
    packed = tmp_path / "packed"
    smollm2.pack(source, packed, parts=2)
    (packed / "gguf-0.19.0-py3-none-any.whl").write_bytes(b"wheel")
    call1, call2, kept = tmp_path / "call1", tmp_path / "call2", tmp_path / "stash"
    call1.mkdir()
    call2.mkdir()
    for name in (smollm2.MANIFEST, smollm2.part_name(1, 2), "gguf-0.19.0-py3-none-any.whl"):
        shutil.copy(packed / name, call1 / name)
    for name in (smollm2.MANIFEST, smollm2.part_name(2, 2)):
        shutil.copy(packed / name, call2 / name)
    assert len(smollm2.stash(call1, kept)) == 3
    assert smollm2.stash(call1, kept) == []  # idempotent: nothing new
    assert smollm2.unpack([call1, kept], tmp_path / "out").missing == (2,)
    assert [p.name for p in smollm2.stash(call2, kept)] == [smollm2.part_name(2, 2)]
    got = smollm2.unpack([kept], tmp_path / "out" / "model.gguf")
    assert got.path == tmp_path / "out" / "model.gguf" and got.path.read_bytes() == source.read_bytes()
    assert (kept / "gguf-0.19.0-py3-none-any.whl").read_bytes() == b"wheel"


def test_unpacking_again_leaves_the_file_untouched(tmp_path, source):
    """The file's mtime is part of the completion cache's key: a second unpack must not rewrite it."""
    smollm2.pack(source, tmp_path / "packed", parts=2)
    first = smollm2.unpack([tmp_path / "packed"], tmp_path / "out").path
    os.utime(first, ns=(1_000_000_000, 1_000_000_000))
    again = smollm2.unpack([tmp_path / "packed"], tmp_path / "out").path
    assert again == first and again.stat().st_mtime_ns == 1_000_000_000


def test_a_new_pack_replaces_the_stashed_parts_of_the_old_one(tmp_path, source):
    smollm2.pack(source, tmp_path / "old", parts=2)
    smollm2.stash(tmp_path / "old", tmp_path / "stash")
    source.write_bytes(os.urandom(1000))
    smollm2.pack(source, tmp_path / "new", parts=2)
    (tmp_path / "new" / smollm2.part_name(2, 2)).unlink()  # this call carries part 1 only
    smollm2.stash(tmp_path / "new", tmp_path / "stash")
    got = smollm2.unpack([tmp_path / "stash"], tmp_path / "out")
    assert got.have == (1,) and got.missing == (2,)  # the old part 2 is gone, not reported as corrupt


def test_a_truncated_stream_is_refused_even_when_the_manifest_agrees(tmp_path, source):
    """The manifest was rewritten to match a cut part: decompression still notices the stream ends early."""
    packed = tmp_path / "packed"
    manifest = smollm2.pack(source, packed, parts=1)
    part = packed / manifest.parts[0].name
    part.write_bytes(part.read_bytes()[:-100])
    cut = smollm2.Part(part.name, part.stat().st_size, smollm2._sha256(part))
    stream = smollm2._sha256(part)
    (packed / smollm2.MANIFEST).write_text(replace(manifest, parts=(cut,), stream_sha256=stream).to_json())
    with pytest.raises(smollm2.PartsError, match="end before the compressed stream"):
        smollm2.unpack([packed], tmp_path / "out")
    assert list((tmp_path / "out").iterdir()) == []  # no half-written file left behind
