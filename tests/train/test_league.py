"""The league's learning curve (`uno_env.train.league.learning_curve_figure`), the one drawing of it: the trainer's
learning_curve.png and the notebooks' figure."""

from __future__ import annotations

from uno_env.train.league import learning_curve_figure


def test_the_learning_curve_draws_each_baseline_and_names_its_settings():
    history = [(1000, "counter", 0.3, 0.25, 0.35), (1000, "greedy", 0.4, 0.35, 0.45),
               (2000, "counter", 0.45, 0.4, 0.5), (2000, "greedy", 0.5, 0.45, 0.55)]  # fmt: skip
    figure = learning_curve_figure(history, ([1, 2, 3], [0.1, 0.2, 0.3]), variant="classic", players=2,
                                   eval_games=1000, seed="seed 7")  # fmt: skip
    assert figure._suptitle.get_text() == "Native PPO learning UNO classic, 2 players"
    left, right = figure.axes
    assert left.get_title() == "Evaluations: 1,000 games each, seed 7"
    lines = {line.get_label(): [float(y) for y in line.get_ydata()] for line in left.get_lines()}
    assert lines["vs counter"] == [0.3, 0.45] and lines["vs greedy"] == [0.4, 0.5]
    assert right.get_lines()[0].get_ydata().tolist() == [0.1, 0.2, 0.3]


def test_the_fair_share_is_one_over_the_players():
    history = [(1000, "counter", 0.2, 0.18, 0.22), (2000, "counter", 0.26, 0.24, 0.28)]
    (axes,) = learning_curve_figure(history, variant="swap", players=4, eval_games=500, seed="seed 1").axes
    fair = next(line for line in axes.get_lines() if line.get_label() == "fair share")
    assert list(fair.get_ydata()) == [0.25, 0.25]
