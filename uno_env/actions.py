"""The universal action layout: one id space for every preset and player count.

| id     | name              | used in phase(s)                                                     |
|--------|-------------------|----------------------------------------------------------------------|
| 0-58   | `play <code>`     | play: play that card; drawn: play the drawn card; emoji: put that     |
|        |                   | number card on the Wild Emoji. The id is the card kind (see `cards`). |
| 59     | `draw`            | play: draw one card (facing a Draw Two stack: take the whole sum)    |
| 60     | `pass`            | drawn: keep the drawn card; swap: don't swap; uno: don't call UNO     |
| 61-64  | `color <name>`    | color: the active colour after a wild; guess: the Narwhal guess;     |
|        |                   | give: the Urrrhhh colour to give away. Slot order: red/pink, blue,   |
|        |                   | green, yellow.                                                       |
| 65     | `challenge`       | challenge: challenge the Wild Draw Four                              |
| 66     | `accept`          | challenge: accept it (draw 4, lose the turn)                         |
| 67-75  | `swap +k`         | swap: swap hands with the player k = 1..9 seats to the left          |
| 76     | `uno`             | uno: call UNO                                                        |

Phases (whose decision it is, and what it is about):

| id | name        | decision                                                        |
|----|-------------|-----------------------------------------------------------------|
| 0  | `play`      | the turn: play a card or draw (or answer a Draw Two stack)      |
| 1  | `color`     | the active colour after a wild card                             |
| 2  | `drawn`     | play the card just drawn, or keep it                            |
| 3  | `challenge` | accept or challenge the Wild Draw Four just played              |
| 4  | `guess`     | guess the colour of one's oldest Narwhal forehead card          |
| 5  | `give`      | the colour to give away with Creeperific "Urrrhhh"              |
| 6  | `swap`      | whom to swap hands with (Wild Swap), or not                     |
| 7  | `emoji`     | the number card played together with the Wild Emoji             |
| 8  | `uno`       | call UNO or not (only with `uno_call="explicit"`)               |
| 9  | `over`      | the episode is over (round or match ended, or truncated)        |
"""

from __future__ import annotations

from . import cards as C

DRAW = 59
PASS = 60
COLOR_BASE = 61
CHALLENGE = 65
ACCEPT = 66
SWAP_BASE = 66  # `swap +k` has id SWAP_BASE + k, k = 1..9
UNO = 76
NUM_ACTIONS = 77

PHASE_NAMES = ("play", "color", "drawn", "challenge", "guess", "give", "swap", "emoji", "uno", "over")
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
) = range(10)


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
