"""The shared helpers build what they promise."""

from engine.call_to_glory import state_summary
from tests.conftest import arrange, card_total, deck, game, play


def test_deck_deals_hands_and_pile_tops() -> None:
    cards = deck(3, hands=[["farmer"] * 3, ["monk", "monk", "ninja"]], draw1=["envoy"], draw2=["emperor"])
    assert len(cards) == 110
    state = game(
        ("ann", "bob", "cy"), hands=[["farmer"] * 3, ["monk", "monk", "ninja"]], draw1=["envoy"], draw2=["emperor"]
    )
    summary = state_summary(state)
    assert summary["hands"]["ann"] == {"farmer": 3}
    assert summary["hands"]["bob"] == {"monk": 2, "ninja": 1}
    assert summary["draw_piles"] == [51, 50]
    play(state, "ann draw draw1", "ann draw draw2")
    assert state_summary(state)["hands"]["ann"] == {"farmer": 3, "envoy": 1, "emperor": 1}


def test_arrange_keeps_110_cards() -> None:
    state = game()
    arrange(state, hands={"ann": {"farmer": 5}}, tables={"bob": {"monk": 3}}, discards=[["emperor"], []])
    assert card_total(state) == 110
    assert state.owner[7] == 1
