"""PrimeEcho: multi-turn feedback rollouts whose reward is anchored on the first turn.

A rollout answers the prompt (turn 1); while its latest answer fails and turns remain, the
verifier's feedback on that answer becomes the next user message and the policy answers again; it
stops at the first pass or after `turns` turns (MusaCoder: at most 3). With s_k the shaped reward
of turn k, the trajectory's reward is

    R = alpha * s_1 + (1 - alpha) * max_k s_k + b_early

where b_early is early_bonus[k - 1] when the first passing turn is k (and 0 past the list or when
no turn passed). alpha = 0.75 keeps the first answer the main thing being rewarded, while the
(1 - alpha) share pays for answers that the feedback loop can repair. Our default bonuses, 0.2 for
a pass at turn 1 and 0.1 at turn 2 (MusaCoder did not publish theirs), are small next to the gap
between a failed (-1) and a passing (>= 1) turn, so they order the outcomes without swamping them:

    pass at turn 1 (s = 1):            R = 1.0 + 0.2           =  1.2
    fail, then pass at turn 2:         R = -0.75 + 0.25 + 0.1  = -0.4
    fail, fail, pass at turn 3:        R = -0.75 + 0.25        = -0.5
    fail three times:                  R = -1.0

The policy gradient flows through the first-turn response only: the later turns are rollout
machinery that shapes R, and they never enter the training batch (so the loss mask covers
exactly the turn-1 completion tokens). `run_episodes` is the rollout loop, written against two
callables (generate and score) so that it runs the same with HF generate, vLLM or a test double.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from benchmark.prompts.render import continued, shown_answer
from trainers.rl_rewards import Score

DEFAULT_ALPHA = 0.75
DEFAULT_EARLY_BONUS = (0.2, 0.1)


@dataclass(frozen=True)
class PrimeEchoParams:
    turns: int = 3
    alpha: float = DEFAULT_ALPHA
    early_bonus: tuple[float, ...] = DEFAULT_EARLY_BONUS

    def __post_init__(self):
        if self.turns < 1:
            raise ValueError(f"PrimeEcho needs at least one turn, got {self.turns}")
        if not 0.0 <= self.alpha <= 1.0:
            raise ValueError(f"alpha must be in [0, 1], got {self.alpha}")
        if any(b < 0 for b in self.early_bonus):
            raise ValueError(f"early bonuses must be non-negative, got {list(self.early_bonus)}")
        if any(a < b for a, b in zip(self.early_bonus, self.early_bonus[1:], strict=False)):
            raise ValueError(f"early bonuses must not grow with the turn, got {list(self.early_bonus)}")

    def bonus(self, first_pass_turn: int | None) -> float:
        if first_pass_turn is None or first_pass_turn > len(self.early_bonus):
            return 0.0
        return self.early_bonus[first_pass_turn - 1]


def trajectory_reward(scores: Sequence[float], first_pass_turn: int | None, params: PrimeEchoParams) -> float:
    """R = alpha * s_1 + (1 - alpha) * max_k s_k + b_early(first passing turn)."""
    if not scores:
        raise ValueError("a trajectory has at least one turn")
    return params.alpha * scores[0] + (1.0 - params.alpha) * max(scores) + params.bonus(first_pass_turn)


@dataclass
class Turn:
    completion: str
    score: Score


@dataclass
class Episode:
    prompt: list[dict]  # the first-turn messages
    row: dict  # the dataset row (task_id, ...)
    turns: list[Turn] = field(default_factory=list)

    @property
    def first(self) -> Turn:
        return self.turns[0]

    @property
    def first_pass_turn(self) -> int | None:
        return next((k for k, t in enumerate(self.turns, 1) if t.score.passed), None)

    @property
    def passed(self) -> bool:
        return self.first_pass_turn is not None

    @property
    def done(self) -> bool:
        return self.passed

    def reward(self, params: PrimeEchoParams | None) -> float:
        """The trajectory reward; without PrimeEcho (params None) the first turn's shaped reward."""
        if params is None:
            return self.first.score.reward
        return trajectory_reward([t.score.reward for t in self.turns], self.first_pass_turn, params)

    def conversation(self) -> list[dict]:
        """The messages of the next turn: the prompt, then each answer and the feedback on it."""
        messages = tuple(dict(m) for m in self.prompt)
        for t in self.turns:
            messages = continued(messages, shown_answer(t.completion), t.score.feedback)
        return list(messages)


ScoreFn = Callable[[Sequence[dict], Sequence[str], Sequence[int]], list[Score]]
GenerateFn = Callable[[list[list[dict]]], list[str]]


def run_episodes(
    prompts: Sequence[list[dict]],
    rows: Sequence[dict],
    first_completions: Sequence[str],
    score: ScoreFn,
    generate: GenerateFn | None = None,
    turns: int = 1,
) -> list[Episode]:
    """Score the first turn of every rollout, then run turns 2..`turns` for those that failed.

    `generate` is called once per later turn, even with an empty list (a distributed caller must
    take part in every collective generation call), and must return one completion per
    conversation it was given."""
    if not (len(prompts) == len(rows) == len(first_completions)):
        raise ValueError("prompts, rows and first completions must have the same length")
    if turns > 1 and generate is None:
        raise ValueError("more than one turn needs a generate function")
    episodes = [Episode(prompt=list(p), row=dict(r)) for p, r in zip(prompts, rows, strict=True)]
    first = score(rows, list(first_completions), [1] * len(episodes))
    for episode, text, s in zip(episodes, first_completions, first, strict=True):
        episode.turns.append(Turn(text, s))
    for turn in range(2, turns + 1):
        active = [e for e in episodes if not e.done]
        texts = generate([e.conversation() for e in active])
        if len(texts) != len(active):
            raise RuntimeError(f"generate returned {len(texts)} completions for {len(active)} conversations")
        if not active:
            continue
        scores = score([e.row for e in active], texts, [turn] * len(active))
        for episode, text, s in zip(active, texts, scores, strict=True):
            episode.turns.append(Turn(text, s))
    return episodes
