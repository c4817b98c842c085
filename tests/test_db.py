"""pbem.db's JSON codec: orjson for every JSON column, reading what the standard library wrote before."""

from __future__ import annotations

import json
import math
from pathlib import Path

from sqlalchemy import JSON, Column, Integer, MetaData, Table, insert, select, text

from pbem import db


def _table(tmp_path: Path) -> tuple[object, Table]:
    engine = db.make_engine(f"sqlite:///{tmp_path / 'codec.sqlite3'}")
    table = Table("t", MetaData(), Column("id", Integer, primary_key=True), Column("value", JSON))
    table.metadata.create_all(engine)
    return engine, table


def test_values_round_trip_as_the_standard_library_gave_them(tmp_path: Path) -> None:
    engine, table = _table(tmp_path)
    value = {"state": {"1": [1, 2]}, 3: "int key", "wide": 2**70, "text": 'é\n"', "none": None}
    with engine.begin() as conn:  # type: ignore[attr-defined]
        conn.execute(insert(table), {"id": 1, "value": value})
        stored = conn.execute(text("SELECT value FROM t WHERE id = 1")).scalar()
        read = conn.execute(select(table.c.value).where(table.c.id == 1)).scalar()
    assert read == json.loads(json.dumps(value))  # int keys become strings, wide ints stay exact
    assert read["wide"] == 2**70
    assert json.loads(stored) == read


def test_columns_are_written_by_orjson(tmp_path: Path) -> None:
    engine, table = _table(tmp_path)
    with engine.begin() as conn:  # type: ignore[attr-defined]
        conn.execute(insert(table), {"id": 1, "value": {"a": [1, 2], 7: None}})
        stored = conn.execute(text("SELECT value FROM t WHERE id = 1")).scalar()
    assert stored == '{"a":[1,2],"7":null}'  # the standard library would write '{"a": [1, 2], "7": null}'


def test_rows_written_by_the_standard_library_are_read(tmp_path: Path) -> None:
    engine, table = _table(tmp_path)
    with engine.begin() as conn:  # type: ignore[attr-defined]
        conn.execute(text("INSERT INTO t (id, value) VALUES (1, :v)"), {"v": json.dumps({"a": [1, 2.5], "b": "x"})})
        conn.execute(text("INSERT INTO t (id, value) VALUES (2, :v)"), {"v": json.dumps({"odd": math.nan})})
        first = conn.execute(select(table.c.value).where(table.c.id == 1)).scalar()
        second = conn.execute(select(table.c.value).where(table.c.id == 2)).scalar()
    assert first == {"a": [1, 2.5], "b": "x"}
    assert math.isnan(second["odd"])
