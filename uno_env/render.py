"""What a seat may see of the table, and its text rendering.

`table_view(game, viewer, g)` is the one place that decides what seat `viewer` may see: its own hand face up,
the others' hands as counts, the others' forehead cards face up and its own as hidden (None) with their count,
and everything public (top card, active colour, direction, pending Draw Two stack, draw pile size, scores,
round, whose decision it is, the phase, the winners); with ``viewer=None`` it is a spectator's view that shows
every hand and forehead card (replays, videos). `render_text` (the AEC env's ``ansi``/``human`` modes) and
`uno_env.picture.draw_table` (``rgb_array`` pictures) draw only what the view holds.

While another seat decides on the card it just drew, a seat sees the phase as `play` (whether that card could be
played is the drawer's secret, as in the observation encoder). A replay (`uno_env.replay`) shows a seat the
moments it saw live (`sees_moment`) and each step as it saw it (`seen_step`): the others' steps without their
details, a draw and the decision on the drawn card as one step, and a kept drawn card as the draw alone.
"""

from __future__ import annotations

from typing import Any

from rich.color import ColorSystem
from rich.style import Style

from . import actions as A
from . import cards as C
from . import faces as F

_PASS = next(name for name, first, _, _ in A.ACTIONS if first == A.PASS)  # "pass": in `drawn`, keep the card


def paint(code: str, colors: tuple[str, ...], color: bool) -> str:
    """A card code, in its colour's terminal style (`uno_env.faces`) as ANSI escapes when `color` is on."""
    if not color:
        return code
    style = F.color_face(C.parse_card(code, colors), colors).style
    return Style.parse(style).render(code, color_system=ColorSystem.STANDARD)


def seen_phase(d: dict[str, Any], viewer: int | None) -> str:
    """The phase of a game description `d` as `viewer` sees it: another seat's `drawn` phase shows as `play`."""
    if d["phase"] == A.PHASE_NAMES[A.PHASE_DRAWN] and not d["done"] and viewer is not None and viewer != d["seat"]:
        return A.PHASE_NAMES[A.PHASE_PLAY]
    return d["phase"]


def sees_moment(d: dict[str, Any], viewer: int | None) -> bool:
    """Whether `viewer` sees the game as described by `d` as a moment of its own: not while another seat decides on
    the card it just drew (live, it sees that seat's draw and its decision as one step)."""
    return seen_phase(d, viewer) == d["phase"]


def seen_step(
    viewer: int | None, actor: int, phase: str, action: str, details: Any, unseen: list[tuple[str, str]]
) -> dict[str, Any]:
    """A step as `viewer` sees it: seat `actor` took `action` (its name) in `phase` with `details` (e.g. its
    probabilities); `unseen`: the (phase, action) of the steps just before it that the viewer did not see as
    moments (`sees_moment`). A seat's own steps, and every step for a spectator, are shown as they were; another
    seat's steps as the table saw them: no details, the phase as `seen_phase`, the draw before a decision on the
    drawn card folded in, and keeping the drawn card (`pass` in `drawn`) shown as the draw alone."""
    if viewer is None or viewer == actor:
        return {"action": action, "by": actor, "phase": phase, "details": details}
    names = [name for _, name in unseen]
    if not (phase == A.PHASE_NAMES[A.PHASE_DRAWN] and action == _PASS):
        names.append(action)
    first = unseen[0][0] if unseen else phase
    if first == A.PHASE_NAMES[A.PHASE_DRAWN]:
        first = A.PHASE_NAMES[A.PHASE_PLAY]
    return {"action": ", then ".join(names), "by": actor, "phase": first, "details": None}


