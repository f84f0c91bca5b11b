"""The command-line convention of the project's commands (uno-arena, uno-play, uno-train, uno-train-sb3,
uno-train-rllib), on the standard library's argparse.

One vocabulary with one meaning everywhere: `--variant`, `--players`, `--option NAME=VALUE` (repeatable),
`--observation`, `--episode`, `--num-envs`, `--seed`, `--out`, `--device` (the `add_*` helpers). `--variant` names
a variant (`uno_env.rules.VARIANTS`; the rule set made from it and the options is the rules);
`--num-envs` is always the games stepped together (Gymnasium's `num_envs`), never a minibatch (that is
`--minibatch-size`). A bad value is refused by the parser with one line on stderr,
`PROG: error: MESSAGE (see PROG --help)`, and exit status 2 (`ArgumentParser`); numbers with a range are checked
by the typed converters here (`positive_int`, `player_count`, `int_in_range(low, high)`,
`number_in_range(low, high)`, ...). Older spellings stay as hidden aliases for a
release: accepted, not shown in --help.

The trainers keep their settings in a dataclass with a docstring under each field (CleanRL style);
`parser_from_dataclass` makes a flag of every field (`foo_bar` -> `--foo-bar`, its docstring the help), and
`Annotated[type, converter]` or `Annotated[type, Flag(...)]` on a field adds a range check, choices or hidden
older spellings.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import inspect
import math
import re
import textwrap
import types
import typing
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn

from .observation import LEVELS
from .rules import MAX_PLAYERS, MIN_PLAYERS, OPTION_NAMES, VARIANTS, make_rules
from .validate import EPISODES

OBSERVATIONS = LEVELS
DEVICE_HELP = "auto (cuda when there is one), cpu, cuda or cuda:N"


class ArgumentParser(argparse.ArgumentParser):
    """argparse with the project's error: one line, `PROG: error: MESSAGE (see PROG --help)`, and exit 2."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("allow_abbrev", False)  # flags are spelled out: no prefix of one stands for it
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        message = " ".join(str(message).split())  # one line, whatever the message
        if message.startswith("unrecognized arguments") and re.search(r"(^|\s)[a-z_]+=", message.split(":", 1)[1]):
            message += "; give each rule option its own --option NAME=VALUE"
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


