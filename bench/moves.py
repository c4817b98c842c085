"""Time moves through flows.apply_move (the move's transaction, with what it queues): ``python -m bench.moves``.

Three people with addresses play Call to Glory games (or ``--game call-to-adventure``; heuristic bot moves) on a
fresh SQLite database until ``--moves`` moves were made; only the ``flows.apply_move`` transactions are timed.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from pbem import create_app, db, flows
from pbem.core import games
from pbem.core import seats as seat_rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--moves", type=int, default=200)
    parser.add_argument("--game", default=games.DEFAULT_GAME, help="a key of engine.GAMES")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{Path(tmp) / 'bench.sqlite3'}"
        app = create_app({"TESTING": True, "DATABASE_URL": url, "SECRET_KEY": "bench-" + "x" * 32})
        with app.app_context():
            db.upgrade(db.get_engine())
        spent, done, game_id = 0.0, 0, None
        specs = [games.SeatSpec(n, email=f"{n}@example.com") for n in ("ann", "bob", "cy")]
        while done < args.moves:
            with app.app_context(), db.write_session() as session:
                if game_id is None:
                    new = flows.games.create(session=session, name="Bench", seats=specs, seed=done, game=args.game)
                    game_id = new.id
                game = seat_rows.get_game(session=session, game_id=game_id or 0)
                rules = games.rules_of(game)
                state = games.load_state(game)
                waiting = rules.waiting_for(state)
            if not waiting:
                game_id = None
                continue
            player, decision = next(iter(waiting.items()))
            move = games.move_body(games.bot_move(rules, state, player))
            seat = [s.name for s in specs].index(player)
            start = time.perf_counter()
            with app.app_context(), db.write_session() as session:
                flows.play.move(
                    session=session, game_id=game_id or 0, seat=seat, move=move, decision=decision.id, source="page"
                )
            spent += time.perf_counter() - start
            done += 1
        app.extensions["pbem_engine"].dispose()
    print(f"{done} moves through flows.apply_move: {spent:.2f} s, {1000 * spent / done:.1f} ms per move")


if __name__ == "__main__":
    main()
