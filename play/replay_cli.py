"""uno-replay: a game record as a standalone HTML replay, an animated GIF or an MP4.

    uno-replay game.json                        # game.html beside it: the interactive replay, every view
    uno-replay game.json --out game.gif         # the pictures of each step, captioned (a spectator's view)
    uno-replay game.json --out seat1.gif --seat 1 --fps 2
    uno-replay game.json --format mp4           # game.mp4 (needs imageio-ffmpeg)

The output's suffix (.html, .gif or .mp4) chooses what is written, or `--format` does when no `--out` is given (the
record's name with that suffix, beside it). `--seat N` shows the game as seat N saw it live (`uno_env.render`
decides what a seat sees): in a page that seat's view alone, in a GIF or MP4 its pictures. Each picture has a caption
saying who just did what. A GIF or MP4 holds at most `uno_env.replay.MAX_FRAMES` pictures (`--start`, `--frames`).

A record is data: it is read as JSON by `uno_env.records.load_record` (never unpickled or evaluated), every field
checked, and replayed by the engine, which refuses an illegal action or another result. Every refusal is one line on
stderr and exit status 2, before anything is written; a failed write leaves an old file whole.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from uno_env import cli
from uno_env.records import RecordError, load_record
from uno_env.replay import (
    DEFAULT_FRAMES,
    MAX_FRAMES,
    MP4_NEEDS,
    PAGE_SUFFIXES,
    VIDEO_SUFFIXES,
    mp4_writer,
    replay_data,
    save_replay,
)

FORMATS = {"html": ".html", "gif": ".gif", "mp4": ".mp4"}
MAX_RECORD_FILE_BYTES = 256 * 1024 * 1024  # a record of 100,000 decisions with long details is well under this


def build_parser() -> cli.ArgumentParser:
    """The `uno-replay` command line (`uno_env.cli`'s convention)."""
    parser = cli.ArgumentParser(
        prog="uno-replay",
        description="Write a game record (uno-arena --save-games, uno-play --save, Game.to_record) as a standalone "
        "HTML replay, an animated GIF or an MP4.",
    )
    parser.add_argument("record", type=Path, metavar="RECORD", help="the game record, a JSON file")
    parser.add_argument(
        "--out", "-o", type=Path, metavar="PATH",
        help="the file to write: .html (an interactive page), .gif or .mp4 (pictures of each step) (default: the "
        "record's name with the --format suffix, beside it)",
    )  # fmt: skip
    parser.add_argument(
        "--format", choices=sorted(FORMATS), metavar="FORMAT",
        help="html, gif or mp4: what to write when --out is not given; with --out it must agree with its suffix "
        "(default: html, or --out's suffix)",
    )  # fmt: skip
    parser.add_argument(
        "--seat", type=cli.nonnegative_int, metavar="INT",
        help="show the game as this seat saw it live (default: a spectator who sees every card; a page offers "
        "every view)",
    )  # fmt: skip
    parser.add_argument(
        "--fps", type=cli.positive_float, default=1.5, metavar="FLOAT",
        help="pictures a second in a GIF or MP4, at most 60 (default: 1.5)",
    )  # fmt: skip
    parser.add_argument(
        "--start", type=cli.nonnegative_int, default=0, metavar="INT",
        help="the first moment in a GIF or MP4: 0 is the deal, N the view's Nth step (default: 0)",
    )  # fmt: skip
    parser.add_argument(
        "--frames", type=cli.positive_int, default=DEFAULT_FRAMES, metavar="INT",
        help=f"pictures in a GIF or MP4 at most, from --start (1 to {MAX_FRAMES}; default: {DEFAULT_FRAMES})",
    )  # fmt: skip
    parser.add_argument("--title", metavar="TEXT", help="the page's title (default: the variant, players and agents)")
    return parser


def output_path(args: argparse.Namespace) -> Path:
    """Where to write: --out, else the record's name with the --format suffix (default .html); a ValueError saying
    what is allowed when the suffix is none of .html, .gif, .mp4, or disagrees with --format."""
    if args.out is None:
        return args.record.with_suffix(FORMATS[args.format or "html"])
    suffix = args.out.suffix.lower()
    if suffix not in PAGE_SUFFIXES + VIDEO_SUFFIXES:
        raise ValueError(f"--out must end in .html, .gif or .mp4, got {str(args.out)!r}")
    if args.format is not None and FORMATS[args.format] != {".htm": ".html"}.get(suffix, suffix):
        raise ValueError(f"--format {args.format} disagrees with --out {str(args.out)!r}; give one or make them agree")
    return args.out


def read_record(path: Path) -> dict:
    """The checked record in `path` (`load_record`), or a RecordError / OSError with one line saying why not."""
    if not path.is_file():
        raise RecordError(f"no record file {str(path)!r}" + (" (it is a folder)" if path.is_dir() else ""))
    size = path.stat().st_size
    if size > MAX_RECORD_FILE_BYTES:
        raise RecordError(f"{str(path)!r} is {size:,} bytes: a record file is at most {MAX_RECORD_FILE_BYTES:,}")
    return load_record(path)


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    out = video = moments = None
    try:
        if args.frames > MAX_FRAMES:
            raise ValueError(f"--frames must be an int from 1 to {MAX_FRAMES}, got {args.frames}")
        if args.fps > 60:
            raise ValueError(f"--fps must be a number above 0 and at most 60, got {args.fps:g}")
        out = output_path(args)
        if out.is_dir() or not out.parent.is_dir():
            raise ValueError(f"the output must be a file in an existing folder, got {str(out)!r}")
        if out.resolve() == args.record.resolve():
            raise ValueError(f"the output would replace the record {str(args.record)!r}: give another --out")
        if out.suffix.lower() == ".mp4":
            mp4_writer()  # before the record is read and replayed
        record = read_record(args.record)
        players = record["num_players"]
        if args.seat is not None and args.seat >= players:
            raise ValueError(f"--seat must be a seat from 0 to {players - 1} of this {players}-player game")
        video = out.suffix.lower() in VIDEO_SUFFIXES
        if video:
            view = "the spectator's view" if args.seat is None else f"player_{args.seat}'s view"
            data = replay_data(record, viewers=[args.seat], title=args.title)  # replays it: an illegal action fails
            moments = len(next(iter(data["views"].values()))["steps"])
            if args.start >= moments:
                raise ValueError(f"--start must be a moment from 0 to {moments - 1} of {view}, got {args.start}")
        else:
            data = None
        save_replay(record, out, viewer=args.seat, fps=args.fps, start=args.start, frames=args.frames,
                    title=args.title, data=data)  # fmt: skip
    except ImportError as error:  # an .mp4 without imageio-ffmpeg
        parser.error(str(error) if MP4_NEEDS in str(error) else f"{MP4_NEEDS} ({error})")
    except (RecordError, ValueError) as error:
        parser.error(str(error))
    except OSError as error:
        parser.error(f"cannot read {str(args.record)!r} or write {str(out)!r}: {error.strerror or error}")
    if video:
        shown = min(args.frames, moments - args.start)
        last = args.start + shown - 1
        print(f"{out}: {shown} pictures ({view}, moments {args.start} to {last} of 0 to {moments - 1}"
              + ("; --start and --frames show the others)" if shown < moments else ")"))  # fmt: skip
    else:
        print(f"{out}: the interactive replay ({len(record['actions'])} decisions; open it in a browser)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
