"""The licence policy of imported task sources, in one place: which licences let a task join a
published dataset, and which clauses keep it out.

Imported task files are republished in the dataset (configuration `tasks`, and inside every row's
prompt), and models are trained on them. So a source joins only if its licence lets anyone
redistribute the files and puts no condition on what is trained on them:

- ALLOWED: permissive licences (redistribution with attribution; nothing passes to a trained model);
- DENIED: licences with a clause that forbids this, named in the error (non-commercial, no
  derivatives, share-alike or copyleft terms the dataset's own licence cannot carry, use
  restrictions that pass on to trained models, no grant at all);
- CLAUSES: phrases looked for in the source's licence file whatever its declared licence, so a
  repository that added, say, a reciprocity clause for anyone who trains on it is refused even when
  its declared identifier is still a permissive one;
- anything else (an unlisted licence, or none found) is refused unless the build config names a
  person's review that allows it (`allow_unlisted_license`), which the card then shows.

Identifiers are SPDX ids, compared case-insensitively; "A OR B" is accepted when one alternative is."""

from __future__ import annotations

import re
from dataclasses import dataclass

ALLOWED = frozenset(
    s.lower()
    for s in (
        "MIT",
        "MIT-0",
        "Apache-2.0",
        "BSD-2-Clause",
        "BSD-3-Clause",
        "0BSD",
        "ISC",
        "Zlib",
        "BSL-1.0",
        "PSF-2.0",
        "Unlicense",
        "CC0-1.0",
        "CC-BY-4.0",
    )
)
# how an identifier starts -> the clause that keeps a source with that licence out
DENIED = {
    "cc-by-nc": "non-commercial: the tasks may not be used commercially",
    "cc-by-nd": "no derivatives: the tasks may not be modified or built upon",
    "cc-by-sa": "share-alike: the dataset would have to carry the source's licence",
    "gpl": "copyleft: the dataset (and what is built from it) would have to carry the GPL",
    "agpl": "copyleft: the dataset (and what is built from it) would have to carry the AGPL",
    "lgpl": "copyleft: redistributed copies would have to carry the LGPL",
    "openrail": "use restrictions that pass on to models trained on the tasks",
    "llama": "conditions that pass on to models trained on the tasks",
    "proprietary": "no redistribution: the tasks may not be republished",
    "none": "no licence: nobody may redistribute the tasks",
    "noassertion": "no licence: nobody may redistribute the tasks",
}
# clause -> phrases of a licence text that state it (case-insensitive unless marked, within one
# sentence). Checked on every licence file, so that a clause added to a permissive licence is caught;
# a licence that simply grants no redistribution is caught by its identifier (DENIED, or unlisted).
CLAUSES = {
    "reciprocity for anyone who trains on it (a condition on trained models)": (
        r"\b(train|trains|trained|training|fine-?tun\w*)\b[^.;]*\b(model|models|weights)\b[^.;]*"
        r"\b(must|shall|is required|are required|obligat\w*)\b",
        r"\b(model|models|weights)\b[^.;]*\b(trained|fine-?tuned)\b[^.;]*"
        r"\b(must|shall|is required|are required|obligat\w*)\b",
    ),
    "non-commercial": (
        r"(?-i:\bNonCommercial\b)",
        r"\bnon-?commercial (purposes|use) only\b",
        r"\bonly for non-?commercial\b",
        r"\bnot (be used )?for (any )?commercial\b",
        r"\bcommercial use is (not permitted|prohibited|forbidden)\b",
    ),
    "no derivatives": (
        r"(?-i:\bNoDeriv(ative)?s\b)",
        r"\bno derivative works\b",
        r"\bmay not (modify|adapt)\b",
    ),
}


class LicenseError(ValueError):
    """A task source whose licence keeps it out of a published dataset; the message names the source
    and the clause."""


@dataclass(frozen=True)
class Clause:
    clause: str
    excerpt: str  # the sentence that states it


def find_clauses(text: str) -> list[Clause]:
    """The restrictive clauses a licence text states (each once, with the first sentence that does)."""
    sentences = re.split(r"(?<=[.;])\s+|\n\s*\n", text)
    found = []
    for clause, patterns in CLAUSES.items():
        for sentence in sentences:
            flat = " ".join(sentence.split())
            if any(re.search(p, flat, re.IGNORECASE) for p in patterns):
                found.append(Clause(clause, flat[:200]))
                break
    return found


def denied_clause(license_id: str) -> str | None:
    """Why a single licence identifier is refused, or None when the deny list does not name it."""
    key = license_id.strip().lower()
    for prefix, clause in DENIED.items():
        if key.startswith(prefix):
            return clause
    return None


def judge(expression: str | None) -> tuple[bool, str]:
    """(allowed, why) for a declared licence: an SPDX id, or alternatives joined by OR."""
    if not expression or not expression.strip():
        return False, "no licence was declared or found"
    alternatives = [a.strip().strip("()") for a in re.split(r"\s+OR\s+", expression.strip())]
    reasons = []
    for alt in alternatives:
        if alt.lower() in ALLOWED:
            return True, f"{alt} is on the allow list"
        clause = denied_clause(alt)
        reasons.append(f"{alt}: {clause}" if clause else f"{alt} is not on the allow list")
    return False, "; ".join(reasons)


def is_denied(expression: str | None) -> bool:
    """Whether every alternative of a declared licence is on the deny list (no review can allow it)."""
    if not expression:
        return False
    return all(denied_clause(a.strip("() ")) for a in re.split(r"\s+OR\s+", expression.strip()))
