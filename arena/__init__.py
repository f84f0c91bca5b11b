"""The tournament runner (`uno-arena`): agents play each other on paired deals with every seat rotation, and
its statistics (win rates with intervals by deal and by Wilson, ratings, head-to-head shares, reports).

`tournament` plays and reports (`run_tournament`, `play_games`, `win_rate_against`, the `uno-arena` command),
`ratings` holds the statistics, `ray_workers` spreads a tournament's chunks over Ray workers, `device` plays a
policy network against a baseline's device rule on the vector env (the CPU's or the GPU's). A runner is a client
of the players (`uno_env.agents`), never a player.
"""

from .ratings import AgentSummary, GameResult, deal_interval, wilson_interval
from .ratings import GameRecord as GameRecord  # the older name of GameResult, for one release
from .tournament import play_games, run_tournament, win_rate_against

__all__ = ["AgentSummary", "GameResult", "deal_interval", "play_games", "run_tournament", "wilson_interval",
           "win_rate_against"]  # fmt: skip
