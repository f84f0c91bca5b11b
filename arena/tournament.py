"""uno-arena: tournaments of agents, batched through the compiled engine, with paired seeds and rotated seats.

    uno-arena --agents greedy counter --variant classic --players 2 --games 20000 --out results/
    uno-arena --agents counter greedy --players 4 --lineup counter greedy greedy greedy --option stack_draw_two=true
    uno-arena --agents random greedy --games 2000 --save-games games/   # and 3 sample games per lineup as records
    uno-arena --agents counter ppo:runs/a/policy.pt --name trained=ppo:runs/a/policy.pt   # a short label

A tournament plays lineups (one agent name per seat): the given `lineup`; else the agents repeated to fill
the seats; else, with more agents than seats, every combination of them (a round robin), the games split
evenly. Every seed is played once under each of the N rotations of a lineup, and the same seeds in every
lineup (paired seeds: the same deals for every seating, which cuts the variance of comparisons),
thousands of games at a time. The
report gives per agent its win rate with a 95% interval against its fair share, its mean points and a
Bradley-Terry rating (`uno_env.arena.ratings`), saved as JSON and CSV with a PNG plot whose title names the variant,
players, games and seed, and whose head-to-head cells show the games behind them. `--name ALIAS=AGENT` labels an
agent ALIAS in the table, the files and the plot (a label for a long file path); `llm` shows as its model's name,
`llm:MODEL`, and a text agent's decisions, fallbacks and tokens (as the chat server counted them) close the summary.
The same seed gives the same games and the same report. `run_tournament` is the Python function behind the command.

The command line is read once: the rules become one `RuleSet`, the agents' names are read by the agent catalogue
(`uno_env.agents.registry`: the names every command takes, `module:Class` with `--trust` included), which says
whether each can play the game, and each agent is built once, before any game. The games are played in chunks of
consecutive seeds (`--chunk-games`), each with its agents seeded from (seed, chunk) by a `ChunkPlayer` that holds the
rule set and the names: one after another here, or spread over Ray workers with `--ray-workers K` (and
`--ray-address auto` on a cluster; `uno_env.arena.ray_workers`), with the same records either way.

`--save-games DIR` writes the first `--save-games-count` games of each lineup as game records (`uno_env.records`,
with the agents' names per seat), to replay or view with `uno_env.replay` (`save_sample_games`); their actions
are traced as the tournament plays them.
"""

from __future__ import annotations

import argparse
import itertools
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from uno_env import VARIANTS, GameBatch, RuleSet, cli, make_rules
from uno_env import observation as O
from uno_env.agents.registry import AGENT_HELP, agent_names, can_play, make_agent, own_name, parse_agent
from uno_env.agents.text_agent import usage_line
from uno_env.agents.trust import USER_ERRORS, add_trust
from uno_env.extras import require_extra
from uno_env.game import DEFAULT_MAX_STEPS
from uno_env.records import RecordError, make_record, save_record
from uno_env.replay import replay
from uno_env.rewards import WIN
from uno_env.seats import SeatLoop, is_agent
from uno_env.vector import RESULT_DTYPE, settle

from .ratings import (
    GameResult,
    format_head_to_head,
    format_table,
    head_to_head,
    pairwise_games,
    pairwise_win_matrix,
    plot,
    relabel,
    summarize,
    wilson_interval,
    write_csv,
    write_json,
)


@dataclass
class TournamentResult:
    records: list[GameResult]
    summaries: list[Any]
    names: list[str]
    matrix: np.ndarray
    settings: dict[str, Any] = field(default_factory=dict)
    saved_games: list[Path] = field(default_factory=list)  # the record files of --save-games
    games: np.ndarray | None = None  # games[i, j]: the games in which names[i] and names[j] both played

    def table(self) -> str:
        """The summary table, then each pair that met alone at a table: the head-to-head results."""
        pairs = head_to_head(self.records, self.names)
        if not pairs:
            return format_table(self.summaries)
        return format_table(self.summaries) + "\n\nhead to head (the first agent's win rate):\n" + \
            format_head_to_head(pairs)  # fmt: skip


