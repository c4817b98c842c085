"""Records exported by the engine before its speed-up (main at ea93d2e: bot games of each variant, the starter
set) replay to exactly the summary that engine printed. Records of games that met a point A14 decided otherwise
(a card face cast again, an `any` card after the main action …) replay by the rules page instead: those are the
oracle cases (test_oracle_cases.py); so do solo games, whose Hero and Antihero decks now leave out the cards that
need an opponent (A14.5)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine import GAMES
from engine.call_to_adventure.files import packaged_set

GAME = GAMES["call-to-adventure"]
RECORDS = sorted((Path(__file__).resolve().parent / "records").glob("*.json"))


@pytest.mark.parametrize("path", RECORDS, ids=lambda p: p.stem)
def test_an_old_record_replays_identically(path: Path) -> None:
    saved = json.loads(path.read_text())
    record = saved["record"]
    record["card_set"]["toml"] = packaged_set().text
    _, state, moves = GAME.replay(record)
    assert len(moves) == len(record["moves"])
    assert json.loads(json.dumps(GAME.summary(state))) == saved["summary"]
    assert GAME.result(state) is not None
    assert GAME.record(GAME.replay(record)[0], moves) == record
