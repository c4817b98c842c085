"""HTML snippets the pages repeat many times (cards, move buttons), built in Python.

A Jinja macro call costs tens of microseconds; a player's page shows dozens of cards and buttons, so
these two are functions (Jinja globals) that return escaped Markup. The macros in
templates/play/_card.html call them, so the markup has one source.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from markupsafe import Markup, escape

from engine import call_to_glory as glory

VALUES = dict(zip(glory.TYPES, glory.VALUES, strict=True))


def card(type: str, count: int | None = None, small: bool = False) -> Markup:
    """A coloured card: its value and name, and ×count for more than one."""
    extra = f"<i>×{int(count)}</i>" if count and count > 1 else ""
    return Markup(
        f'<span class="card t-{escape(type)}{" small" if small else ""}"><b>{VALUES.get(type, "")}</b>'
        f"<span>{escape(type.capitalize())}</span>{extra}</span>"
    )


def move_form(
    form: Mapping[str, str], decision: Any, label: str, fields: Mapping[str, Any], cls: str = "", note: str = ""
) -> Markup:
    """One move button: a POST form with the CSRF token, the decision it was made for and the move's fields;
    ``note`` (what the move does) is a second line on the button."""
    small = f'<small class="note">{escape(note)}</small>' if note else ""
    hidden = "".join(f'<input type="hidden" name="{escape(k)}" value="{escape(v)}">' for k, v in fields.items())
    return Markup(
        f'<form method="post" action="{escape(form["action"])}">\n'
        f'  <input type="hidden" name="csrf_token" value="{escape(form["csrf"])}">\n'
        f'  <input type="hidden" name="decision" value="{escape(decision)}">\n'
        f"  {hidden}\n"
        f'  <button type="submit" class="{escape(cls)}">{escape(label)}{small}</button>\n'
        "</form>"
    )
