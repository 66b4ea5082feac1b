"""CuSeT: CUDA-sensitive token masking and region reweighting for kernel SFT (our formulation).

Plain SFT spends its gradient on whatever the model finds hard, and most of a kernel answer is
boilerplate. CuSeT observes that the execution-critical tokens (barriers, indexing, bounds checks,
launch configurations...) are mostly predicted with high confidence, while a small low-confidence
subset clusters into regions at exactly those structures. The published rules were not available,
so this module defines its own, each part behind a switch (`CuSeTParams`):

1. Sensitivity tagger (`tag_sensitive_spans`): regular rules mark character spans of CUDA C++ and
   Triton code tied to execution constraints; `token_mask_from_spans` maps them to tokens through
   the tokenizer's offsets. Runs once, at tokenization.
2. Token confidence: p_t = exp(log-prob of the gold token), detached, from the training forward
   pass itself (no extra forward), so the weights follow the model as it learns.
3. Regions: maximal runs of label tokens with p_t < `region_threshold`, bridging gaps of at most
   `region_gap` tokens. A region that touches (overlaps or abuts) a sensitive span absorbs that
   whole span and becomes a *sensitive region*: it is never partially masked, and every token in
   it gets the same weight `region_weight` (one unit).
4. Adaptive token masking: a label token that is neither sensitive nor inside a region, and whose
   p_t > `mask_threshold`, gets weight 0. The set shrinks or grows with the model's confidence.
   Sensitive tokens outside regions (so predicted with confidence >= `region_threshold`) are
   up-weighted to `sensitive_weight`: plain SFT gives them little gradient, since it scales
   with 1 - p_t.
5. Sample reweighting: sample i gets r_i = 1 + `sample_alpha` * s_i, with s_i the share of its
   label tokens inside sensitive regions, divided by a normalizer so that weights average about
   1: the running mean of r over past optimizer batches (`sample_norm="running"`, the default:
   it works at micro-batch size 1 and keeps gradient accumulation exact), the mean over the
   micro-batch (`"batch"`), or 1 (`"none"`).

The loss is sum_t w_t * nll_t divided by the number of label tokens (masked ones included), so a
growing masked set lowers the loss scale rather than renormalizing it, and gradient accumulation
stays exact (see `trainers.sft`). `weight_stats` summarizes a batch for the trainer's logs.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import torch

# --------------------------------------------------------------------------------------------
# Sensitivity tagger
# --------------------------------------------------------------------------------------------

SENSITIVE_KINDS = (
    "barrier",  # __syncthreads, __syncwarp, cooperative-group syncs, tl.debug_barrier
    "fence",  # __threadfence*
    "memory_space",  # __shared__ / __constant__ declarations
    "thread_index",  # threadIdx/blockIdx/blockDim/gridDim, tl.program_id, tl.num_programs
    "block_range",  # tl.arange
    "bounds_check",  # comparisons in kernel if/for/while (bounds and thread-role guards), Triton masks
    "atomic",  # atomicAdd..., tl.atomic_*
    "warp_primitive",  # shuffles and votes
    "launch_config",  # <<<...>>>, grid lambdas, triton.cdiv, kernel[grid]
    "index_arithmetic",  # computed subscripts in kernels, tl.load/tl.store pointer expressions
    "constexpr",  # tl.constexpr parameters, BLOCK*/num_warps/num_stages launch values
    "precision_cast",  # __float2half..., static/reinterpret/C casts, .to(...) in Triton
)


@dataclass(frozen=True)
class Span:
    """A half-open character range [start, end) of the text, tagged with the rule kind that found it."""

    start: int
    end: int
    kind: str


_CMP = re.compile(r"<=|>=|==|!=|(?<![<>])<(?![<])|(?<![<>-])>(?![>])")
_ARITH = re.compile(r"[+\-*/%]|<<|>>|threadIdx|blockIdx|blockDim")

_CUDA_CALLS = {
    "barrier": r"__syncthreads(?:_count|_and|_or)?|__syncwarp|__barrier_sync|\b\w+\s*\.\s*sync",
    "fence": r"__threadfence(?:_block|_system)?",
    "atomic": r"\batomic[A-Z]\w*",
    "warp_primitive": r"__shfl(?:_up|_down|_xor)?(?:_sync)?|__ballot_sync|__any_sync|__all_sync|__activemask"
    r"|__match_(?:any|all)_sync|__reduce_\w+_sync",
    "precision_cast": r"__(?:float|half|bfloat16|double|int|uint|ll|float2|half2|floats|bfloat162|low|high)"
    r"\w*(?:2|_as_)\w*|__int_as_float|__float_as_u?int",
}
_CUDA_TOKENS = {
    "thread_index": r"\b(?:threadIdx|blockIdx|blockDim|gridDim)\s*\.\s*[xyz]\b|\bwarpSize\b",
    "memory_space": r"(?:\bextern\s+)?\b__(?:shared|constant)__\b[^;{]*;?",
    "launch_config": r"<<<[^;]*?>>>",
    "precision_cast": r"\b(?:static|reinterpret)_cast\s*<[^<>;]*>"
    r"|\(\s*(?:float|double|half|__half|__nv_bfloat16|nv_bfloat16|int|unsigned|int64_t|long long|size_t)\s*\*?\s*\)"
    r"(?=\s*[\w(])",
}
_TRITON_CALLS = {
    "thread_index": r"\btl\.(?:program_id|num_programs)",
    "block_range": r"\btl\.arange",
    "atomic": r"\btl\.atomic_\w+",
    "barrier": r"\btl\.debug_barrier",
    "launch_config": r"\btriton\.cdiv",
    "precision_cast": r"\btl\.cast",
}
_TRITON_ANYWHERE = {
    "constexpr": r"\b\w+\s*:\s*tl\.constexpr\b|\b(?:BLOCK\w*|num_warps|num_stages)\s*=\s*[^,)\n]+",
    "launch_config": r"\bgrid\s*=\s*lambda[^\n]*",
}


def _close(text: str, open_at: int, pair: str = "()") -> int:
    """Index one past the bracket that closes the one at `open_at` (end of text if unbalanced)."""
    depth = 0
    for i in range(open_at, len(text)):
        c = text[i]
        if c == pair[0]:
            depth += 1
        elif c == pair[1]:
            depth -= 1
            if depth == 0:
                return i + 1
    return len(text)


def _calls(text: str, pattern: str, kind: str, lo: int = 0, hi: int | None = None) -> list[Span]:
    """Spans of calls `name(...)` whose name matches `pattern`, arguments included."""
    hi = len(text) if hi is None else hi
    spans = []
    for m in re.finditer(rf"(?:{pattern})\s*\(", text[lo:hi]):
        start = lo + m.start()
        spans.append(Span(start, min(_close(text, lo + m.end() - 1), hi), kind))
    return spans


def _tokens(text: str, pattern: str, kind: str, lo: int = 0, hi: int | None = None) -> list[Span]:
    hi = len(text) if hi is None else hi
    return [
        Span(lo + m.start(), lo + m.end(), kind)
        for m in re.finditer(pattern, text[lo:hi])
        if m.end() > m.start()
    ]


def _cuda_bodies(text: str) -> list[tuple[int, int]]:
    """Character ranges of __global__ / __device__ function bodies."""
    bodies = []
    for m in re.finditer(r"\b__(?:global|device)__\b[^;{]*\{", text):
        open_at = m.end() - 1
        bodies.append((open_at, _close(text, open_at, "{}")))
    return bodies


def _triton_bodies(text: str) -> list[tuple[int, int, str]]:
    """(start, end, name) of functions decorated with @triton.jit (possibly under other decorators)."""
    bodies = []
    pattern = r"^([ \t]*)@triton\.jit\b[^\n]*\n(?:\1@[^\n]*\n)*\1def\s+(\w+)\s*\("
    for m in re.finditer(pattern, text, re.MULTILINE):
        indent = len(m.group(1))
        header_end = text.find("\n", _close(text, m.end() - 1))
        pos = len(text) if header_end < 0 else header_end + 1
        end = len(text)
        while pos < len(text):
            nl = text.find("\n", pos)
            line = text[pos : nl if nl >= 0 else len(text)]
            if line.strip() and len(line) - len(line.lstrip()) <= indent:
                end = pos
                break
            if nl < 0:
                break
            pos = nl + 1
        bodies.append((m.start(), end, m.group(2)))
    return bodies


def _conditions(text: str, lo: int, hi: int) -> list[Span]:
    """Comparisons in if/while conditions and for-loop tests inside a CUDA body."""
    spans = []
    for m in re.finditer(r"\b(if|while|for)\s*\(", text[lo:hi]):
        open_at = lo + m.end() - 1
        close = min(_close(text, open_at), hi)
        inner_lo, inner_hi = open_at + 1, close - 1
        if m.group(1) == "for":
            parts = text[inner_lo:inner_hi].split(";")
            if len(parts) != 3:
                continue
            inner_lo += len(parts[0]) + 1
            inner_hi = inner_lo + len(parts[1])
            inner_lo += len(parts[1]) - len(parts[1].lstrip())
            inner_hi -= len(parts[1]) - len(parts[1].rstrip())
        if _CMP.search(text[inner_lo:inner_hi]):
            spans.append(Span(inner_lo, inner_hi, "bounds_check"))
    return spans


_INDEX_ASSIGN = re.compile(
    r"\b\w+\s*(?:\[[^\]]*\])?\s*[-+*/]?=(?!=)[^;{}]*\b(?:threadIdx|blockIdx|blockDim|gridDim)\b[^;{}]*;"
)


def _index_assignments(text: str, lo: int, hi: int) -> list[Span]:
    """Assignments computed from thread or block indices (`int idx = blockIdx.x * ... ;`) in a CUDA body."""
    return [
        Span(lo + m.start(), lo + m.end(), "index_arithmetic") for m in _INDEX_ASSIGN.finditer(text[lo:hi])
    ]


def _subscripts(text: str, lo: int, hi: int) -> list[Span]:
    """Computed subscripts `a[i * n + j]` inside a CUDA body (the bracketed expression)."""
    spans = []
    for m in re.finditer(r"\b\w+\s*\[", text[lo:hi]):
        open_at = lo + m.end() - 1
        close = min(_close(text, open_at, "[]"), hi)
        if _ARITH.search(text[open_at + 1 : close - 1]):
            spans.append(Span(open_at + 1, close - 1, "index_arithmetic"))
    return spans


def _argument_spans(text: str, open_at: int, close: int) -> list[tuple[int, int]]:
    """Top-level comma-separated arguments of the call whose parentheses are [open_at, close)."""
    args, depth, start = [], 0, open_at + 1
    for i in range(open_at + 1, close - 1):
        c = text[i]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "," and depth == 0:
            args.append((start, i))
            start = i + 1
    args.append((start, close - 1))
    stripped = []
    for a, b in args:
        arg = text[a:b]
        if arg.strip():
            a += len(arg) - len(arg.lstrip())
            b -= len(arg) - len(arg.rstrip())
            stripped.append((a, b))
    return stripped


def _triton_memory(text: str, lo: int, hi: int) -> list[Span]:
    """Pointer expressions and mask/other arguments of tl.load / tl.store, and mask or offset definitions."""
    spans = []
    for m in re.finditer(r"\btl\.(?:load|store)\s*\(", text[lo:hi]):
        open_at = lo + m.end() - 1
        close = min(_close(text, open_at), hi)
        for n, (a, b) in enumerate(_argument_spans(text, open_at, close)):
            arg = text[a:b].strip()
            if n == 0:
                spans.append(Span(a, b, "index_arithmetic"))
            elif re.match(r"(mask|other|boundary_check|padding_option)\s*=", arg):
                spans.append(Span(a, b, "bounds_check"))
    pattern = r"^[ \t]*(\w*(?:mask|offs|offset|idx|index)\w*)\s*=[^=\n][^\n]*"
    for m in re.finditer(pattern, text[lo:hi], re.MULTILINE | re.IGNORECASE):
        kind = "bounds_check" if "mask" in m.group(1).lower() else "index_arithmetic"
        spans.append(Span(lo + m.start(1), lo + m.end(), kind))
    return spans


def _launches(text: str, names: Iterable[str]) -> list[Span]:
    spans = []
    for name in names:
        for m in re.finditer(rf"\b{re.escape(name)}\s*\[", text):
            close = _close(text, m.end() - 1, "[]")
            if not text[close:].lstrip().startswith("("):
                continue
            spans.append(Span(m.end() - 1, close, "launch_config"))
    return spans


def tag_sensitive_spans(text: str, kinds: Iterable[str] | None = None) -> list[Span]:
    """Execution-critical spans of CUDA C++ and Triton code in `text`, sorted by start.

    `text` may be a whole answer (prose, fenced blocks, Python with CUDA sources in strings): the
    body-scoped rules (bounds checks, computed subscripts, Triton masks and casts) apply only
    inside `__global__`/`__device__` bodies and `@triton.jit` functions, so host code and prose
    are not tagged by them. `kinds` restricts the result to some of `SENSITIVE_KINDS`.
    """
    wanted = set(SENSITIVE_KINDS if kinds is None else kinds)
    unknown = wanted - set(SENSITIVE_KINDS)
    if unknown:
        raise ValueError(f"unknown sensitivity kinds {sorted(unknown)}; choose from {list(SENSITIVE_KINDS)}")
    spans: list[Span] = []
    for kind, pattern in _CUDA_CALLS.items():
        spans += _calls(text, pattern, kind)
    for kind, pattern in _CUDA_TOKENS.items():
        spans += _tokens(text, pattern, kind)
    for lo, hi in _cuda_bodies(text):
        spans += _conditions(text, lo, hi) + _subscripts(text, lo, hi) + _index_assignments(text, lo, hi)
    triton = _triton_bodies(text)
    if triton or "tl." in text:
        for kind, pattern in _TRITON_CALLS.items():
            spans += _calls(text, pattern, kind)
        for kind, pattern in _TRITON_ANYWHERE.items():
            spans += _tokens(text, pattern, kind)
        for lo, hi, _ in triton:
            spans += _triton_memory(text, lo, hi)
            spans += _calls(text, r"\.to", "precision_cast", lo, hi)
        spans += _launches(text, {name for _, _, name in triton})
    return sorted((s for s in spans if s.kind in wanted), key=lambda s: (s.start, s.end))


def token_mask_from_spans(
    offsets: list[tuple[int, int]], spans: Iterable[Span], shift: int = 0, text_length: int | None = None
) -> list[int]:
    """1 for each token whose character range [s, e) overlaps a span (span positions offset by `shift`).

    Linear in the text length: a prefix count of covered characters answers each token in O(1).
    """
    spans = list(spans)
    if not spans:
        return [0] * len(offsets)
    length = max(
        text_length or 0, max(e for _, e in offsets) if offsets else 0, max(s.end for s in spans) + shift
    )
    delta = [0] * (length + 1)
    for s in spans:
        delta[s.start + shift] += 1
        delta[s.end + shift] -= 1
    covered = [1 if d > 0 else 0 for d in itertools.accumulate(delta)]
    prefix = [0, *itertools.accumulate(covered)]
    return [1 if e > s and prefix[e] - prefix[s] > 0 else 0 for s, e in offsets]


def code_regions(text: str) -> list[tuple[int, int]]:
    """Fenced code blocks of a markdown answer as character ranges; the whole text when it has none."""
    fences = [m.start() for m in re.finditer(r"^[ \t]*```", text, re.MULTILINE)]
    if len(fences) < 2:
        return [(0, len(text))]
    regions = []
    for open_at, close_at in zip(fences[0::2], fences[1::2], strict=False):
        body = text.find("\n", open_at) + 1
        regions.append((body, close_at))
    return regions


def tag_answer(text: str, kinds: Iterable[str] | None = None) -> list[Span]:
    """Sensitive spans of an assistant answer, looking only inside its code (fenced blocks if any)."""
    spans = []
    for lo, hi in code_regions(text):
        spans += [Span(s.start + lo, s.end + lo, s.kind) for s in tag_sensitive_spans(text[lo:hi], kinds)]
    return spans


# --------------------------------------------------------------------------------------------
# Token and sample weights
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CuSeTParams:
    """The switches and constants of the weighting; `trainers.sft_config` documents each default."""

    token_masking: bool = True
    mask_threshold: float = 0.95
    regions: bool = True
    region_threshold: float = 0.5
    region_gap: int = 2
    region_weight: float = 2.0
    sensitive_upweight: bool = True
    sensitive_weight: float = 1.5
    sample_reweighting: bool = True
    sample_alpha: float = 1.0
    sample_norm: str = "running"  # running | batch | none
    sample_norm_momentum: float = 0.9


def _components(member: torch.Tensor, segment: torch.Tensor) -> torch.Tensor:
    """Label each maximal run of True in the 1-D `member`, runs never crossing a segment change.

    Ids count up from 0 in order (so there are at most `member.numel()` of them); -1 off runs.
    Works without a device sync.
    """
    prev_member = torch.cat([member.new_zeros(1), member[:-1]])
    prev_segment = torch.cat([segment.new_full((1,), -1), segment[:-1]])
    starts = member & (~prev_member | (segment != prev_segment))
    ids = torch.cumsum(starts.long(), 0) - 1
    return torch.where(member, ids, torch.full_like(ids, -1))


def _any_per(ids: torch.Tensor, flag: torch.Tensor) -> torch.Tensor:
    """For component ids from `_components`: a lookup table, index id + 1, True where any member has `flag`."""
    acc = torch.zeros(ids.numel() + 1, device=ids.device).index_add_(0, ids + 1, flag.float())
    table = acc > 0
    table[0] = False
    return table


def _bridge_gaps(low: torch.Tensor, allowed: torch.Tensor, segment: torch.Tensor, gap: int) -> torch.Tensor:
    """`low` plus the runs of at most `gap` allowed tokens lying between two low tokens of one segment."""
    if gap <= 0 or low.numel() == 0:
        return low
    n = low.numel()
    pos = torch.arange(n, device=low.device)
    prev_low = torch.cummax(torch.where(low, pos, torch.full_like(pos, -1)), 0).values
    next_low = torch.cummin(torch.where(low, pos, torch.full_like(pos, n)).flip(0), 0).values.flip(0)
    has_both = (prev_low >= 0) & (next_low < n)
    prev_c, next_c = prev_low.clamp(min=0), next_low.clamp(max=n - 1)
    short = (next_low - prev_low - 1) <= gap
    same_segment = (segment[prev_c] == segment) & (segment[next_c] == segment)
    # A bridge must not cross a token outside the allowed set (padding, prompt).
    blocked = torch.cumsum((~allowed).long(), 0)
    clean = blocked[next_c] == blocked[prev_c]
    return low | (has_both & short & same_segment & clean & allowed)


@dataclass
class TokenWeights:
    """Per-token weights and the masks behind them for one batch (token tensors are flat)."""

    weights: torch.Tensor  # final weight: token weight x sample weight, 0 off labels
    token_weights: torch.Tensor  # before sample reweighting
    label: torch.Tensor  # label tokens (those the loss may see)
    masked: torch.Tensor  # label tokens dropped by adaptive masking
    sensitive: torch.Tensor  # label tokens tagged sensitive
    in_region: torch.Tensor  # label tokens inside any region
    in_sensitive_region: torch.Tensor
    region_count: torch.Tensor  # 0-d
    sensitive_region_count: torch.Tensor  # 0-d
    sample_share: torch.Tensor  # per sample: share of its label tokens in sensitive regions
    sample_raw: torch.Tensor  # per sample: 1 + alpha * share (1 with reweighting off)
    sample_weight: torch.Tensor  # per sample: raw / normalizer
    sample_has_labels: torch.Tensor  # per sample


def compute_token_weights(
    log_probs: torch.Tensor,
    label_mask: torch.Tensor,
    sensitive: torch.Tensor,
    params: CuSeTParams,
    segment_ids: torch.Tensor | None = None,
    num_segments: int | None = None,
    normalizer: float | None = None,
) -> TokenWeights:
    """CuSeT weights for a batch of gold-token log-probs; rows are samples unless `segment_ids` says otherwise.

    `segment_ids` (same shape as `log_probs`, values in [0, num_segments)) names the sample of
    each token, for padding-free batches. `normalizer` divides the raw sample weights when
    `params.sample_norm == "running"` (the trainer passes `RunningNormalizer.value()`); with
    `"batch"` the mean over the batch is used, with `"none"` nothing. No device sync happens here.
    """
    with torch.no_grad():
        device = log_probs.device
        conf = log_probs.detach().float().exp().reshape(-1)
        label = label_mask.reshape(-1).bool()
        sens = sensitive.reshape(-1).bool() & label
        if segment_ids is None:
            rows = log_probs.shape[0] if log_probs.dim() > 1 else 1
            num_segments = rows
            segment = torch.arange(rows, device=device).repeat_interleave(
                max(log_probs.numel() // max(rows, 1), 1)
            )
            segment = segment[: conf.numel()]
        else:
            segment = segment_ids.reshape(-1).long()
            if num_segments is None:
                raise ValueError("compute_token_weights: pass num_segments together with segment_ids")

        if params.regions:
            low = label & (conf < params.region_threshold)
            core = _bridge_gaps(low, label, segment, params.region_gap)
            # A sensitive run touches a region when it overlaps it or sits right next to it.
            near = core.clone()
            near[1:] |= core[:-1] & (segment[1:] == segment[:-1])
            near[:-1] |= core[1:] & (segment[:-1] == segment[1:])
            sens_ids = _components(sens, segment)
            absorbed = _any_per(sens_ids, near & sens)[sens_ids + 1]
            region = core | absorbed
            region_ids = _components(region, segment)
            is_sensitive_region = _any_per(region_ids, sens)
            sens_region = is_sensitive_region[region_ids + 1]
            starts = region_ids.diff(prepend=region_ids.new_full((1,), -1)) > 0
            region_count = (starts & region).sum()
            sensitive_region_count = is_sensitive_region.sum()
        else:
            region = torch.zeros_like(label)
            sens_region = torch.zeros_like(label)
            region_count = sensitive_region_count = torch.zeros((), dtype=torch.long, device=device)

        token_w = label.float()
        masked = torch.zeros_like(label)
        if params.token_masking:
            masked = label & ~sens & ~region & (conf > params.mask_threshold)
            token_w = token_w.masked_fill(masked, 0.0)
        if params.sensitive_upweight:
            token_w = token_w.masked_fill(sens & ~region, params.sensitive_weight)
        if params.regions:
            token_w = token_w.masked_fill(sens_region, params.region_weight)

        hot = sens_region if params.regions else sens & (conf < params.region_threshold)
        per_seg = torch.zeros(2, num_segments, device=device)
        per_seg[0].index_add_(0, segment, label.float())
        per_seg[1].index_add_(0, segment, hot.float())
        has_labels = per_seg[0] > 0
        share = per_seg[1] / per_seg[0].clamp(min=1)
        if params.sample_reweighting:
            raw = 1.0 + params.sample_alpha * share
            if params.sample_norm == "batch":
                norm = (raw * has_labels).sum() / has_labels.sum().clamp(min=1)
            elif params.sample_norm == "running":
                norm = 1.0 if normalizer is None else normalizer
            else:
                norm = 1.0
            sample_w = raw / norm
        else:
            raw = torch.ones_like(share)
            sample_w = raw
        return TokenWeights(
            weights=token_w * sample_w[segment],
            token_weights=token_w,
            label=label,
            masked=masked,
            sensitive=sens,
            in_region=region,
            in_sensitive_region=sens_region,
            region_count=region_count,
            sensitive_region_count=sensitive_region_count,
            sample_share=share,
            sample_raw=raw,
            sample_weight=sample_w,
            sample_has_labels=has_labels,
        )


def weight_stats(tw: TokenWeights) -> dict[str, torch.Tensor]:
    """Scalars for the logs, as 0-d tensors so that a caller fetches them all in one device sync."""
    n_labels = tw.label.float().sum().clamp(min=1)
    has = tw.sample_has_labels.float()
    n_samples = has.sum().clamp(min=1)
    regions = tw.region_count.float()
    return {
        "masked_frac": tw.masked.float().sum() / n_labels,
        "sensitive_frac": tw.sensitive.float().sum() / n_labels,
        "region_frac": tw.in_region.float().sum() / n_labels,
        "sensitive_region_frac": tw.in_sensitive_region.float().sum() / n_labels,
        "region_count": regions,
        "sensitive_region_count": tw.sensitive_region_count.float(),
        "region_size": tw.in_region.float().sum() / regions.clamp(min=1),
        "token_weight_mean": tw.token_weights.sum() / n_labels,
        "sample_weight_mean": (tw.sample_weight * has).sum() / n_samples,
        "sample_weight_max": (tw.sample_weight * has).max(),
    }


class RunningNormalizer:
    """Running mean of raw sample weights over optimizer batches, frozen within a batch.

    Weights are divided by the value from *before* the current optimizer step, and the step's
    samples are folded in once it ends, so splitting a batch into micro-batches changes nothing.
    The mean is an exponential moving average with bias correction (1.0 before the first step).
    """

    def __init__(self, momentum: float = 0.9):
        self.momentum = momentum
        self.average = 0.0
        self.steps = 0
        self._sum = 0.0
        self._count = 0.0
        self._pending: list[tuple[torch.Tensor, torch.Tensor]] = []

    def value(self) -> float:
        if self.steps == 0:
            return 1.0
        return self.average / (1.0 - self.momentum**self.steps)

    def observe(self, raw: torch.Tensor, has_labels: torch.Tensor) -> None:
        """Queue one micro-batch's raw weights (kept on device until the step ends)."""
        self._pending.append(((raw * has_labels).sum().detach(), has_labels.float().sum().detach()))

    def end_step(self, reduce: Callable[[torch.Tensor], torch.Tensor] | None = None) -> None:
        """Fold the finished optimizer batch in; `reduce` sums a tensor across processes."""
        if not self._pending:
            return
        totals = torch.stack([torch.stack(pair) for pair in self._pending]).sum(0)
        self._pending.clear()
        if reduce is not None:
            totals = reduce(totals)
        total, count = (float(x) for x in totals.tolist())
        if count <= 0:
            return
        self.average = self.momentum * self.average + (1.0 - self.momentum) * (total / count)
        self.steps += 1
