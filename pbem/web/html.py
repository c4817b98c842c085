"""HTML snippets the pages repeat many times (move buttons), built in Python.

A Jinja macro call costs tens of microseconds; a player's page shows dozens of buttons, so this is a
function (the Jinja global ``move_form_html``) that returns escaped Markup.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from markupsafe import Markup, escape


def move_form(
    form: Mapping[str, str],
    decision: Any,
    label: str,
    fields: Mapping[str, Any],
    cls: str = "",
    note: str = "",
    via: tuple[str, str] | None = None,
) -> Markup:
    """One move button: a POST form with the CSRF token, the decision it was made for and the move's fields;
    ``note`` (what the move does) is a second line on the button. With ``via`` (a form's id and the move's link),
    the button submits that form (the message to the table typed in it) to the move's link instead."""
    small = f'<small class="note">{escape(note)}</small>' if note else ""
    owner = f' form="{escape(via[0])}" formaction="{escape(via[1])}"' if via else ""
    hidden = "".join(f'<input type="hidden" name="{escape(k)}" value="{escape(v)}">' for k, v in fields.items())
    return Markup(
        f'<form method="post" action="{escape(form["action"])}">\n'
        f'  <input type="hidden" name="csrf_token" value="{escape(form["csrf"])}">\n'
        f'  <input type="hidden" name="decision" value="{escape(decision)}">\n'
        f"  {hidden}\n"
        f'  <button type="submit" class="{escape(cls)}"{owner}>{escape(label)}{small}</button>\n'
        "</form>"
    )
