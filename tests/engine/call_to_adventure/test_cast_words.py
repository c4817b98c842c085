"""A cast is told with every rune as it fell (A11.4): its value and what else its face shows, in each language."""

from __future__ import annotations

import engine
from engine.call_to_adventure.rules import faces

GAME = engine.GAMES["call-to-adventure"]


def _casts() -> list[tuple[dict[str, object], object]]:
    state = GAME.new_game(["ann", "bob"], {"first_game": True}, 3)
    bot = GAME.bots["heuristic"](1)
    found = []
    for _step in range(400):
        waiting = GAME.waiting_for(state)
        if not waiting:
            break
        player = sorted(waiting)[0]
        events: list[dict[str, object]] = []
        GAME.apply(state, bot.choose(state, player), events)
        found += [(e, state.cards) for e in events if e["event"] == "cast"]
    return found


def test_every_cast_event_names_each_faces_value_and_mark() -> None:
    casts = _casts()
    assert len(casts) > 5
    for event, cards in casts:
        runes, rolled, values, marks = event["runes"], event["faces"], event["values"], event["marks"]
        assert isinstance(runes, list) and isinstance(rolled, list)
        shown = [faces(cards, tuple(rune))[f] for rune, f in zip(runes, rolled, strict=True)]
        assert values == [face.value for face in shown]
        assert marks == [
            next((m for m in ("card", "experience", "hero", "antihero", "corruption") if getattr(face, m)), "")
            for face in shown
        ]


def test_a_cast_reads_rune_by_rune() -> None:
    event = {
        "event": "cast",
        "player": "bob",
        "runes": [["core", "0"], ["core", "2"], ["ability", "wisdom"], ["dark", ""]],
        "faces": [0, 1, 0, 0],
        "values": [1, 0, 2, 2],
        "marks": ["", "card", "", "corruption"],
        "total": 5,
    }
    assert GAME.describe(event, "ann") == (
        "bob cast 4 runes (core 1, core 0 (card face), Wisdom 2, dark 2 (corruption)): total 5."
    )
    assert GAME.speaking("nl").describe(event, "bob").startswith("Je wierp 4 runen (kernrune 1, kernrune 0 (kaartvlak)")
    assert "Sagesse 2" in GAME.speaking("fr").describe(event, "ann")
    old = {k: v for k, v in event.items() if k not in ("values", "marks")}
    assert GAME.describe(old, "ann") == "bob cast 4 runes: total 5.", "events logged before still read"
