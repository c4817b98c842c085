"""Templates are compiled once per language with their constant texts already translated: the words, escaping and
formatting are those of gettext at render time, texts with values are still translated as the page renders, and a
changed template reaches every language."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask, render_template, render_template_string
from jinja2 import ChoiceLoader, DictLoader

from pbem import i18n

SOURCE = "{{ _('Your turn') }} · {{ _('Your turn') + '<b>' }} · {{ _('%(name)s (file)', name=who) }}"


@pytest.fixture
def templates(app: Flask) -> Iterator[DictLoader]:
    """Test templates in front of the app's own (the loader is put back afterwards)."""
    own = app.jinja_env.loader
    assert own is not None
    extra = DictLoader({"t.html": SOURCE, "t.txt": SOURCE})
    app.jinja_env.loader = ChoiceLoader([extra, own])
    yield extra
    app.jinja_env.loader = own
    assert app.jinja_env.cache is not None
    app.jinja_env.cache.clear()


def _refuse(*_args: Any, **_kwargs: Any) -> str:
    raise AssertionError("a constant text was looked up while rendering")


@pytest.mark.usefixtures("templates")
def test_each_language_renders_what_gettext_gives_at_render_time(app: Flask) -> None:
    with app.test_request_context("/"):
        for lang, turn in (("en", "Your turn"), ("nl", "Jouw beurt"), ("fr", "À vous de jouer")):
            i18n.use(lang)
            compiled = render_template("t.html", who="<i>")
            assert compiled == render_template_string(SOURCE, who="<i>")  # the runtime path: gettext per call
            assert compiled.startswith(f"{turn} · {turn}&lt;b&gt; · &lt;i&gt; ")
            assert render_template("t.txt", who="<i>").startswith(f"{turn} · {turn}<b> · <i> ")  # text: no escaping


@pytest.mark.usefixtures("templates")
def test_texts_are_not_looked_up_when_rendering(app: Flask) -> None:
    with app.test_request_context("/"):
        i18n.use("nl")
        template = app.jinja_env.get_template("t.html")
        assert template.environment is app.jinja_env.speaking("nl")
        nl = app.jinja_env.speaking("nl")
        plain = "{{ _('Your turn') }} {{ gettext('Your turn') }} {{ obj._('Your turn') }}"
        rendered = nl.from_string(plain).render(_=_refuse, gettext=_refuse, obj={"_": lambda text: text})
        assert rendered == "Jouw beurt Jouw beurt Your turn"  # an attribute named _ is not gettext
        valued = "{{ _('%(name)s (file)', name=(who ~ ')')|upper) }}"
        assert nl.from_string(valued).render(_=_refuse, who="<a") == "&lt;A) (bestand)"
        with pytest.raises(AssertionError, match="looked up"):  # plurals are chosen by number as the page renders
            nl.from_string("{{ ngettext('%(num)d card', '%(num)d cards', 2) }}").render(ngettext=_refuse)


def test_a_text_that_needs_values_fails_as_it_did(app: Flask, templates: DictLoader) -> None:
    templates.mapping["needs.html"] = "{{ _('%(name)s (file)') }}"
    with app.test_request_context("/"):
        i18n.use("fr")
        with pytest.raises(KeyError):
            render_template_string(templates.mapping["needs.html"])
        with pytest.raises(KeyError):
            render_template("needs.html")


def test_a_changed_template_reaches_every_language(app: Flask, templates: DictLoader) -> None:
    with app.test_request_context("/"):
        for lang in ("nl", "fr"):
            i18n.use(lang)
            render_template("t.html", who="")
        own = app.jinja_env.loader
        app.jinja_env.loader = ChoiceLoader([DictLoader({"t.html": "{{ _('Game over') }}"}), own])  # type: ignore[list-item]
        assert app.jinja_env.cache is not None
        app.jinja_env.cache.clear()
        i18n.use("nl")
        assert render_template("t.html") == "Spel afgelopen"
        i18n.use("fr")
        assert render_template("t.html") == "Partie terminée"


def test_every_template_stays_compiled_in_every_language(app: Flask) -> None:
    """Each language compiles its own copy of a template: the cache holds them all, or pages would recompile."""
    cache = app.jinja_env.cache
    assert cache is not None
    assert cache.capacity >= len(i18n.SUPPORTED) * len(app.jinja_env.list_templates())
