"""The table session under both screens (`uno_env.play.session`): its events of a dealt scenario, that they never
tell a card the person's seat cannot see, that an illegal action is refused and changes nothing, that its record
replays to the same game, and uno-play's seeding of the agents."""

import numpy as np
import pytest

from uno_env import Game
from uno_env import actions as A
from uno_env.agents.registry import make_agent, own_name
from uno_env.play import session as session_module
from uno_env.play.session import ActionRefused, Card, Colour, ScoreTable, TableSession, plain
from uno_env.render import table_view
from uno_env.replay import replay


class Scripted:
    """Plays the action names it is given, in order; then the first legal action."""

    observation = "minimal"

    def __init__(self, *names):
        self.ids = [A.action_id(name, Game().rules.colors) for name in names]

    def act(self, observations, masks):
        return np.array([self.ids.pop(0) if self.ids else int(np.flatnonzero(masks[0])[0])])


class DrawAndKeep:
    """Draws whenever it may and keeps what it drew: its choices do not depend on the cards it holds."""

    observation = "minimal"

    def act(self, observations, masks):
        mask = masks[0]
        return np.array([A.DRAW if mask[A.DRAW] else A.PASS if mask[A.PASS] else int(np.flatnonzero(mask)[0])])


def person_plays(session, *names):
    """The opening, then each of the person's actions by name followed by the agents' turns: every event."""
    events = session.opening() + session.play_agents()
    for name in names:
        events += session.act(session.game.action_id(name)) + session.play_agents()
    return events


def test_the_events_of_a_dealt_scenario():
    deal = {"dealer": 2, "top": "R1", "deck": ["R3", "B8", "G1"],
            "hands": [["RR", "W", "B3", "G5"], ["R7", "B9", "G2", "Y6"], ["R4", "B5", "G7", "Y8"]]}  # fmt: skip
    game = Game("classic", 3, deal=deal)
    opponents = {1: ("one", Scripted("play R7", "play B9")), 2: ("two", Scripted("draw", "pass", "draw", "pass"))}
    session = TableSession(game, 0, opponents)
    events = person_plays(session, "play RR", "play W", "color blue", "draw")
    assert events == [
        {"kind": "round", "round": 1, "dealer": 2, "top": "R1"},
        {"kind": "play", "seat": 0, "card": "RR", "how": "hand"},
        {"kind": "direction", "direction": -1},
        {"kind": "draw", "seat": 2, "count": 1, "cards": [], "given": False},  # R3, kept: neither named nor told
        {"kind": "play", "seat": 1, "card": "R7", "how": "hand"},
        {"kind": "play", "seat": 0, "card": "W", "how": "hand"},
        {"kind": "color", "seat": 0, "color": "blue"},
        {"kind": "draw", "seat": 2, "count": 1, "cards": [], "given": False},  # B8, kept
        {"kind": "play", "seat": 1, "card": "B9", "how": "hand"},
        {"kind": "draw", "seat": 0, "count": 1, "cards": ["G1"], "given": False},  # the person's own: named
        {"kind": "play", "seat": 2, "card": "B5", "how": "hand"},
        {"kind": "draw", "seat": 1, "count": 1, "cards": [], "given": False},
        {"kind": "play", "seat": 1, "card": "B+2", "how": "drawn"},  # played, so public
        {"kind": "draw", "seat": 0, "count": 2, "cards": ["R2", "W"], "given": False},
        {"kind": "play", "seat": 2, "card": "B8", "how": "hand"},
        {"kind": "draw", "seat": 1, "count": 1, "cards": [], "given": False},
    ]
    lines = [plain(line) for event in events for line in session.narration(event)]
    assert lines[:4] == ["Round 1: Player 2 (two) deals; the first card is R1.", "You play RR",
                         "Play now goes to the right.", "Player 2 (two) draws a card"]  # fmt: skip
    assert "Player 1 (one) plays the drawn card B+2" in lines and "You draw R2 W" in lines
    named, played = session.narration(events[6])[0], session.narration(events[1])[0]
    assert [type(part) for part in named] == [str, str, Colour] and [type(part) for part in played] == [str, str, Card]
    assert session.deciding and session.prompt() == "Your turn: play a card or draw."
    assert [plain(session.label(a)) for a in session.legal()] == ["play B3", "play W", "draw a card"]