# ---------------------------------------------------------------------------------------- typed converters
def _int_converter(low: int | None = None, high: int | None = None) -> Callable[[str], int]:
    if low is not None and high is not None:
        allowed = f"an int from {low} to {high}"
    elif low is not None:
        allowed = f"an int >= {low}"
    else:
        allowed = "an int"

    def convert(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be {allowed}, got {text!r}") from None
        if (low is not None and value < low) or (high is not None and value > high):
            raise argparse.ArgumentTypeError(f"must be {allowed}, got {text!r}")
        return value

    return convert


def _float_converter(allowed: str, ok: Callable[[float], bool]) -> Callable[[str], float]:
    def convert(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be {allowed}, got {text!r}") from None
        if not math.isfinite(value) or not ok(value):
            raise argparse.ArgumentTypeError(f"must be {allowed}, got {text!r}")
        return value

    return convert


def int_in_range(low: int, high: int) -> Callable[[str], int]:
    """An argparse `type`: an int from `low` to `high`, else one line saying the range (for a count a file or
    a flag decides, so that no value can ask for unbounded work)."""
    return _int_converter(low, high)


def number_in_range(low: float, high: float, what: str = "a number") -> Callable[[str], float]:
    """An argparse `type`: a finite number from `low` to `high`, else one line saying the range (`what` the number
    is, as the error says it: "a number of seconds")."""
    return _float_converter(f"{what} from {low:g} to {high:g}", lambda x: low <= x <= high)


integer = _int_converter()
positive_int = _int_converter(1)
nonnegative_int = _int_converter(0)
player_count = _int_converter(MIN_PLAYERS, MAX_PLAYERS)
number = _float_converter("a number", lambda x: True)
positive_float = _float_converter("a number > 0", lambda x: x > 0)
nonnegative_float = _float_converter("a number >= 0", lambda x: x >= 0)
fraction = _float_converter("a number from 0 to 1", lambda x: 0 <= x <= 1)


def variant_name(text: str) -> str:
    """A variant's name (`uno_env.rules.VARIANTS`)."""
    if text not in VARIANTS:
        raise argparse.ArgumentTypeError(f"unknown variant {text!r}; the variants are {', '.join(VARIANTS)}")
    return text


def device_name(text: str) -> str:
    """A torch device as the trainers take it (whether it exists here is checked by `uno_env.train.check_device`)."""
    if text not in ("auto", "cpu") and not re.fullmatch(r"cuda(:\d+)?", text):
        raise argparse.ArgumentTypeError(f"must be {DEVICE_HELP}, got {text!r}")
    return text


# ---------------------------------------------------------------------------------------- rule options
def parse_option(text: str) -> tuple[str, Any]:
    """A rule option NAME=VALUE as (name, value): true/false are bools, Python literals (ints, floats, quoted
    strings, {...} mappings for card_counts/card_points) their value, anything else the text itself."""
    if "=" not in text:
        raise argparse.ArgumentTypeError(f"rule options are NAME=VALUE (e.g. stack_draw_two=true), got {text!r}")
    name, raw = (part.strip() for part in text.split("=", 1))
    if name not in OPTION_NAMES:
        raise argparse.ArgumentTypeError(f"unknown rule option {name!r}; the options are {', '.join(OPTION_NAMES)}")
    if raw.lower() in ("true", "false"):
        return name, raw.lower() == "true"
    try:
        return name, ast.literal_eval(raw)
    except (ValueError, SyntaxError):
        return name, raw


def option_text(text: str) -> str:
    """A rule option NAME=VALUE checked by `parse_option` and kept as text (settings store the text)."""
    name, _ = parse_option(text)
    return f"{name}={text.split('=', 1)[1].strip()}"


def rule_options(texts: Sequence[str]) -> dict[str, Any]:
    """NAME=VALUE texts as keyword arguments of `uno_env.make_rules` (a later one wins)."""
    return dict(parse_option(text) for text in texts)


def checked_rule_options(
    parser: argparse.ArgumentParser, variant: str, texts: Sequence[str], players: int | None = None
) -> dict[str, Any]:
    """The rule options of `texts`, refused by `parser` (one line, exit 2) unless `make_rules` takes them with
    `variant` and the rule set can deal for `players`."""
    options = rule_options(texts)
    try:
        rules = make_rules(variant, **options)
        if players is not None:
            rules.check_players(players)
    except ValueError as error:
        parser.error(f"the rules refuse these settings: {error}")
    return options


# ---------------------------------------------------------------------------------------- the shared flags
def _help(text: str, default: Any) -> str:
    """A flag's help: its text and default, with argparse's % escaped."""
    return f"{_escape(text)} (default: {_escape(_shown(default))})"


def _shown(value: Any) -> str:
    if value is None or value == "" or value == ():
        return "none"
    if isinstance(value, (tuple, list)):
        return " ".join(map(str, value))
    return str(value)


def add_variant(
    parser: argparse.ArgumentParser, default: str = "classic", help: str = "the variant: which rules"
) -> argparse.Action:
    return parser.add_argument(
        "--variant", type=variant_name, choices=VARIANTS, default=default, help=_help(help, default)
    )


def add_players(
    parser: argparse.ArgumentParser, default: int = 2, help: str = "players at the table, 2 to 10"
) -> argparse.Action:
    return parser.add_argument("--players", type=player_count, default=default, metavar="N", help=_help(help, default))


def add_option(
    parser: argparse.ArgumentParser,
    default: Sequence[str] = (),
    help: str = "a rule option over the variant's defaults (`uno_env.rules.OPTION_NAMES`), e.g. stack_draw_two=true; "
    "repeat it for more",
) -> argparse.Action:
    """`--option NAME=VALUE`, repeatable, into `options` (checked texts); `--options A=1 B=2` is a hidden
    older spelling that takes several at once."""
    action = parser.add_argument(
        "--option", dest="options", type=option_text, action="append", default=list(default), metavar="NAME=VALUE",
        help=_help(help, tuple(default)),
    )  # fmt: skip
    parser.add_argument(
        "--options", dest="options", type=option_text, action="extend", nargs="+", default=argparse.SUPPRESS,
        help=argparse.SUPPRESS,
    )  # fmt: skip
    return action


def add_observation(
    parser: argparse.ArgumentParser,
    default: str = "knowledge",
    help: str = "the observation level the policy reads",
    levels: Sequence[str] = OBSERVATIONS,
) -> argparse.Action:
    return parser.add_argument("--observation", choices=tuple(levels), default=default, help=_help(help, default))


def add_episode(
    parser: argparse.ArgumentParser,
    default: str = "round",
    help: str = "an episode (a game) is one round, or a whole match to the target score",
) -> argparse.Action:
    """`--episode round|match` (`uno_env.validate.EPISODES`), as `GameBatch(episode=...)` takes it."""
    return parser.add_argument("--episode", choices=EPISODES, default=default, help=_help(help, default))


def add_num_envs(
    parser: argparse.ArgumentParser,
    default: int,
    help: str = "games stepped together",
    aliases: Sequence[str] = (),
) -> argparse.Action:
    """`--num-envs N`: the games stepped together (a speed setting: the games are the same at any width);
    `aliases` are a command's hidden older spellings (uno-arena's `--batch-size`)."""
    action = parser.add_argument(
        "--num-envs", type=positive_int, default=default, metavar="INT", help=_help(help, default)
    )
    _add_aliases(parser, aliases, action)
    return action


def add_seed(parser: argparse.ArgumentParser, default: int | None = 0, help: str = "the seed") -> argparse.Action:
    return parser.add_argument(
        "--seed", type=nonnegative_int, default=default, metavar="INT", help=_help(help, default)
    )


def add_out(parser: argparse.ArgumentParser, default: str | Path, help: str = "the output folder") -> argparse.Action:
    return parser.add_argument("--out", type=Path, default=Path(default), metavar="DIR", help=_help(help, default))


def add_device(parser: argparse.ArgumentParser, default: str = "auto", help: str = DEVICE_HELP) -> argparse.Action:
    return parser.add_argument(
        "--device", type=device_name, default=default, metavar="DEVICE", help=_help(help, default)
    )


#: settings fields that are the shared vocabulary, and the helper that adds each one's flag
SHARED_FIELDS: dict[str, Callable[..., argparse.Action]] = {
    "variant": add_variant, "players": add_players, "options": add_option, "observation": add_observation,
    "episode": add_episode, "num_envs": add_num_envs, "seed": add_seed, "out": add_out, "device": add_device,
}  # fmt: skip


# ---------------------------------------------------------------------------------------- dataclass settings
@dataclasses.dataclass(frozen=True)
class Flag:
    """What `Annotated[type, Flag(...)]` adds to a settings field's flag: a converter of one value (of each
    item, for a tuple), choices, and hidden older spellings (e.g. "--checkpoint-dir")."""

    type: Callable[[str], Any] | None = None
    choices: tuple[str, ...] | None = None
    aliases: tuple[str, ...] = ()


class ConfigParser(ArgumentParser):
    """A parser made from a settings dataclass by `parser_from_dataclass`; `parse_config` gives the settings."""

    def __init__(self, config_class: type, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.config_class = config_class

    def parse_config(self, argv: Sequence[str] | None = None) -> Any:
        """The settings of `argv`: parsed, their rule options checked against the variant (and player count),
        and the settings' own `validate()` run, if they have one; anything refused exits 2 with one line."""
        namespace = self.parse_args(argv)
        values = {}
        for field in dataclasses.fields(self.config_class):
            if field.init and hasattr(namespace, field.name):
                value = getattr(namespace, field.name)
                values[field.name] = tuple(value) if isinstance(value, list) else value
        config = self.config_class(**values)
        if "variant" in values and "options" in values:
            checked_rule_options(self, config.variant, config.options, values.get("players"))
        validate = getattr(config, "validate", None)
        if validate is not None:
            try:
                validate()
            except ValueError as error:
                self.error(str(error))
        return config


def parser_from_dataclass(
    config_class: type,
    *,
    prog: str,
    description: str | None = None,
    parser_class: type[ConfigParser] = ConfigParser,
    **kwargs: Any,
) -> ConfigParser:
    """A parser (a `parser_class`) with a flag for every field of `config_class`, documented by the field's docstring
    and default.

    `foo_bar` becomes `--foo-bar`; a bool `--x/--no-x`; a tuple takes several values (none allowed when its
    default is empty); `X | None` takes an X. ints and floats are checked (`integer`, `number`, or the converter
    given with `Annotated`); the shared vocabulary (`SHARED_FIELDS`) comes from its `add_*` helper."""
    description = description or inspect.getdoc(config_class)
    parser = parser_class(config_class, prog=prog, description=description, **kwargs)
    docs = field_docstrings(config_class)
    hints = typing.get_type_hints(config_class, include_extras=True)
    for field in dataclasses.fields(config_class):
        if field.init:
            _add_field(parser, field, hints[field.name], docs.get(field.name, field.name.replace("_", " ")))
    return parser


def field_docstrings(config_class: type) -> dict[str, str]:
    """The docstring under each field of a class, read from its source, as one line each."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(config_class)))
    body = tree.body[0].body
    docs = {}
    for statement, following in zip(body, body[1:], strict=False):
        if (
            isinstance(statement, ast.AnnAssign)
            and isinstance(statement.target, ast.Name)
            and isinstance(following, ast.Expr)
            and isinstance(following.value, ast.Constant)
            and isinstance(following.value.value, str)
        ):
            docs[statement.target.id] = " ".join(following.value.value.split())
    return docs


def _add_field(parser: ArgumentParser, field: dataclasses.Field, hint: Any, doc: str) -> None:
    flag = Flag()
    if typing.get_origin(hint) is typing.Annotated:
        hint, *extras = typing.get_args(hint)
        for extra in extras:
            flag = extra if isinstance(extra, Flag) else dataclasses.replace(flag, type=extra)
    if field.default is not dataclasses.MISSING:
        default = field.default
    elif field.default_factory is not dataclasses.MISSING:
        default = field.default_factory()
    else:
        raise TypeError(f"{field.name}: a settings field needs a default")
    name = field.name
    if name in SHARED_FIELDS:
        levels = {"levels": flag.choices} if name == "observation" and flag.choices else {}
        _add_aliases(parser, flag.aliases, SHARED_FIELDS[name](parser, default, doc, **levels))
        return
    optional = False
    if typing.get_origin(hint) in (typing.Union, types.UnionType) and type(None) in typing.get_args(hint):
        (hint,) = [arg for arg in typing.get_args(hint) if arg is not type(None)]
        optional = True
    option = f"--{name.replace('_', '-')}"
    settings: dict[str, Any] = {"default": default, "dest": name}
    if hint is bool:
        settings.update(action=argparse.BooleanOptionalAction, help=f"{_escape(doc)} (default: %(default)s)")
    else:
        item = hint
        if typing.get_origin(hint) is tuple:
            item, *rest = typing.get_args(hint)
            if rest != [Ellipsis]:
                raise TypeError(f"{name}: only tuple[X, ...] settings are supported")
            settings.update(nargs="*" if not default else "+", default=list(default))
        converter = flag.type or {int: integer, float: number}.get(item, item)
        settings.update(type=converter, metavar=_metavar(item), help=_help(doc, default))
        if flag.choices is not None:
            settings.update(choices=flag.choices, metavar=None)
    if optional and default is not None:
        raise TypeError(f"{name}: an X | None setting needs the default None")
    action = parser.add_argument(option, **settings)
    _add_aliases(parser, flag.aliases, action)


def _add_aliases(parser: ArgumentParser, aliases: Sequence[str], action: argparse.Action) -> None:
    """Older spellings of `action`'s flag that work as it does and are not shown in --help."""
    settings: dict[str, Any] = {"dest": action.dest, "action": type(action)}
    if not isinstance(action, argparse.BooleanOptionalAction):
        settings.update(type=action.type, choices=action.choices, nargs=action.nargs, metavar=action.metavar)
    for alias in aliases:
        parser.add_argument(alias, default=argparse.SUPPRESS, help=argparse.SUPPRESS, **settings)


def _metavar(item: Any) -> str:
    return {int: "INT", float: "FLOAT", Path: "PATH"}.get(item, "STR")


def _escape(text: str) -> str:
    return text.replace("%", "%%")


__all__ = [
    "ArgumentParser",
    "ConfigParser",
    "Flag",
    "add_device",
    "add_episode",
    "add_num_envs",
    "add_observation",
    "add_option",
    "add_out",
    "add_players",
    "add_seed",
    "add_variant",
    "checked_rule_options",
    "device_name",
    "fraction",
    "int_in_range",
    "integer",
    "nonnegative_float",
    "nonnegative_int",
    "number",
    "number_in_range",
    "option_text",
    "parse_option",
    "parser_from_dataclass",
    "player_count",
    "positive_float",
    "positive_int",
    "rule_options",
    "variant_name",
]