def table_view(game, viewer: int | None, g: int = 0) -> dict[str, Any]:
    """Game g of a GameBatch (or a `Game`) as seat `viewer` sees it; ``viewer=None``: a spectator who sees all.

    Plain Python values: ``variant``, ``players``, ``viewer``, ``round`` (the round being played; after the end
    the last one played), ``top`` (card code), ``color`` (active colour name, None before it is chosen),
    ``direction`` (+1 to the left, -1 to the right), ``pending_draw``, ``pile`` (draw pile size), ``phase``,
    ``deciding`` (the seat whose decision it is; None when over), ``dealer`` (the seat that dealt the round),
    ``done``, ``truncated``, ``winners``, ``legal`` (the deciding seat's legal action names when the viewer is that
    seat or a spectator, else None) and ``seats``: per seat ``seat``, ``name``, ``you``, ``hand`` (card codes, or
    None when hidden), ``count`` (hand size), ``foreheads`` (card codes, None for each hidden one), ``score``,
    ``deciding`` and ``winner``.
    """
    batch = getattr(game, "batch", game)  # a Game holds its one-game batch
    n = batch.num_players
    if viewer is not None and not 0 <= int(viewer) < n:
        raise ValueError(f"viewer must be a seat from 0 to {n - 1} or None (a spectator), got {viewer!r}")
    d = batch.describe(g)
    done = d["done"]
    deciding = None if done else d["seat"]
    legal = None
    if not done and (viewer is None or viewer == deciding):
        mask = batch.legal_masks()[g]
        legal = [batch.action_names[a] for a in range(A.NUM_ACTIONS) if mask[a]]
    seats = []
    for seat in range(n):
        you = seat == viewer
        hand = d["hands"][seat]
        foreheads = d["foreheads"][seat]
        seats.append(
            {
                "seat": seat,
                "name": f"player_{seat}",
                "you": you,
                "hand": list(hand) if viewer is None or you else None,
                "count": len(hand),
                "foreheads": [None] * len(foreheads) if you else list(foreheads),
                "score": d["scores"][seat],
                "deciding": seat == deciding,
                "winner": seat in d["winners"],
            }
        )
    return {
        "variant": batch.rules.variant,
        "players": n,
        "viewer": viewer,
        "round": max(d["rounds"], 1) if done else d["rounds"] + 1,
        "top": d["top"],
        "color": d["color"],
        "direction": d["direction"],
        "pending_draw": d["pending_draw"],
        "pile": d["pile"],
        "phase": seen_phase(d, viewer),
        "deciding": deciding,
        "dealer": d["dealer"],
        "done": done,
        "truncated": d["truncated"],
        "winners": list(d["winners"]),
        "legal": legal,
        "seats": seats,
    }


def view_text(view: dict[str, Any], colors: tuple[str, ...], color: bool = False) -> str:
    """The text of a `table_view`."""
    arrow = "left (+1)" if view["direction"] == 1 else "right (-1)"
    lines = [
        f"UNO {view['variant']}, {view['players']} players | round {view['round']} | direction {arrow}",
        f"top {paint(view['top'], colors, color)}  colour {view['color'] or '(to choose)'}  draw pile {view['pile']}"
        + (f"  pending draw {view['pending_draw']}" if view["pending_draw"] else ""),
    ]
    for seat in view["seats"]:
        name = seat["name"] + (" (you)" if seat["you"] else "")
        if seat["hand"] is not None:
            cards = " ".join(paint(code, colors, color) for code in seat["hand"]) or "-"
        else:
            cards = f"{seat['count']} cards"
        if seat["foreheads"]:
            shown = ["??" if code is None else paint(code, colors, color) for code in seat["foreheads"]]
            cards += "  forehead " + " ".join(shown)
        marker = ">" if seat["deciding"] else " "
        lines.append(f"{marker} {name:<14} score {seat['score']:>4}  {cards}")
    if view["done"]:
        result = "truncated" if view["truncated"] else "winners " + ", ".join(f"player_{w}" for w in view["winners"])
        lines.append(f"over: {result}")
    else:
        deciding = view["deciding"]
        whose = "your" if deciding == view["viewer"] else f"player_{deciding}'s"
        legal = ", ".join(view["legal"]) if view["legal"] is not None else "..."
        lines.append(f"{whose} decision ({view['phase']}): {legal}")
    return "\n".join(lines)


def render_text(game, viewer: int | None, color: bool = False, g: int = 0) -> str:
    """Game g of a GameBatch (or a `Game`) as seat `viewer` sees it (None: a spectator who sees every card)."""
    return view_text(table_view(game, viewer, g), game.rules.colors, color)
