"""Templates speak the language spoken when they render: the right language after a switch within a request,
placeholders filled in and escaped, plurals by number."""

from __future__ import annotations

from flask import Flask, render_template_string

from pbem import i18n


def test_each_render_speaks_the_language_of_that_moment(app: Flask) -> None:
    turn, cards, named = (
        "{{ _('Your turn') }}",
        "{{ ngettext('%(num)d card', '%(num)d cards', n) }}",
        "{{ _('%(name)s (file)', name=who) }}",
    )
    template = f"{turn} · {cards} · {named}"
    with app.test_request_context("/"):
        assert render_template_string(template, n=1, who="<b>") == "Your turn · 1 card · &lt;b&gt; (file)"
        i18n.use("nl")
        assert render_template_string(template, n=2, who="club.toml") == "Jouw beurt · 2 kaarten · club.toml (bestand)"
        with i18n.in_language("fr"):
            assert render_template_string("{{ _('Your turn') }}") == "À vous de jouer"
        assert render_template_string("{% trans %}Your turn{% endtrans %}") == "Jouw beurt"
