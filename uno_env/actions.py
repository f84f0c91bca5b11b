"""The universal action layout: one id space for every preset and player count, and the decision phases.

The layout is one table in code, `ACTIONS` (name, ids, meaning by phase), and so are the phases, `PHASES`;
both are appended to this docstring as markdown (`actions_markdown()`), and the docs show the same.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from . import cards as C

DRAW = 59
PASS = 60
COLOR_BASE = 61
CHALLENGE = 65
ACCEPT = 66
SWAP_BASE = 66  # `swap +k` has id SWAP_BASE + k, k = 1..9
UNO = 76
NUM_ACTIONS = 77

# The action table: (name, first id, last id, meaning by phase). Ids are contiguous and cover 0..76.
ACTIONS = (
    ("play <code>", 0, C.NUM_KINDS - 1, "play: play that card; drawn: play the drawn card; emoji: put that number "
     "card on the Wild Emoji. The id is the card kind (see `cards`)."),
    ("draw", DRAW, DRAW, "play: draw one card (facing a Draw Two stack: take the whole sum)"),
    ("pass", PASS, PASS, "drawn: keep the drawn card; swap: don't swap; uno: don't call UNO"),
    ("color <name>", COLOR_BASE, COLOR_BASE + C.NUM_COLORS - 1, "color: the active colour after a wild; guess: the "
     "Narwhal guess; give: the Urrrhhh colour to give away. Slot order: red/pink, blue, green, yellow."),
    ("challenge", CHALLENGE, CHALLENGE, "challenge: challenge the Wild Draw Four"),
    ("accept", ACCEPT, ACCEPT, "challenge: accept it (draw 4, lose the turn)"),
    ("swap +k", SWAP_BASE + 1, SWAP_BASE + 9, "swap: swap hands with the player k = 1..9 seats to the left"),
    ("uno", UNO, UNO, "uno: call UNO"),
)  # fmt: skip

# The phase table: (name, the decision it is about); a phase's id is its row.
PHASES = (
    ("play", "the turn: play a card or draw (or answer a Draw Two stack)"),
    ("color", "the active colour after a wild card"),
    ("drawn", "play the card just drawn, or keep it"),
    ("challenge", "accept or challenge the Wild Draw Four just played"),
    ("guess", "guess the colour of one's oldest Narwhal forehead card"),
    ("give", 'the colour to give away with Creeperific "Urrrhhh"'),
    ("swap", "whom to swap hands with (Wild Swap), or not"),
    ("emoji", "the number card played together with the Wild Emoji"),
    ("uno", 'call UNO or not (only with `uno_call="explicit"`)'),
    ("over", "the episode is over (round or match ended, or truncated)"),
)
PHASE_NAMES = tuple(name for name, _ in PHASES)
(
    PHASE_PLAY,
    PHASE_COLOR,
    PHASE_DRAWN,
    PHASE_CHALLENGE,
    PHASE_GUESS,
    PHASE_GIVE,
    PHASE_SWAP,
    PHASE_EMOJI,
    PHASE_UNO,
    PHASE_OVER,
) = range(len(PHASES))


def actions_markdown() -> str:
    """The action table and the phase table as markdown."""
    rows = ["| id | name | meaning, by phase |", "|---|---|---|"]
    for name, first, last, meaning in ACTIONS:
        ids = str(first) if first == last else f"{first}-{last}"
        rows.append(f"| {ids} | `{name}` | {meaning} |")
    rows += ["", "| phase id | name | decision |", "|---|---|---|"]
    rows += [f"| {i} | `{name}` | {decision} |" for i, (name, decision) in enumerate(PHASES)]
    return "\n".join(rows) + "\n"


def action_names(colors: tuple[str, ...]) -> list[str]:
    """The name of every action id, in the colour names of a preset."""
    names = [f"play {code}" for code in C.all_codes(colors)]
    names += ["draw", "pass"]
    names += [f"color {name}" for name in colors]
    names += ["challenge", "accept"]
    names += [f"swap +{k}" for k in range(1, 10)]
    names += ["uno"]
    assert len(names) == NUM_ACTIONS
    return names


def action_id(name: str, colors: tuple[str, ...]) -> int:
    """The id of an action name (case and spacing forgiven); a ValueError lists the forms otherwise."""
    if isinstance(name, str):
        words = name.split()
        if len(words) == 2 and words[0].lower() == "play":
            return C.parse_card(words[1], colors)
        normal = " ".join(w.lower() for w in words)
        names = action_names(colors)
        if normal in names:
            return names.index(normal)
    raise ValueError(
        f"unknown action {name!r}; actions are 'play <card code>', 'draw', 'pass', "
        f"'color <{'|'.join(colors)}>', 'challenge', 'accept', 'swap +k' (k = 1..9), 'uno'"
    )


@njit(cache=True, nogil=True)
def _random_legal(masks, rng, actions):
    for i in range(masks.shape[0]):
        legal = 0
        for a in range(masks.shape[1]):
            legal += masks[i, a] != 0
        pick = rng.integers(0, legal) if legal > 0 else 0
        actions[i] = 0
        for a in range(masks.shape[1]):
            if masks[i, a] != 0:
                if pick == 0:
                    actions[i] = a
                    break
                pick -= 1


def random_legal_actions(action_masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One legal action per row of `action_masks` (B, 77), uniformly at random from `rng` (0 where none is legal)."""
    action_masks = np.ascontiguousarray(action_masks, dtype=np.int8)
    actions = np.empty(len(action_masks), np.int64)
    _random_legal(action_masks, rng, actions)
    return actions


def __getattr__(name: str):
    """Names that moved out of this module answer here for one release (`uno_env.deprecated`)."""
    from .deprecated import moved_name

    return moved_name(__name__, name)


if __doc__:  # None under python -OO
    __doc__ += "\n" + actions_markdown()