def test_no_event_or_view_tells_a_card_the_persons_seat_cannot_see():
    # Two deals that differ only in the other hands and the deck (other seeds: other decks too).
    person = ["R5", "R6", "R7", "R8", "B1"]
    deals = [
        {"dealer": 2, "top": "R1", "hands": [person, ["B2", "G3", "Y4", "G9"], ["B6", "G8", "Y1", "Y2"]],
         "deck": ["R9", "G4", "R2", "Y7", "B3", "G6"]},
        {"dealer": 2, "top": "R1", "hands": [person, ["Y9", "B4", "R3", "W"], ["G0", "W+4", "B8", "R4"]],
         "deck": ["Y0", "R0", "B5", "G2", "Y3", "B7"]},
    ]  # fmt: skip
    seen = []
    for seed, deal in enumerate(deals):
        game = Game("classic", 3, seed=seed, deal=deal)
        session = TableSession(game, 0, {1: ("keeper", DrawAndKeep()), 2: ("keeper", DrawAndKeep())})
        events, views = session.opening() + session.play_agents(), [session.view()]
        for name in ("play R5", "play R6", "play R7", "play R8"):
            events += session.act(game.action_id(name)) + session.play_agents()
            views.append(session.view())
            views.append([plain(session.label(a)) for a in session.legal()])
        seen.append((events, views, session.knowledge()))
    assert seen[0] == seen[1]
    assert {"R9", "Y0", "B2", "W+4"}.isdisjoint(str(seen[0]).replace("'", " ").split())
    drew = [e for e in seen[0][0] if e["kind"] == "draw"]
    assert len(drew) == 8 and all(e["cards"] == [] and e["seat"] != 0 for e in drew)

    # The person's own forehead card (Unocorns) is hidden from it; the others' are shown.
    unocorns = []
    for own in ("Y9", "G4"):
        deal = {"dealer": 2, "top": "P1", "hands": [["P5", "B7", "G1"], ["P3", "G2", "B2"], ["B1", "P8", "Y2"]],
                "foreheads": [[own], [], ["G3"]]}  # fmt: skip
        session = TableSession(Game("unocorns", 3, deal=deal), 0, {1: ("a", DrawAndKeep()), 2: ("b", DrawAndKeep())})
        unocorns.append((session.opening(), session.view(), [plain(session.label(a)) for a in session.legal()]))
    assert unocorns[0] == unocorns[1]
    assert unocorns[0][1]["seats"][0]["foreheads"] == [None] and unocorns[0][1]["seats"][2]["foreheads"] == ["G3"]


def test_an_illegal_action_is_refused_and_changes_nothing():
    game = Game("classic", 2, deal={"dealer": 1, "hands": [["R5", "B7"], ["G2", "G3"]], "top": "R1"})
    session = TableSession(game, 0, {1: ("greedy", make_agent("greedy", seed=1))})
    before = (game.describe(), session.view(), list(session.actions))
    for action, says in ((game.action_id("play B7"), "is not legal now; the legal actions are: play R5, draw"),
                         (77, "an action id is from 0 to 76"), ("draw", "an action is an id")):  # fmt: skip
        with pytest.raises(ActionRefused, match=says):
            session.act(action)
        assert (game.describe(), session.view(), session.actions) == before
    session.act(game.action_id("play R5"))  # then the agent's turn: not the person's to take
    with pytest.raises(ActionRefused, match="it is not your decision but player 1's"):
        session.act(game.action_id("draw"))

    # An agent's illegal answer stops the game, applies nothing and is told.
    game = Game("classic", 2, deal={"dealer": 0, "hands": [["R5"], ["G2"]], "top": "G1"})
    session = TableSession(game, 0, {1: ("bad", Scripted("uno"))})
    before = game.describe()
    (event,) = session.play_agents()
    assert event["kind"] == "illegal" and event["message"].startswith("illegal action 'uno'")
    assert game.describe() == before and session.actions == [] and not session.deciding
    assert session.problem == "Player 1 (bad) chose an illegal action; the game stopped"
    assert plain(session.narration(event)[0]).startswith("Player 1 (bad) chose an illegal action: illegal action")
    with pytest.raises(ActionRefused, match="chose an illegal action"):
        session.act(game.action_id("play R5"))


def test_the_record_replays_to_the_same_game_and_agents_are_seeded_as_in_uno_play():
    session = TableSession.deal("unocorns", 3, 1, ["greedy", "counter"], seed=9, episode="match",
                                options={"target_score": 250})  # fmt: skip
    events = session.opening() + session.play_agents()
    while session.deciding:
        events += session.act(session.legal()[0]) + session.play_agents()
    assert session.game.done and events[-1]["kind"] == "game_over"
    assert sum(e["kind"] == "round" for e in events) == sum(e["kind"] == "round_end" for e in events) >= 2
    record = session.record(9)
    assert record["agents"] == ["greedy", "human", "counter"] and record["meta"]["source"] == "uno-play"
    again = replay(record)
    assert again.describe() == session.game.describe() and record["result"]["winners"] == session.game.winners
    final = session.narration(events[-1])
    assert isinstance(final[0], ScoreTable) and final[0].title == "Final scores"
    assert [score for _, score in final[0].rows] == session.game.scores

    # uno-play seats agent `name` at seat s with seed + s: the same game move for move
    game = Game("unocorns", 3, seed=9, episode="match", target_score=250)
    by_hand = TableSession(game, 1, {0: ("greedy", make_agent("greedy", seed=9)),
                                     2: ("counter", make_agent("counter", seed=11))})  # fmt: skip
    by_hand.play_agents()
    while by_hand.deciding:
        by_hand.act(by_hand.legal()[0])
        by_hand.play_agents()
    assert by_hand.actions == session.actions


