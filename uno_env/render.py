"""Text rendering of a game as one seat sees it: its hand, the top card and colour, the direction, every
seat's card counts and the forehead cards it may see (its own shows as ??)."""

from __future__ import annotations

from . import actions as A
from . import cards as C

_ANSI = {"red": "31", "pink": "95", "blue": "34", "green": "32", "yellow": "33"}
_WILD_ANSI = "1"


def paint(code: str, colors: tuple[str, ...], color: bool) -> str:
    """A card code, in its colour when `color` is on (ANSI escapes)."""
    if not color:
        return code
    letters = [C.color_letter(c) for c in colors]
    if code.startswith("W") or code[0] not in letters:
        ansi = _WILD_ANSI
    else:
        ansi = _ANSI[colors[letters.index(code[0])]]
    return f"\x1b[{ansi}m{code}\x1b[0m"


def render_text(game, viewer: int, color: bool = False) -> str:
    """Game 0 of a GameBatch as seat `viewer` sees it."""
    d = game.describe(0)
    colors = game.rules.colors
    n = game.num_players
    arrow = "left (+1)" if d["direction"] == 1 else "right (-1)"
    finished = int(game.state.rounds[0])
    current = max(finished, 1) if game.done[0] else finished + 1  # after the end: the last round played
    lines = [
        f"UNO {game.rules.preset}, {n} players | round {current} | direction {arrow}",
        f"top {paint(d['top'], colors, color)}  colour {d['color'] or '(to choose)'}  draw pile {d['pile']}"
        + (f"  pending draw {d['pending_draw']}" if d["pending_draw"] else ""),
    ]
    for seat in range(n):
        you = seat == viewer
        name = f"player_{seat}" + (" (you)" if you else "")
        if you:
            cards = " ".join(paint(code, colors, color) for code in d["hands"][seat]) or "-"
        else:
            cards = f"{len(d['hands'][seat])} cards"
        foreheads = d["foreheads"][seat]
        if foreheads:
            shown = ["??"] * len(foreheads) if you else [paint(code, colors, color) for code in foreheads]
            cards += "  forehead " + " ".join(shown)
        marker = ">" if seat == d["seat"] and not d["done"] else " "
        lines.append(f"{marker} {name:<14} score {d['scores'][seat]:>4}  {cards}")
    if d["done"]:
        result = "truncated" if d["truncated"] else "winners " + ", ".join(f"player_{w}" for w in d["winners"])
        lines.append(f"over: {result}")
    else:
        mask = game.legal_masks()[0]
        legal = ", ".join(game.action_names[a] for a in range(A.NUM_ACTIONS) if mask[a])
        whose = "your" if d["seat"] == viewer else f"player_{d['seat']}'s"
        lines.append(f"{whose} decision ({d['phase']}): {legal if d['seat'] == viewer else '...'}")
    return "\n".join(lines)
