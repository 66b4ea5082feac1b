"""--sft-cache: every attempt of the SFT gate kept with its before-RL evaluation, under a hash of
everything that determines them (`sft_key_material`) and its training seed, so calls on one machine
with the same settings never train a seed twice, and a call cut short leaves its attempts to the next.
An entry is written whole or not at all, and one that is partial, corrupt or of other settings is
trained afresh and replaced."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import shutil
import tempfile
import uuid
from datetime import UTC, datetime
from pathlib import Path

from experiments.rl_demo.records import CacheUse, SFTAttempt, SFTRun
from experiments.rl_demo.state import SFT_POOLED_SETTINGS, Run

log = logging.getLogger(__name__)

SFT_CACHE_VERSION = 3  # bump when train_sft or evaluate change what an entry holds: older entries then miss
ENTRY_FILE = "entry.json"
MODEL_FOLDER = "model"
ENTRY_FIELDS = ("created", "material", "run", "before", "eval_s", "wall_s")


def digest(text: str) -> str:
    """The SHA-256 of a text, in hex."""
    return hashlib.sha256(text.encode()).hexdigest()


def tokenizer_digest(tokenizer) -> str:
    """The tokenizer's vocabulary, merges, special tokens and chat template, hashed: `cli.main` trains it
    on the corpus, and an entry is reused only with the tokenizer its model was trained with. Its
    padding and truncation state is left out: batching sets it (`generate` pads on the left)."""
    backend = json.loads(tokenizer.backend_tokenizer.to_str())
    backend.pop("padding", None)
    backend.pop("truncation", None)
    return digest(
        json.dumps(
            [backend, tokenizer.chat_template, tokenizer.eos_token, tokenizer.pad_token], sort_keys=True
        )
    )


def sft_key_material(run: Run) -> dict:
    """Everything but the training seed that determines an attempt's model and its before-RL
    evaluation, which the cache key hashes (`SFTCache.material`): the SFT_POOLED_SETTINGS and digests
    of the corpus, the tokenizer and the evaluated tasks and prompts, so that a change to the task
    family or the prompt template misses the cache even where the settings are the same. Code changes
    to training or evaluation bump SFT_CACHE_VERSION."""
    evaluated = sorted(
        [task.task_id, spec.task_source(), list(run.builder.first_turn(task))]
        for task, spec in run.tasks.values()
        if not task.task_id.startswith("sft/")
    )
    material = {
        "version": SFT_CACHE_VERSION,
        "settings": {k: getattr(run.settings, k) for k in SFT_POOLED_SETTINGS},
        "corpus": digest(json.dumps(run.corpus, sort_keys=True)),
        "tokenizer": tokenizer_digest(run.tokenizer),
        "tasks": digest(json.dumps(evaluated)),
    }
    return json.loads(json.dumps(material))  # as an entry's JSON reads back


def sft_cache_key(material: dict) -> str:
    """An entry's folder name: the material's hash, cut to 16 hex digits."""
    return digest(json.dumps(material, sort_keys=True))[:16]


class UnusableEntry(Exception):
    """What makes a cache entry unusable (it is then trained afresh and replaced)."""


def read_sft_entry(folder: Path, material: dict, number: int, seed: int) -> SFTAttempt:
    """The attempt stored in folder, as attempt `number` of this call; raises UnusableEntry (or
    whatever loading its model raised) where the entry is partial, corrupt or of other settings."""
    from transformers import AutoModelForCausalLM, PreTrainedTokenizerFast

    path = folder / ENTRY_FILE
    if not path.is_file():
        raise UnusableEntry(f"no {ENTRY_FILE}")
    entry = json.loads(path.read_text())
    missing = [k for k in ENTRY_FIELDS if k not in entry]
    if missing:
        raise UnusableEntry(f"{ENTRY_FILE} lacks {', '.join(missing)}")
    if entry["material"] != material:
        changed = sorted(
            k
            for k in material.keys() | entry["material"].keys()
            if entry["material"].get(k) != material.get(k)
        )
        raise UnusableEntry(f"made with other {', '.join(changed)} than this run's")
    if sorted(entry["before"]) != ["rl", "test"]:
        raise UnusableEntry(f"its before-RL evaluation covers {sorted(entry['before'])}, not rl and test")
    model_dir = folder / MODEL_FOLDER
    AutoModelForCausalLM.from_pretrained(model_dir)  # raises where the model files are missing or damaged
    # the class `build_tokenizer` makes: AutoTokenizer reads the model's config and gives Qwen2's
    # pre-tokenizer instead of the one trained here
    if tokenizer_digest(PreTrainedTokenizerFast.from_pretrained(model_dir)) != material["tokenizer"]:
        raise UnusableEntry("its saved tokenizer is not this run's")
    cache = CacheUse(folder.name, str(folder), reused=True, created=entry["created"])
    run = SFTRun(model_dir=model_dir, **entry["run"])
    return SFTAttempt(
        number, seed, run, entry["before"], entry["eval_s"], entry["wall_s"], cache, gpu=entry.get("gpu")
    )


def write_sft_entry(folder: Path, material: dict, attempt: SFTAttempt) -> str:
    """Store the attempt as folder, atomically: built in a temporary folder beside it, then renamed, so
    a call killed half-way leaves no entry (a leftover dot-folder is never read); an unusable entry
    already there is replaced. Returns the entry's creation time (ISO, UTC)."""
    cache, key = folder.parent, folder.name
    cache.mkdir(parents=True, exist_ok=True)
    created = datetime.now(UTC).isoformat(timespec="seconds")
    tmp = Path(tempfile.mkdtemp(prefix=f".{key}.", suffix=".tmp", dir=cache))
    try:
        shutil.copytree(attempt.run.model_dir, tmp / MODEL_FOLDER)
        entry = {
            "key": key,
            "created": created,
            "material": material,
            "run": attempt.run.summary(),
            "before": attempt.before,
            "eval_s": attempt.eval_s,
            "wall_s": attempt.wall_s,
            "gpu": attempt.gpu,
        }
        (tmp / ENTRY_FILE).write_text(json.dumps(entry, indent=2, default=str))
        if folder.exists():
            stale = cache / f".{key}.{uuid.uuid4().hex}.stale"
            folder.rename(stale)
            tmp.rename(folder)
            shutil.rmtree(stale, ignore_errors=True)
        else:
            tmp.rename(folder)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)  # already gone where the rename succeeded
    return created