def test_table_view_names_the_dealer_for_every_viewer():
    game = Game("classic", 3, deal={"dealer": 2, "top": "R1", "hands": [["R5"], ["G2"], ["B3"]]})
    assert {table_view(game, viewer)["dealer"] for viewer in (0, 1, 2, None)} == {2}
    match = Game("classic", 3, seed=4, episode="match")
    start = table_view(match, None)["dealer"]
    while table_view(match, None)["round"] == 1:
        match.step(match.legal_action_ids()[0])
    assert table_view(match, 0)["dealer"] == match.describe()["dealer"] == (start + 1) % 3


def test_a_round_end_lays_every_hand_down_as_the_engine_scored_it():
    for scoring in ("winner_takes", "penalty"):
        session = TableSession.deal("unocorns", 3, 0, ["greedy"], seed=12, episode="match",
                                    options={"target_score": 200, "scoring": scoring})  # fmt: skip
        events = session.opening() + session.play_agents()
        while session.deciding:
            before = session.game.describe()  # every hidden card: to check the hands shown at the round's end
            events += session.act(session.legal()[0]) + session.play_agents()
        ends = [event for event in events if event["kind"] == "round_end"]
        assert len(ends) >= 2
        for end in ends:
            winner, hands = end["seat"], end["hands"]
            assert hands[winner]["hand"] == hands[winner]["foreheads"] == [] and hands[winner]["points"] == 0
            if scoring == "penalty":  # each seat adds its own points: the engine's own count of the hands shown
                assert end["gains"] == [seat["points"] for seat in hands]
            else:
                assert end["gains"][winner] == sum(seat["points"] for seat in hands)
        last = session.game.describe()  # the game is over: the last round's hands are the game's
        assert [seat["hand"] for seat in ends[-1]["hands"]] == last["hands"] and before["rounds"] == len(ends) - 1
        assert [seat["foreheads"] for seat in ends[-1]["hands"]] == last["foreheads"]


def test_the_knowledge_holds_the_colours_guessed_wrong_for_the_own_forehead_card():
    deal = {"dealer": 1, "top": "B4", "hands": [["P1", "B3", "G2"], ["P2", "B5", "G7"]], "foreheads": [["G5"], []]}
    session = TableSession(Game("unocorns", 2, deal=deal), 0, {1: ("draws", DrawAndKeep())})
    assert session.view()["phase"] == "guess" and session.knowledge()["wrong_guesses"] == [[]]
    session.act(session.game.action_id("color pink"))
    session.play_agents()
    assert session.knowledge()["wrong_guesses"] == [["pink"]]
    session.act(session.game.action_id("color blue"))
    assert session.knowledge()["wrong_guesses"] == [["pink", "blue"]]


def test_an_agents_fallback_is_its_own_counted_one_or_the_lowest_legal_action():
    from uno_env.agents import TextAgent

    deal = {"dealer": 0, "top": "R1", "hands": [["R5", "R7", "B2"], ["G1", "G2", "R9"]]}  # seat 1 decides first
    text = TextAgent(lambda prompt: "MOVE: 2")
    session = TableSession(Game("classic", 2, deal=deal), 0, {1: ("llm", text)})
    events = session.agent_fallback()  # unasked: its model is not called
    assert session.actions == [session.game.action_id("play R9")] and text.fallbacks == 1 and text.asked == 0
    assert events[0]["kind"] == "play" and events[0]["seat"] == 1 and session.deciding
    with pytest.raises(ActionRefused, match="no agent decides now"):
        session.agent_fallback()
    plain_agent = TableSession(Game("classic", 2, deal=deal), 0, {1: ("keeper", DrawAndKeep())})
    plain_agent.agent_fallback()  # no fallback of its own: the legal action with the lowest id
    assert plain_agent.actions == [min(Game("classic", 2, deal=deal).legal_action_ids())]


def test_a_language_model_seat_is_named_by_its_model(monkeypatch):
    from uno_env.agents import TextAgent

    class Tiny:
        name = "llm:tiny"

        def __call__(self, text: str) -> str:
            return "MOVE: 1"

    monkeypatch.setattr(session_module, "make_agent", lambda name, seed, trust: TextAgent(Tiny()))
    table = TableSession.deal("classic", 2, 0, ["llm"], seed=3)  # `llm`: the model the environment names
    assert table.opponents[1][0] == "llm:tiny" and table.who(1) == "Player 1 (llm:tiny)"
    assert table.record(seed=3)["agents"] == ["human", "llm:tiny"]
    assert own_name("greedy", object()) == "greedy" and own_name("llm", TextAgent(Tiny(), name="tiny")) == "llm"
