"""Time to skill: wall-clock training time until a policy beats `counter`, for the native PPO and SB3 MaskablePPO.

    python benchmarks/time_to_skill.py                                   # native PPO, 2 players, 3 seeds x 5 min
    python benchmarks/time_to_skill.py --trainer sb3                     # SB3 MaskablePPO, the peer
    python benchmarks/time_to_skill.py --players 4 --minutes 10          # time until above the fair share
    python benchmarks/time_to_skill.py --recipe plain                    # another of uno-train's recipes
    python benchmarks/time_to_skill.py -- --learning-rate 0.003          # more trainer flags after --
    python benchmarks/time_to_skill.py --device cuda --parallel 3 --eval-workers 12   # a GPU machine

Each seed trains once, as `uno-train` (or `uno-train-sb3`) with `--snapshot-seconds`: the trainer writes the
policy every few seconds of training and is never interrupted by an evaluation. Afterwards every snapshot plays
`--eval-games` games against `counter` in every other seat, on paired deals with seats rotated, through the
arena (`play_games`), on deal seeds that training never uses; the last snapshot plays `--final-games`. The time to
a threshold is the training time of the first snapshot whose win rate reaches it; the report gives each seed's
times and their median (a seed that never reaches it counts as never, so the median is "not reached" when two
of three seeds miss). Intervals take the deal as the unit (`ratings.deal_interval`).

The thresholds default to 52%, 55% and 60% with 2 players and to the fair share (1/players) and 27%, 28%, 30%
with more. Writes `time_to_skill.json` (every evaluation) and `time_to_skill.png` (strength against wall-clock
time, one line per seed) to `--out`. Training runs one seed at a time unless `--parallel` says otherwise: on a
2-core machine keep the default and run nothing else beside it.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from uno_env.train.recipes import RECIPES

#: deal seeds for the evaluations: far above every seed the trainers deal from (seed * 10**9 + ...)
EVAL_SEED = 1 << 40


def snapshot_seconds(path: Path) -> float:
    """The training seconds in a snapshot's name (policy-00012.34s.pt, model-00012.34s.zip)."""
    return float(path.stem.split("-")[-1].rstrip("s"))


def train_command(args: argparse.Namespace, seed: int, out: Path) -> list[str]:
    """The trainer's command line for one seed, with snapshots and no evaluation during training."""
    module = "uno_env.train.native_ppo" if args.trainer == "native" else "uno_env.train.sb3_ppo"
    command = [sys.executable, "-m", module, "--variant", args.variant, "--players", str(args.players),
               "--seed", str(seed), "--out", str(out), "--minutes", str(args.minutes),
               "--snapshot-seconds", str(args.snapshot_seconds), "--eval-every", "0", "--eval-games", "2",
               "--device", args.device, "--no-progress"]  # fmt: skip
    if args.trainer == "native":
        command += ["--recipe", args.recipe]
    else:
        command += ["--timesteps", str(10**12)]
    return command + args.trainer_args


def evaluate(job: tuple[str, str, str, int, int, int]) -> dict:
    """One snapshot's win rate against `counter` (paired deals) with its by-deal interval."""
    trainer, path, variant, players, games, seed = job
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    import torch

    torch.set_num_threads(1)
    from uno_env.agents.registry import make_agent
    from uno_env.arena.ratings import deal_interval
    from uno_env.arena.tournament import play_games

    if trainer == "native":
        learner = make_agent(f"ppo:{path}")
    else:
        from uno_env.agents.sb3_agent import SB3Agent

        learner = SB3Agent(path, trust=True)  # a file this benchmark's own run just wrote
    agents = {"learner": learner, "counter": make_agent("counter", seed=seed)}
    started = time.perf_counter()
    records = play_games(agents, ["learner"] + ["counter"] * (players - 1), variant, games=games, seed=seed)
    _, low, high = deal_interval(records, ["learner"])
    wins = sum(1 / len(r.winners) for r in records for s in r.winners if r.lineup[s] == "learner")
    return {"path": path, "seconds": snapshot_seconds(Path(path)), "games": len(records),
            "win_rate": wins / len(records), "low": float(low[0]), "high": float(high[0]),
            "eval_seconds": time.perf_counter() - started}  # fmt: skip


def snapshots(out: Path, trainer: str) -> list[Path]:
    pattern = "policy-*s.pt" if trainer == "native" else "model-*s.zip"
    return sorted((out / "snapshots").glob(pattern), key=snapshot_seconds)


def time_to(curve: list[dict], threshold: float) -> float | None:
    """Training seconds of the first evaluation at or above `threshold` (None: never)."""
    return next((point["seconds"] for point in curve if point["win_rate"] >= threshold), None)


def median_time(times: list[float | None]) -> float | None:
    """The median with never as infinity (None when the median seed never got there)."""
    value = statistics.median(float("inf") if t is None else t for t in times)
    return None if value == float("inf") else value


