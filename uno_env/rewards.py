"""Rewards, once for every face (the AEC env, the vector env and the adapters over it).

| kind     | when                       | what                                                                  |
|----------|----------------------------|-----------------------------------------------------------------------|
| `win`    | the episode ends           | winners share +1, the others -1: one winner +1, the rest -1/(N-1) each |
| `points` | every round's end          | the round's winner: points / target_score; the rest: minus that / (N-1) |

Both are zero-sum. A truncated episode gives nothing; if every player ties for the win, all get 0.
In a match episode (`episode="match"`) `win` comes at the match's end.
"""

from __future__ import annotations

from numba import njit

REWARD_KINDS = ("win", "points")
WIN, POINTS = 0, 1


def reward_kind_index(kind: str) -> int:
    if kind not in REWARD_KINDS:
        raise ValueError(f"reward must be one of {', '.join(map(repr, REWARD_KINDS))}, got {kind!r}")
    return REWARD_KINDS.index(kind)


@njit(cache=True, nogil=True)
def add_step_rewards(st, c, kind, rounds_before, out):
    """Add to out[seat] what each seat earned in a step that began with `rounds_before` finished rounds."""
    n = c.num_players
    if kind == POINTS:
        if st.rounds > rounds_before:
            value = st.round_points / c.target_score
            share = value / (n - 1)
            for p in range(n):
                out[p] += value if p == st.round_winner else -share
    elif st.done and not st.truncated:
        k = 0
        for p in range(n):
            k += st.winners[p]
        if k < n:
            for p in range(n):
                out[p] += 1.0 / k if st.winners[p] else -1.0 / (n - k)


@njit(cache=True, nogil=True)
def step_rewards_one(s, cfg, g, kind, rounds_before, out):
    """`add_step_rewards` for game g of a batch, into a zeroed `out`."""
    out[:] = 0.0
    add_step_rewards(s[g], cfg[0], kind, rounds_before, out)