@dataclasses.dataclass(frozen=True)
class SFTCache:
    """--sft-cache: one entry per gate attempt, under a hash of everything that determines its model
    and before-RL evaluation (`material`) and its training seed, so calls on one machine with the same
    settings never train a seed twice, whichever seeds each tries and wherever an earlier one stopped."""

    root: Path
    material: dict  # `sft_key_material`: all but the seed

    def folder(self, seed: int) -> tuple[Path, dict]:
        material = {**self.material, "seed": seed}
        return self.root / sft_cache_key(material), material

    def load(self, number: int, seed: int) -> SFTAttempt | None:
        """The stored attempt of this seed, or None where there is none or (with a warning) an
        unusable one."""
        folder, material = self.folder(seed)
        if not folder.exists():
            return None
        try:
            attempt = read_sft_entry(folder, material, number, seed)
        except Exception as e:  # noqa: BLE001 - whatever is wrong with an entry, it is trained afresh
            log.warning("SFT cache entry %s ignored, training afresh: %s: %s", folder, type(e).__name__, e)
            return None
        log.info("SFT attempt %d (training seed %d) from the cache entry %s", number, seed, folder)
        return attempt

    def store(self, attempt: SFTAttempt) -> SFTAttempt:
        """The attempt, written to the cache, with its cache use (why not, where writing failed)."""
        folder, material = self.folder(attempt.seed)
        try:
            use = CacheUse(folder.name, str(folder), False, write_sft_entry(folder, material, attempt))
        except OSError as e:
            log.warning("SFT attempt %d not cached in %s: %s", attempt.number, folder, e)
            use = CacheUse(
                folder.name, str(folder), False, None, f"writing it failed: {type(e).__name__}: {e}"
            )
        return dataclasses.replace(attempt, cache=use)