def plot(results: dict, path: Path) -> None:
    from matplotlib.figure import Figure

    figure = Figure(figsize=(7, 4))
    axes = figure.subplots()
    for seed, curve in results["curves"].items():
        minutes = [p["seconds"] / 60 for p in curve]
        axes.plot(minutes, [p["win_rate"] for p in curve], marker="o", markersize=3, label=f"seed {seed}")
        axes.fill_between(minutes, [p["low"] for p in curve], [p["high"] for p in curve], alpha=0.2)
    for threshold in results["thresholds"]:
        axes.axhline(threshold, color="grey", linestyle=":", linewidth=1)
    r, seeds = results, ", ".join(results["curves"])
    axes.set(xlabel="training time (minutes)", ylabel="win rate vs counter (95% CI by deal)")
    axes.set_title(f"{r['trainer']} on {r['device']}: UNO {r['variant']}, {r['players']} players, training seeds "
                   f"{seeds}\n{r['eval_games']:,} games a point ({r['final_games']:,} at the last), evaluation seed "
                   f"{r.get('eval_seed', EVAL_SEED)} (+10^7 a run)", fontsize=9)  # fmt: skip
    axes.legend()
    figure.tight_layout()
    figure.savefig(path, dpi=100)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trainer", choices=("native", "sb3"), default="native")
    parser.add_argument("--variant", default="classic")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--minutes", type=float, default=5.0, help="training budget per seed")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--snapshot-seconds", type=float, default=20.0)
    parser.add_argument("--eval-games", type=int, default=4000, help="paired games per snapshot")
    parser.add_argument("--final-games", type=int, default=20000, help="paired games for each seed's last snapshot")
    parser.add_argument("--thresholds", type=float, nargs="+", default=None)
    parser.add_argument("--device", default="cpu", help="the trainer's --device (cpu, cuda, auto)")
    parser.add_argument("--parallel", type=int, default=1, help="seeds trained at once")
    parser.add_argument("--eval-workers", type=int, default=2, help="processes evaluating snapshots")
    parser.add_argument("--recipe", choices=tuple(RECIPES), default="main",
                        help="the native trainer's recipe (uno-train --recipe, uno_env.train.recipes): main (the main "
                             "job's), plain, wide")  # fmt: skip
    parser.add_argument("--eval-seed", type=int, default=EVAL_SEED,
                        help="the first evaluation deal's seed (default 2^40; another for figures no tuning saw)")
    parser.add_argument("--out", type=Path, default=Path("runs/time_to_skill"))
    parser.add_argument("trainer_args", nargs="*", help="more trainer flags, after --")
    args = parser.parse_args()
    thresholds = args.thresholds or ([0.52, 0.55, 0.60] if args.players == 2 else [1 / args.players, 0.27, 0.28, 0.30])
    out = args.out / f"{args.trainer}-{args.variant}-{args.players}p"
    started = time.perf_counter()
    runs = {seed: out / f"seed{seed}" for seed in args.seeds}
    pending = list(runs.items())
    running: list[tuple[int, subprocess.Popen]] = []
    while pending or running:  # at most --parallel trainers at once
        while pending and len(running) < args.parallel:
            seed, folder = pending.pop(0)
            folder.mkdir(parents=True, exist_ok=True)
            for old in snapshots(folder, args.trainer):  # an earlier run's snapshots would join this one's curve
                old.unlink()
                old.with_suffix(".json").unlink(missing_ok=True)
            log = open(folder / "train.log", "w")  # noqa: SIM115 (closed with the process)
            running.append((seed, subprocess.Popen(train_command(args, seed, folder), stdout=log, stderr=log)))
        time.sleep(1)
        for seed, process in list(running):
            if process.poll() is not None:
                running.remove((seed, process))
                if process.returncode:
                    sys.exit(f"seed {seed}'s training failed; see {runs[seed] / 'train.log'}")
                print(f"seed {seed} trained ({time.perf_counter() - started:.0f} s so far)", flush=True)
    jobs = []
    for i, (seed, folder) in enumerate(runs.items()):
        paths = snapshots(folder, args.trainer)
        if not paths:
            sys.exit(f"seed {seed} wrote no snapshots; see {folder / 'train.log'}")
        for j, path in enumerate(paths):
            games = args.final_games if j == len(paths) - 1 else args.eval_games
            jobs.append((args.trainer, str(path), args.variant, args.players, games, args.eval_seed + 10**7 * i))
    with ProcessPoolExecutor(args.eval_workers) as pool:
        evaluations = list(pool.map(evaluate, jobs))
    curves = {seed: [e for e in evaluations if Path(e["path"]).parent.parent == folder]
              for seed, folder in runs.items()}  # fmt: skip
    summary_line = next((line for line in (runs[args.seeds[0]] / "train.log").read_text().splitlines()
                         if line.startswith("trained")), "")  # fmt: skip
    results = {
        "trainer": args.trainer, "variant": args.variant, "players": args.players, "minutes": args.minutes,
        "device": args.device, "trainer_args": args.trainer_args, "eval_games": args.eval_games,
        "final_games": args.final_games, "eval_seed": args.eval_seed, "thresholds": thresholds,
        "curves": {str(s): c for s, c in curves.items()},
        "command": " ".join(sys.argv), "first_seed_summary": summary_line,
    }  # fmt: skip
    results["time_to"] = {}
    print(f"{args.trainer} on {args.device}, {args.variant}, {args.players} players, {args.minutes} min per seed, "
          f"seeds {args.seeds}:")  # fmt: skip
    for threshold in thresholds:
        times = [time_to(curve, threshold) for curve in curves.values()]
        median = median_time(times)
        results["time_to"][f"{threshold:.4f}"] = {"per_seed": times, "median": median}
        each = ", ".join("never" if t is None else f"{t:.0f} s" for t in times)
        print(f"  {threshold:.1%}: median {'not reached' if median is None else f'{median:.0f} s'} ({each})")
    for seed, curve in curves.items():
        last = curve[-1]
        print(f"  seed {seed}, after {last['seconds']:.0f} s: {last['win_rate']:.1%} "
              f"[{last['low']:.1%}, {last['high']:.1%}] over {last['games']} games")  # fmt: skip
    (out / "time_to_skill.json").write_text(json.dumps(results, indent=1))
    plot(results, out / "time_to_skill.png")
    print(f"wrote {out / 'time_to_skill.json'} and time_to_skill.png ({time.perf_counter() - started:.0f} s in all)")


if __name__ == "__main__":
    main()