def play_games(
    agents: dict[str, Any],
    lineup: list[str],
    variant: RuleSet | str = "classic",
    *,
    games: int = 1000,
    seed: int = 0,
    batch_size: int = 2048,
    episode: str = "round",
    max_steps: int = 10_000,
    progress: bool = False,
    trace: dict[int, list[int]] | None = None,
    until_traced: bool = False,
    trace_details: dict[int, list[Any]] | None = None,
    **rule_options: Any,
) -> list[GameResult]:
    """Play `games` games (rounded up to whole rotations) of `lineup`; one GameResult each, in job order. The
    rules are a `RuleSet`, or a variant's name with `rule_options` (as `GameBatch` takes them).

    `trace` maps job indices (game numbers in job order) to lists that receive those games' action ids, in order,
    as they are played (the actions of a game record, `uno_env.records`); with `until_traced`, play stops as soon
    as every traced game has ended, and only the records finished by then are returned (the traced games are
    played exactly as in a whole run: the same batch, the same agents' draws up to then). `trace_details` maps
    traced jobs to lists that receive each decision's details (the record's `details`): what the deciding agent
    left in its `last_details` (a text agent's prompt, replies and move), else None."""
    n = len(lineup)
    seats_of = {name: i for i, name in enumerate(agents)}
    rotations = np.array([[seats_of[lineup[(p - r) % n]] for p in range(n)] for r in range(n)])
    num_seeds = -(-games // n)
    jobs = [(seed + i, r) for i in range(num_seeds) for r in range(n)]
    width = min(batch_size, len(jobs))
    batch = GameBatch(variant, n, width, episode=episode, max_steps=max_steps, **rule_options)
    s, cfg = batch.state_array, batch.config_array
    names = list(agents)
    # Binds every agent; asks each once per round for all its games (agents must not keep the arrays they get).
    seat_loop = SeatLoop(batch, [agents[name] for name in names], [f"agent {name!r}" for name in names])
    final_spec = seat_loop.specs[agents[names[0]].observation]

    owner = np.zeros((width, n), np.int64)  # agent index at each seat of each slot's game
    job_of = np.full(width, -1)
    playing = np.zeros(width, np.bool_)  # job_of >= 0: slots with a game to play
    rewards = np.zeros((width, n))
    results = np.zeros(width, RESULT_DTYPE)
    auto_seeds = np.zeros(width, np.uint64)
    final_obs = np.zeros((width, final_spec.size), np.int8)
    final_seats = np.zeros(width, np.int64)  # whose final observation `settle` writes (unread here)
    seated_names = [tuple(names[i] for i in rotation) for rotation in rotations]
    records: list[GameResult | None] = [None] * len(jobs)
    next_job = 0
    traced = np.zeros(width, np.bool_)  # slots playing a game in `trace`
    logs: list[list[int] | None] = [None] * width
    detail_logs: list[list[Any] | None] = [None] * width
    untraced = set(trace or ()) & set(range(len(jobs)))  # traced games not ended yet

    def load(slots: np.ndarray) -> None:
        nonlocal next_job
        take = slots[: max(0, min(len(slots), len(jobs) - next_job))]
        job_of[slots] = -1
        playing[slots] = False
        traced[slots] = False
        if take.size == 0:
            return
        which = np.zeros(width, np.bool_)
        seeds = np.zeros(width, np.uint64)
        for slot in take:
            job_seed, rotation = jobs[next_job]
            job_of[slot] = next_job
            owner[slot] = rotations[rotation]
            which[slot] = True
            seeds[slot] = job_seed
            if trace is not None and next_job in trace:
                traced[slot], logs[slot] = True, trace[next_job]
                detail_logs[slot] = trace_details.get(next_job) if trace_details is not None else None
            next_job += 1
        playing[take] = True
        batch.reset_where(which, seeds)

    def log(index: int, games: np.ndarray, actions: np.ndarray) -> None:
        hit = traced[games]
        if hit.any():
            given = getattr(seat_loop.agents[index], "last_details", None)  # one per game of its last decision
            given = given if isinstance(given, list) and len(given) == len(games) else [None] * len(games)
            for row in np.flatnonzero(hit).tolist():
                slot = int(games[row])
                logs[slot].append(int(actions[row]))
                if detail_logs[slot] is not None:
                    detail_logs[slot].append(given[row])

    def apply(games: np.ndarray, actions: np.ndarray) -> None:
        """Apply the actions; record the games that ended and deal the next jobs in their slots."""
        results["ended"][games] = 0
        settle(s, cfg, games, actions, WIN, rewards, results, auto_seeds, final_obs, final_seats, final_spec)
        ended = games[results["ended"][games] > 0]
        done = results[ended]
        for job, won, points, length in zip(
            job_of[ended].tolist(), done["winners"][:, :n].tolist(), done["scores"][:, :n].tolist(),
            done["length"].tolist(), strict=True,
        ):  # fmt: skip
            job_seed, rotation = jobs[job]
            winners = tuple(p for p, flag in enumerate(won) if flag)
            records[job] = GameResult(job_seed, seated_names[rotation], winners, tuple(points), length)
            untraced.discard(job)
        if ended.size:
            bar.update(ended.size)
            load(ended)

    bar = _progress(len(jobs), progress)
    load(np.arange(width))
    seat_loop.play(
        owner, playing, apply=apply, on_actions=log if trace is not None else None,
        stop=(lambda: not untraced) if until_traced else None,
    )  # fmt: skip
    bar.close()
    return [r for r in records if r is not None]


def win_rate_against(
    agent: Any,
    baseline: str,
    variant: str,
    num_players: int,
    *,
    games: int,
    seed: int,
    baseline_seed: int,
    trust: bool = False,
    **rule_options: Any,
) -> tuple[float, float, float]:
    """Win rate and its 95% Wilson interval of `agent` in one seat against `baseline` in every other seat
    (paired games, seats rotated): how the trainers evaluate a policy. `trust` is `make_agent`'s."""
    agents = {"learner": agent, baseline: make_agent(baseline, seed=baseline_seed, trust=trust)}
    lineup = ["learner"] + [baseline] * (num_players - 1)
    records = play_games(agents, lineup, variant, games=games, seed=seed, **rule_options)
    wins = sum(1 for r in records for seat in r.winners if r.lineup[seat] == "learner")
    low, high = wilson_interval(wins, len(records))
    return wins / len(records), low, high


def _progress(total: int, enabled: bool):
    from tqdm import tqdm

    return tqdm(total=total, unit="game", disable=not enabled, leave=False)


#: games per chunk (default): see `Chunk`
CHUNK_GAMES = 8192


@dataclass(frozen=True)
class Chunk:
    """The unit of a tournament's work: seeds first_seed .. first_seed + num_seeds - 1 of one lineup, each
    under every rotation, played by agents built for the chunk and seeded from (tournament seed, index), its
    first `samples` games traced as sample games (`--save-games`: the first chunk of each lineup). Its games
    depend on nothing else, so chunks can run here or on Ray workers (`uno_env.arena.ray_workers`)."""

    index: int
    lineup: tuple[str, ...]
    first_seed: int
    num_seeds: int
    samples: int = 0


@dataclass
class ChunkGames:
    """What a chunk gives back: its games' results in job order, and the actions of its sample games by job
    (the actions of a game record, `uno_env.records`)."""

    results: list[GameResult]
    samples: dict[int, list[int]] = field(default_factory=dict)
    details: dict[int, list[Any]] = field(default_factory=dict)  # the sample games' details, per decision
    stats: dict[str, dict[str, int]] = field(default_factory=dict)  # the chunk's own text agents' `stats()`


def tournament_chunks(
    lineups: list[list[str]], games_per_lineup: int, seed: int, chunk_games: int, samples: int = 0
) -> list[Chunk]:
    """Every lineup's seeds, in order, cut into chunks of about `chunk_games` games; each lineup's first chunk
    traces its first `samples` games."""
    if chunk_games < 1:
        raise ValueError(f"chunk_games must be at least 1, got {chunk_games}")
    chunks: list[Chunk] = []
    for table in lineups:
        num_seeds = -(-games_per_lineup // len(table))
        step = max(1, chunk_games // len(table))
        for start in range(0, num_seeds, step):
            size = min(step, num_seeds - start)
            traced = min(samples, size * len(table)) if start == 0 else 0
            chunks.append(Chunk(len(chunks), tuple(table), seed + start, size, traced))
    return chunks


def chunk_agent_seed(seed: int, chunk: int, agent: int) -> int:
    """The seed of the tournament's agent number `agent` in chunk number `chunk`."""
    return int(np.random.SeedSequence([seed % 2**64, chunk, agent]).generate_state(1, np.uint64)[0])


@dataclass(frozen=True)
class ChunkPlayer:
    """How a tournament plays its chunks, settled once: the rules, the agents' names (checked by
    `run_tournament`; a name's place here seeds its agents), the tournament seed and the play settings.
    `player(chunk)` builds the chunk's agents and plays it; the player is picklable, so Ray workers get it as
    it is (`uno_env.arena.ray_workers`) and play a chunk as this process would. `trust` is `make_agent`'s.
    `objects` are agents seated as objects, (label, agent): every chunk seats that very agent (in this process)."""

    rules: RuleSet
    agents: tuple[str, ...]
    seed: int
    trust: bool = False
    batch_size: int = 2048
    episode: str = "round"
    max_steps: int = DEFAULT_MAX_STEPS
    objects: tuple[tuple[str, Any], ...] = ()

    def build_agent(self, chunk: int, name: str) -> Any:
        """The agent `name` of chunk number `chunk`, seeded from (tournament seed, chunk, the name's place); an
        agent seated as an object is that object."""
        for label, agent in self.objects:
            if label == name:
                return agent
        return make_agent(name, seed=chunk_agent_seed(self.seed, chunk, self.agents.index(name)), trust=self.trust)

    def first_agents(self, chunks: list[Chunk]) -> dict[tuple[int, str], Any]:
        """Every agent built once, as the first chunk that seats it would build it, keyed (chunk index, name):
        a bad name or agent file fails here, before any game, and the chunks played here use these agents
        (an agent no chunk seats is built unseeded, only to check it)."""
        first_chunk = {}
        for chunk in chunks:
            for name in chunk.lineup:
                first_chunk.setdefault(name, chunk.index)
        built = {}
        for name in self.agents:
            if name in first_chunk:
                built[first_chunk[name], name] = self.build_agent(first_chunk[name], name)
            elif name not in dict(self.objects):
                make_agent(name, trust=self.trust)
        return built

    def __call__(self, chunk: Chunk, built: dict[tuple[int, str], Any] | None = None) -> ChunkGames:
        """Play `chunk` with its agents (those of `built`, `first_agents`, taken out of it; the others made
        now), tracing its sample games."""
        built = {} if built is None else built
        seated = {}
        for name in dict.fromkeys(chunk.lineup):
            key = (chunk.index, name)
            seated[name] = built.pop(key) if key in built else self.build_agent(*key)
        samples: dict[int, list[int]] = {job: [] for job in range(chunk.samples)}
        details: dict[int, list[Any]] = {job: [] for job in range(chunk.samples)}
        results = play_games(
            seated, list(chunk.lineup), self.rules, games=chunk.num_seeds * len(chunk.lineup), seed=chunk.first_seed,
            batch_size=self.batch_size, episode=self.episode, max_steps=self.max_steps, trace=samples or None,
            trace_details=details,
        )  # fmt: skip
        objects = dict(self.objects)
        stats = {name: agent.stats() for name, agent in seated.items()
                 if name not in objects and callable(getattr(agent, "stats", None))}  # fmt: skip
        return ChunkGames(results, samples, details, stats)


def run_tournament(
    agents: list[Any],
    variant: RuleSet | str = "classic",
    num_players: int = 2,
    *,
    games: int = 20_000,
    lineup: list[str] | None = None,
    seed: int = 0,
    batch_size: int = 2048,
    episode: str = "round",
    out: str | Path | None = None,
    progress: bool = True,
    chunk_games: int = CHUNK_GAMES,
    ray_workers: int = 0,
    ray_address: str | None = None,
    trust: bool = False,
    save_games: str | Path | None = None,
    save_games_count: int = 3,
    labels: Mapping[str, str] | None = None,
    **rule_options: Any,
) -> TournamentResult:
    """A tournament of agents by name (see the module docstring) under the rules `variant` (a `RuleSet`, or a
    variant's name with `rule_options`); writes reports to `out` if given, and with `save_games` (a folder) the
    first `save_games_count` games of each lineup as game records, traced as the tournament plays them
    (`save_sample_games`). `labels` ({agent: label}, `check_labels`) name agents in the results, the reports and the
    plot (`uno-arena --name`); an agent not labelled goes by its own name where that says more than the name it
    was made from (`llm` by its model's, `llm:MODEL`: `own_labels`); the sample games' records keep the names given.

    The rules are made and the agents' names checked once, here: the chunks (`Chunk`) of `chunk_games` get a
    `ChunkPlayer` holding the `RuleSet` and the names, and are played here one after another, or with
    `ray_workers` > 0 as that many Ray tasks at a time (`uno_env.arena.ray_workers`; `ray_address` is the cluster
    for `ray.init`), with the same records either way. `trust=True` lets `sb3:` and `rllib:` agents load (their
    files are unpickled, which can run code from them) and `module:Class` be imported (which runs its module's
    code): only for files and code you made or trust.

    An agent may also be given as an object (``run_tournament([TextAgent(model), "counter"])``): it is known by its
    `name` (`seat_objects`), seated as it is in every chunk, played in this process (not with `ray_workers`).
    Text agents' `stats()` (decisions, fallbacks, the tokens the chat server counted) go into the settings as
    `text_agents`, by label."""
    agents, objects = seat_objects(agents)
    lineups = _lineups(agents, num_players, lineup)
    labels = check_labels(labels or {}, agents)
    if isinstance(variant, RuleSet):
        if rule_options:
            raise ValueError("pass rule options either inside the RuleSet or as keywords with a variant name, not both")
        rules, rule_options = variant, _changed_options(variant)
    elif variant not in VARIANTS:
        raise ValueError(f"unknown variant {variant!r}; the variants are {', '.join(VARIANTS)}")
    else:
        rules = make_rules(variant, **rule_options)
    for name in dict.fromkeys(agents):  # what the catalogue knows: before any agent is loaded
        why = None if name in objects else can_play(name, rules.variant, num_players)
        if why is not None:
            raise ValueError(why)
    samples = 0
    if save_games is not None:
        samples = int(save_games_count)
        if samples < 1:
            raise ValueError(f"save_games_count must be at least 1, got {save_games_count}")
    chunks = tournament_chunks(lineups, -(-games // len(lineups)), seed, chunk_games, samples)
    if objects and ray_workers:
        raise ValueError("agents given as objects play in this process: give their names to play on Ray workers, or "
                         "ray_workers=0")  # fmt: skip
    player = ChunkPlayer(rules, tuple(dict.fromkeys(agents)), seed, trust, batch_size, episode,
                         objects=tuple(objects.items()))  # fmt: skip
    stats_before = {label: agent.stats() for label, agent in objects.items() if callable(getattr(agent, "stats", None))}
    built = player.first_agents(chunks)  # unknown names and agent files that do not load fail here, before any game
    labels = own_labels(labels, agents, built)
    bar = _progress(sum(chunk.num_seeds * len(chunk.lineup) for chunk in chunks), progress)
    if ray_workers:
        from .ray_workers import play_chunks

        require_extra("--ray-workers", "ray")

        built.clear()  # the workers build their own
        parts = play_chunks(player, chunks, workers=ray_workers, address=ray_address,
                            progress=lambda part: bar.update(len(part.results)))  # fmt: skip
    else:
        parts = []
        for chunk in chunks:
            parts.append(player(chunk, built))
            bar.update(len(parts[-1].results))
    bar.close()
    records = relabel([record for part in parts for record in part.results], labels)
    summaries = summarize(records, seed=seed)
    names, matrix = pairwise_win_matrix(records, [summary.name for summary in summaries])
    _, games_met = pairwise_games(records, names)
    settings = {
        "agents": list(agents), "lineups": lineups, "variant": rules.variant, "num_players": num_players,
        "games": len(records), "seed": seed, "episode": episode, "rule_options": rule_options,
        "chunk_games": chunk_games, "labels": {label: agent for agent, label in labels.items()},
    }  # fmt: skip
    text_stats = _text_stats(parts, objects, stats_before)
    if text_stats:
        settings["text_agents"] = {labels.get(name, name): stats for name, stats in text_stats.items()}
    result = TournamentResult(records, summaries, names, matrix, settings, games=games_met)
    if save_games is not None:
        result.saved_games = save_sample_games(save_games, chunks, parts, rules, len(lineups[0]), seed=seed,
                                               episode=episode)  # fmt: skip
    if out is not None:
        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        write_json(out / "tournament.json", summaries, settings, names, matrix, games_met)
        write_csv(out / "tournament.csv", summaries)
        plot(out / "tournament.png", summaries, names, matrix, settings=settings, games=games_met)
    return result


def _changed_options(rules: RuleSet) -> dict[str, Any]:
    """The options of `rules` that differ from its variant's: what a report names for a RuleSet given as is."""
    defaults = make_rules(rules.variant).options()
    return {name: value for name, value in rules.options().items() if value != defaults[name]}


def save_sample_games(
    folder: str | Path,
    chunks: list[Chunk],
    parts: list[ChunkGames],
    rules: RuleSet,
    num_players: int,
    *,
    seed: int,
    episode: str = "round",
    max_steps: int = DEFAULT_MAX_STEPS,
) -> list[Path]:
    """Write the sample games a tournament traced (its chunks' `samples`, each lineup's first games) as game
    records (`uno_env.records`), with the agents' names per seat and, where an agent left details of its decisions
    (a text agent's prompt, replies and move), one details entry per decision; returns the files' paths.

    Each record holds the actions the tournament's game took and the result the tournament recorded for it, and
    is replayed before it is saved: a RecordError if it does not replay to that result."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    saved = []
    sampled = [(chunk, part) for chunk, part in zip(chunks, parts, strict=True) if chunk.samples]
    for number, (chunk, part) in enumerate(sampled):
        slug = re.sub(r"[^A-Za-z0-9_.+-]+", "_", "-".join(chunk.lineup))[:60]
        for job, actions in part.samples.items():
            game = part.results[job]
            where = f"sample game {job} of lineup {' '.join(chunk.lineup)} (seed {game.seed})"
            if len(actions) != game.length:
                raise RecordError(f"{where} took {len(actions)} decisions, not {game.length}")
            details = part.details.get(job)
            details = details if details and len(details) == len(actions) and any(details) else None
            record = make_record(
                rules, num_players, actions, seed=game.seed, episode=episode, max_steps=max_steps,
                agents=list(game.lineup), details=details,
                result={"scores": list(game.points), "winners": list(game.winners), "done": True,
                        "truncated": not game.winners},  # a game ends with a winner unless it is cut off
                meta={"source": "uno-arena", "tournament_seed": seed, "lineup": list(chunk.lineup), "game": job,
                      "rotation": job % num_players},
            )  # fmt: skip
            try:
                replay(record)
            except RecordError as error:
                raise RecordError(f"{where} does not replay to the tournament's result: {error}") from None
            saved.append(save_record(record, folder / f"lineup{number}-{slug}-game{job}.json"))
    return saved


#: what a label (`--name ALIAS=AGENT`) may be: letters, digits and _ . : + - , at most 40 characters
LABEL = re.compile(r"[A-Za-z0-9_.:+-]{1,40}")


def check_labels(labels: Mapping[str, str], agents: list[str]) -> dict[str, str]:
    """`labels` ({agent: label}) checked: each agent among `agents`, each label `LABEL` and its own (no two agents
    share one, and no label is another agent's name); a ValueError saying what is allowed."""
    labels = dict(labels)
    for agent, label in labels.items():
        if agent not in agents:
            raise ValueError(f"the label {label!r} is for {agent!r}, which is not among the agents "
                             f"({', '.join(dict.fromkeys(agents))})")  # fmt: skip
        if not isinstance(label, str) or not LABEL.fullmatch(label):
            raise ValueError(f"a label is 1 to 40 letters, digits or _ . : + -, got {label!r} for {agent!r}")
    shown: dict[str, str] = {}
    for agent in dict.fromkeys(agents):
        label = labels.get(agent, agent)
        if label in shown:
            raise ValueError(f"labels must be unique: {shown[label]!r} and {agent!r} would both show as {label!r}")
        shown[label] = agent
    return labels


def own_labels(labels: Mapping[str, str], agents: list[str], built: Mapping[tuple[int, str], Any]) -> dict[str, str]:
    """`labels` ({agent: label}) with each agent of `built` (`ChunkPlayer.first_agents`) that has none labelled by
    its own name where that says more than the name it was made from (`own_name`: `llm` by `llm:MODEL`), unless
    another agent already shows as that name."""
    labels = dict(labels)
    shown = {labels.get(agent, agent) for agent in agents}
    for (_, name), agent in built.items():
        own = own_name(name, agent)
        if name not in labels and own not in shown:
            labels[name] = own
            shown.add(own)
    return labels


def parse_names(texts: list[str], agents: list[str]) -> dict[str, str]:
    """The `--name ALIAS=AGENT` flags as {agent: alias} (`check_labels`); an agent named twice is refused."""
    labels: dict[str, str] = {}
    for text in texts:
        alias, sep, agent = text.partition("=")
        if not sep or not alias or not agent:
            raise ValueError(f"--name takes ALIAS=AGENT, e.g. trained=ppo:runs/a/policy.pt, got {text!r}")
        if agent in labels:
            raise ValueError(f"--name gives {agent!r} two labels, {labels[agent]!r} and {alias!r}")
        labels[agent] = alias
    return check_labels(labels, agents)


def seat_objects(agents: list[Any]) -> tuple[list[str], dict[str, Any]]:
    """The agents as names, and the agents given as objects by name: an object is known by its `name` (else its
    class's name), made unique with #2, #3, ... where two agents would share one (the same object twice is one
    agent). A ValueError for an entry that is neither a name nor an agent."""
    if isinstance(agents, str):
        raise ValueError(f"agents must be a list of agent names or agents, got the string {agents!r}")
    names: list[str] = []
    objects: dict[str, Any] = {}
    label_of: dict[int, str] = {}
    taken = {agent for agent in agents if isinstance(agent, str)}
    for agent in agents:
        if isinstance(agent, str):
            names.append(agent)
            continue
        if not is_agent(agent):
            raise ValueError(f"{type(agent).__name__} is neither an agent name nor an agent: an agent has "
                             f".act(observations, action_masks) and .observation in {O.LEVELS}")  # fmt: skip
        if id(agent) not in label_of:
            base = getattr(agent, "name", None)
            base = base if isinstance(base, str) and base else type(agent).__name__
            label, number = base, 1
            while label in taken:
                number += 1
                label = f"{base}#{number}"
            taken.add(label)
            label_of[id(agent)] = label
            objects[label] = agent
        names.append(label_of[id(agent)])
    return names, objects


def _text_stats(parts: list[ChunkGames], objects: dict[str, Any], before: dict[str, dict[str, int]]) -> dict:
    """Each text agent's `stats()` over the tournament: summed over the chunks' own agents, and for an agent given
    as an object what it did since `before`."""
    totals: dict[str, dict[str, int]] = {}
    for part in parts:
        for name, stats in part.stats.items():
            total = totals.setdefault(name, {})
            for key, value in stats.items():
                total[key] = total.get(key, 0) + int(value)
    for label, earlier in before.items():
        now = objects[label].stats()
        totals[label] = {key: int(value) - int(earlier.get(key, 0)) for key, value in now.items()}
    return totals


def _lineups(agents: list[str], num_players: int, lineup: list[str] | None) -> list[list[str]]:
    """The seatings to play: the given lineup; else the agents repeated to fill the seats; else (more agents
    than seats) every combination of agents into the seats, a round robin."""
    if not agents:
        raise ValueError(f"give at least one agent; the agents are {', '.join(agent_names())}")
    if lineup:
        if len(lineup) != num_players:
            raise ValueError(f"the lineup names {len(lineup)} seats but the game has {num_players} players")
        unknown = sorted(set(lineup) - set(agents))
        if unknown:
            raise ValueError(f"the lineup names {', '.join(unknown)}, which are not among the agents")
        return [list(lineup)]
    distinct = list(dict.fromkeys(agents))
    if len(distinct) <= num_players:
        return [[distinct[i % len(distinct)] for i in range(num_players)]]
    return [list(c) for c in itertools.combinations(distinct, num_players)]


def build_parser() -> cli.ArgumentParser:
    """The `uno-arena` command line (`uno_env.cli`'s convention)."""
    parser = cli.ArgumentParser(prog="uno-arena", description="A tournament of UNO agents (see uno_env.arena).")
    parser.add_argument(
        "--agents", nargs="+", default=["random", "greedy", "counter"], metavar="NAME",
        help=f"the agents: {AGENT_HELP} (default: random greedy counter)",
    )  # fmt: skip
    cli.add_variant(parser)
    cli.add_players(parser)
    parser.add_argument(
        "--games", type=cli.positive_int, default=20_000, metavar="INT",
        help="games in all, split evenly over the lineups (default: 20000)",
    )  # fmt: skip
    parser.add_argument(
        "--lineup", nargs="+", metavar="NAME",
        help="one agent name per seat (default: the agents repeated, or every combination of them)",
    )  # fmt: skip
    cli.add_episode(parser)
    cli.add_seed(parser, help="the first game's seed; the same seed gives the same games and report")
    cli.add_num_envs(parser, 2048, "games played at once", aliases=("--batch-size",))
    cli.add_option(parser)
    cli.add_out(parser, "arena-results", help="folder for tournament.json, tournament.csv and tournament.png")
    parser.add_argument(
        "--progress", action=argparse.BooleanOptionalAction, default=True, help="a progress bar (default: %(default)s)"
    )
    parser.add_argument(
        "--chunk-games", type=cli.positive_int, default=CHUNK_GAMES, metavar="INT",
        help=f"games per chunk of work, each chunk's agents seeded apart (default: {CHUNK_GAMES})",
    )  # fmt: skip
    parser.add_argument(
        "--ray-workers", type=cli.nonnegative_int, default=0, metavar="INT",
        help="play the chunks as this many Ray tasks at once (default: 0, no Ray)",
    )  # fmt: skip
    parser.add_argument(
        "--ray-address", metavar="ADDRESS", help="the Ray cluster, ray.init(address=...) (default: a local Ray)"
    )
    parser.add_argument(
        "--name", action="append", default=[], metavar="ALIAS=AGENT", dest="names",
        help="show the agent AGENT (one of --agents) as ALIAS in the table, the JSON and CSV and the plot, e.g. "
        "trained=ppo:runs/a/policy.pt; repeat it for more agents; labels are unique (default: the agents' names, "
        "llm its model's: llm:MODEL)",
    )  # fmt: skip
    add_trust(parser)
    parser.add_argument(
        "--save-games", type=Path, metavar="DIR",
        help="write sample games of each lineup to this folder as game records (JSON; uno_env.records), to replay "
        "or view with uno_env.replay (default: none)",
    )  # fmt: skip
    parser.add_argument(
        "--save-games-count", type=cli.positive_int, default=3, metavar="INT",
        help="sample games saved per lineup with --save-games: its first games (default: 3)",
    )  # fmt: skip
    return parser


def parse_args(argv: list[str] | None = None, parser: cli.ArgumentParser | None = None) -> argparse.Namespace:
    """The settings of `uno-arena argv`, with `rule_options` (a dict) checked against the variant and players."""
    parser = parser or build_parser()
    args = parser.parse_args(argv)
    for name in args.agents:
        try:
            parse_agent(name)  # the catalogue's one-line refusal, before any agent is loaded
        except ValueError as error:
            parser.error(str(error))
    args.rule_options = cli.checked_rule_options(parser, args.variant, args.options, args.players)
    try:
        args.labels = parse_names(args.names, args.agents)
    except ValueError as error:
        parser.error(str(error))
    if args.lineup:  # a label stands for its agent in the lineup too
        agent_of = {label: agent for agent, label in args.labels.items()}
        args.lineup = [agent_of.get(name, name) for name in args.lineup]
    return args


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parse_args(argv, parser)
    try:
        result = run_tournament(
            args.agents, args.variant, args.players, games=args.games, lineup=args.lineup, seed=args.seed,
            batch_size=args.num_envs, episode=args.episode, out=args.out, progress=args.progress,
            chunk_games=args.chunk_games, ray_workers=args.ray_workers, ray_address=args.ray_address,
            trust=args.trust, save_games=args.save_games, save_games_count=args.save_games_count,
            labels=args.labels, **args.rule_options,
        )  # fmt: skip
    except USER_ERRORS as error:  # a bad agent file, a refused one, settings the games refuse, an unwritable --out
        parser.error(str(error) or type(error).__name__)
    label_of = {agent: label for label, agent in result.settings["labels"].items()}
    lineups = "; ".join(" ".join(label_of.get(name, name) for name in table) for table in result.settings["lineups"])
    print(f"{args.variant}, {args.players} players, {len(result.records)} games, lineups: {lineups}")
    print(result.table())
    for label, stats in result.settings.get("text_agents", {}).items():  # a language model's fallbacks and tokens
        print(usage_line(label, stats))
    print(f"reports in {Path(args.out).resolve()}: tournament.json, tournament.csv, tournament.png")
    if args.save_games is not None:
        print(f"{len(result.saved_games)} sample games in {Path(args.save_games).resolve()} (game records: replay or "
              "view them with uno_env.replay)")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
