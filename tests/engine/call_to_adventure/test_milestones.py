"""Milestones worth an email: each Act beginning, the final turns (a completed Destiny warns everyone), the end."""

from __future__ import annotations

import engine

GAME = engine.GAMES["call-to-adventure"]


def test_a_whole_game_reaches_each_milestone_once_in_order() -> None:
    state = GAME.new_game(["ann", "bob", "cy"], {}, 11)
    bots = {name: GAME.bots["heuristic"](i) for i, name in enumerate(state.players)}
    seen = []
    for _step in range(5000):
        waiting = GAME.waiting_for(state)
        if not waiting:
            break
        player = sorted(waiting)[0]
        before = GAME.clone(state)
        GAME.apply(state, bots[player].choose(state, player))
        seen += [(m.kind, m.number, m.title, dict(m.data)) for m in GAME.milestones(before, state)]
    assert GAME.result(state) is not None
    kinds = [k for k, *_ in seen]
    assert kinds[-1] == "game_over" and kinds.count("game_over") == 1
    assert "final" in kinds and kinds.count("final") == 1 and kinds.index("final") < kinds.index("game_over")
    (final,) = [s for s in seen if s[0] == "final"]
    assert final[3] == {"player": final[3]["player"]} and final[3]["player"] in state.players
    assert final[2] == f"Final turns: {final[3]['player']} completed their Destiny"
    dutch = GAME.speaking("nl")
    assert dutch.words.text("milestone_final", who="ann") == "Laatste beurten: ann heeft de Bestemming voltooid"
    assert [n for k, n, *_ in seen if k == "act"] == [2, 3], "Act I's row lies face up from the start"
