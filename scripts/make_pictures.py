"""The pictures of the documentation site, drawn by the project's own code on every docs build.

`docs/hooks.py` calls `make_pictures()` when MkDocs builds the site and puts what it returns in the site's
`pictures/` folder, so nothing of it is committed and nothing goes stale. A page asks for one with a line
`<!-- picture:NAME -->` (invisible on GitHub); `MARKERS` says what each name shows:

* `game`: a looping GIF of a 3-player unocorns game between three baselines, as a spectator sees it, each
  picture captioned with who just did what (`uno_env.replay.replay_frames`, `uno_env.picture.save_animation`);
* `cards`: every preset's deck, one picture per preset (`uno_env.picture.draw_card`);
* `tournament`: the plot `uno-arena --out` writes, from the command in `TOURNAMENT`;
* `learning-curve`: the plot `uno-train` writes, from the short run in `TRAINING` (needs the train extra).

Everything is seeded, so every build draws the same pictures. GitHub cannot run the build, so the README shows
a committed copy of the GIF, which this script writes (a test checks that it is what the build makes):

    python scripts/make_pictures.py                # .github/assets/unocorns-game.gif, for the README
    python scripts/make_pictures.py --out DIR      # every picture, as the docs build makes them
"""

from __future__ import annotations

import argparse
import contextlib
import io
import shlex
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from uno_env import picture as P
from uno_env.game import Game
from uno_env.records import write_atomic
from uno_env.rules import VARIANTS, make_rules

ROOT = Path(__file__).resolve().parents[1]
README_GIF = ROOT / ".github" / "assets" / "unocorns-game.gif"

# The game on the home page: a short unocorns round (44 decisions) in which three Wild Narwhal Rules are played.
GAME_VARIANT, GAME_SEED, GAME_AGENTS = "unocorns", 0, ("counter", "greedy", "naive")
GAME_FPS = 1.5  # pictures a second
GAME_HOLD = 5  # the last picture (the winner) shows this many times as long
GAME_MAX_FRAMES = 120

# The commands whose plots the site shows, run as written (the captions quote them).
TOURNAMENT = "uno-arena --agents counter greedy naive random --variant classic --players 2 --games 2400 --seed 0"
TRAINING = (
    "uno-train --variant classic --players 2 --total-steps 20480 --num-envs 256 --rollout-steps 16"
    " --minibatch-size 2048 --hidden 64 --imitate counter --imitate-steps 20480 --eval-every 1 --eval-games 400"
    " --eval-against counter greedy --seed 0 --device cpu"
)


# ------------------------------------------------------------------------------------------------- the game


def game_record(variant: str = GAME_VARIANT, seed: int = GAME_SEED, agents: tuple[str, ...] = GAME_AGENTS) -> dict:
    """The record of one round between `agents` (one per seat, by name), played to its end."""
    from uno_env.agents.registry import make_agent
    from uno_env.seats import SeatLoop

    game = Game(variant, len(agents), seed=seed)
    loop = SeatLoop(game.batch, [make_agent(name, seed=seed + k) for k, name in enumerate(agents)], labels=agents)
    first = np.zeros(1, np.int64)
    while not game.batch.done[0]:
        seat = int(game.batch.state_array["seat"][0])
        game.step(int(loop.decide(seat, first)[0]))
    return game.to_record(agents=list(agents))


def game_frames() -> list[np.ndarray]:
    """The pictures of the game as a spectator sees it (every card face up), each under a caption saying who just
    did what: what `uno-replay RECORD --out game.gif` draws (`uno_env.replay.replay_frames`)."""
    from uno_env.replay import replay_frames

    return list(replay_frames(game_record(), None, count=GAME_MAX_FRAMES))


def save_game_gif(path: Path) -> None:
    """The game as a looping GIF, its last picture held `GAME_HOLD` times as long."""
    frames = game_frames()
    P.save_animation(frames + [frames[-1]] * (GAME_HOLD - 1), path, fps=GAME_FPS)


# ------------------------------------------------------------------------------------------------ the cards

CARD_W, CARD_H, GAP, LABEL, MARGIN, HEADER = 56, 84, 8, 18, 16, 34


def save_card_gallery(path: Path, variant: str) -> None:
    """Every kind of card in `variant`'s deck, drawn as the table draws it: a row per colour (0 to 9, Skip,
    Reverse, Draw Two) and a row of wild cards, each with its copies in the deck under it."""
    rules = make_rules(variant)
    counts = rules.card_counts_by_code()
    letters = [code[0] for code in counts if not code.startswith("W")]
    rows = [[code for code in counts if code[0] == letter] for letter in dict.fromkeys(letters)]
    rows.append([code for code in counts if code.startswith("W")])
    columns = max(len(row) for row in rows)
    width = 2 * MARGIN + columns * CARD_W + (columns - 1) * GAP
    height = HEADER + MARGIN + len(rows) * (CARD_H + LABEL + GAP)
    image = Image.new("RGB", (width, height), P.BACKGROUND)
    draw = ImageDraw.Draw(image)
    title = f"{variant}: {rules.deck_size} cards in {', '.join(rules.colors)}; under each card, its copies in the deck"
    draw.text((MARGIN, MARGIN), title, font=ImageFont.load_default(size=16), fill=P.TEXT)
    small = ImageFont.load_default(size=12)
    for r, row in enumerate(rows):
        y = HEADER + MARGIN + r * (CARD_H + LABEL + GAP)
        for c, code in enumerate(row):
            x = MARGIN + c * (CARD_W + GAP)
            P.draw_card(draw, x, y, CARD_W, CARD_H, code, rules.colors)
            draw.text((x + CARD_W / 2, y + CARD_H + 3), f"x{counts[code]}", font=small, fill=P.DIM, anchor="ma")
    write_atomic(path, lambda temporary: image.save(temporary, format="PNG", optimize=True))


# ------------------------------------------------------------------------------------------------ the plots


def run_command(command: str, entry_point: Callable[[list[str]], int], out: Path) -> None:
    """Run a documented command (its entry point, in this process) with `--out out --no-progress`, its
    printing kept quiet; a failure raises RuntimeError with what it printed."""
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(printed):
        try:
            code = entry_point([*shlex.split(command)[1:], "--no-progress", "--out", str(out)])
        except SystemExit as exit:
            code = exit.code
    if code not in (0, None):
        raise RuntimeError(f"`{command}` failed ({code}):\n{printed.getvalue()[-2000:]}")


def save_tournament_plot(path: Path) -> None:
    from uno_env.arena.tournament import main

    with tempfile.TemporaryDirectory() as folder:
        run_command(TOURNAMENT, main, Path(folder))
        write_atomic(path, (Path(folder) / "tournament.png").read_bytes())


def save_learning_curve(path: Path) -> None:
    from uno_env.train.native_ppo import main

    with tempfile.TemporaryDirectory() as folder:
        run_command(TRAINING, main, Path(folder))
        write_atomic(path, (Path(folder) / "learning_curve.png").read_bytes())


# ---------------------------------------------------------------------------------------- what pages ask for


@dataclass(frozen=True)
class Picture:
    file: str  # its name in the site's pictures/ folder
    make: Callable[[Path], None]
    alt: str
    tab: str = ""  # the tab it shows in, for a marker of several pictures


def _gallery(variant: str) -> Picture:
    return Picture(
        f"cards-{variant}.png", lambda path: save_card_gallery(path, variant), f"The {variant} deck", variant
    )


MARKERS: dict[str, tuple[list[Picture], str]] = {
    "game": (
        [Picture("unocorns-game.gif", save_game_gif, "A 3-player unocorns game between counter, greedy and naive")],
        "A 3-player unocorns round, every card face up: "
        + ", ".join(f"`{name}` as player_{seat}" for seat, name in enumerate(GAME_AGENTS))
        + f" (seed {GAME_SEED}), drawn when the site is built as `uno-replay` draws a record "
        "(`uno_env.replay.replay_frames`).",
    ),
    "cards": (
        [_gallery(variant) for variant in VARIANTS],
        "Every kind of card in each preset's deck, as `uno_env.picture.draw_card` draws them on the table.",
    ),
    "tournament": (
        [Picture("tournament.png", save_tournament_plot, "The tournament plot of uno-arena")],
        f"Made when the site is built by `{TOURNAMENT} --out DIR` (its `tournament.png`): win rates with 95% "
        "intervals against the fair share (dashed), and who beat whom.",
    ),
    "learning-curve": (
        [Picture("learning-curve.png", save_learning_curve, "The learning curve of a short uno-train run")],
        f"Made when the site is built by a run of a few seconds, `{TRAINING} --out DIR` (its `learning_curve.png`): "
        "five updates of kickstarting, in which a small network learns `counter`'s moves (the first phase of every "
        "shipped policy's training), evaluated after each update. A 30-minute run's curve is on the "
        "[results page](results.md).",
    ),
}


def make_pictures(folder: Path, markers: list[str] | None = None) -> dict[str, Path]:
    """Draw the pictures of `markers` (default: all) into `folder`: {file name: path}."""
    made = {}
    for marker in markers or list(MARKERS):
        for item in MARKERS[marker][0]:
            item.make(folder / item.file)
            made[item.file] = folder / item.file
    return made


_DRAWN: dict[str, dict[str, bytes]] = {}


def drawn(marker: str) -> dict[str, bytes]:
    """A marker's pictures as {file name: contents}, drawn once per process: the rebuilds of `mkdocs serve` reuse
    them (restart it to draw them again)."""
    if marker not in _DRAWN:
        with tempfile.TemporaryDirectory() as folder:
            _DRAWN[marker] = {file: path.read_bytes() for file, path in make_pictures(Path(folder), [marker]).items()}
    return _DRAWN[marker]


def markdown(marker: str, prefix: str = "") -> str:
    """The markdown that shows a marker's pictures (`prefix`: the path from the page to the pictures), with
    its caption; several pictures become content tabs."""
    items, caption = MARKERS[marker]
    if len(items) == 1:
        return f"![{items[0].alt}]({prefix}{items[0].file})\n\n*{caption}*"
    tabs = [f'=== "{item.tab}"\n\n    ![{item.alt}]({prefix}{item.file})\n' for item in items]
    return "\n".join(tabs) + f"\n*{caption}*"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, help="write every picture here (default: only the README's GIF)")
    args = parser.parse_args(argv)
    if args.out is None:
        README_GIF.parent.mkdir(parents=True, exist_ok=True)
        save_game_gif(README_GIF)
        print(f"wrote {README_GIF.relative_to(ROOT)}")
        return 0
    args.out.mkdir(parents=True, exist_ok=True)
    for path in make_pictures(args.out).values():
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
