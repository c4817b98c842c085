"""Languages: which one a reader gets, the catalogs (Flask-Babel), and dates in the reader's words and zone.

A seat's pages and emails speak the seat's language (``use`` in a view, ``in_language`` in the sender); pages
reached without a seat follow the ``lang`` cookie set by the visible switch, else the browser's
``Accept-Language``. Catalogs are ``.po`` files under ``pbem/translations``; their ``.mo`` files are compiled by
``pbem i18n compile`` (``make`` does it) and, when missing or older than their ``.po``, when the app starts.
"""

from __future__ import annotations

import logging
import os
import tempfile
import weakref
from collections.abc import Callable, Iterable, Iterator, Mapping, MutableMapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta, tzinfo
from pathlib import Path
from typing import Any

from babel.dates import format_date, format_datetime, format_timedelta
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.support import NullTranslations
from flask import Flask, g, has_app_context, has_request_context, request
from flask.sansio.app import App
from flask.templating import Environment as FlaskEnvironment
from flask_babel import Babel, force_locale, get_domain, get_locale, refresh
from jinja2 import BaseLoader, Template, pass_eval_context
from jinja2.ext import Extension
from jinja2.lexer import Token, TokenStream
from jinja2.nodes import EvalContext
from markupsafe import Markup

from . import timing

log = logging.getLogger(__name__)

SUPPORTED: tuple[str, ...] = ("en", "nl", "fr")
"""The languages a reader can choose, the source language first."""
NAMES: dict[str, str] = {"en": "English", "nl": "Nederlands", "fr": "Français"}
"""Each language in its own words, as the switch and the forms offer it."""
DEFAULT = "en"
COOKIE = "lang"
TRANSLATIONS = Path(__file__).resolve().parent / "translations"
DOMAIN = "messages"

babel = Babel()


def N_(text: str) -> str:
    """Mark ``text`` as a message key: extracted into the catalogs, translated when shown (``text``), not here."""
    return text


def Np_(singular: str, plural: str) -> tuple[str, str]:
    """Mark a message key that counts (``%(num)d``): its singular and plural forms, for the catalogs."""
    return singular, plural


def language(value: str | None) -> str:
    """A supported language for ``value`` ('nl', 'nl-BE', 'FR_fr'), else the default."""
    code = (value or "").replace("_", "-").split("-", 1)[0].strip().lower()
    return code if code in SUPPORTED else DEFAULT


def init_app(app: Flask) -> None:
    """Install Flask-Babel (gettext in Jinja included) and compile catalogs that are missing or stale."""
    try:
        compile_catalogs(only_stale=True)
    except OSError as error:  # a read-only install: the build step should have compiled them
        log.warning("could not compile the translation catalogs (%s): run `pbem i18n compile`", error)
    babel.init_app(
        app,
        locale_selector=_select_locale,
        timezone_selector=_select_timezone,
        default_translation_directories=str(TRANSLATIONS),
        default_domain=DOMAIN,
    )
    # Templates call gettext dozens of times a page: look the catalog up once per locale, not per call.
    app.jinja_env.install_gettext_callables(  # type: ignore[attr-defined]
        lambda text: translations().ugettext(text),
        lambda singular, plural, n: translations().ungettext(singular, plural, n),
        newstyle=True,
    )
    app.jinja_env.filters[VALUES_FILTER] = with_values
    app.jinja_env.globals["languages"] = NAMES
    app.jinja_env.globals["current_language"] = current


def _select_locale() -> str:
    chosen = g.get("pbem_lang")
    if chosen:
        return str(chosen)
    if has_request_context():
        cookie = request.cookies.get(COOKIE)
        if cookie in SUPPORTED:
            return str(cookie)
        return request.accept_languages.best_match(SUPPORTED) or DEFAULT
    return DEFAULT


def _select_timezone() -> str:
    return str(g.get("pbem_tz") or "UTC")


def use(lang: str | None, tz: str | None = None) -> None:
    """Speak ``lang`` (and show times in ``tz``) for the rest of this request: a seat's own language and zone."""
    chosen = language(lang)
    if g.get("pbem_lang") == chosen and (not tz or g.get("pbem_tz") == tz):
        return  # already spoken: Flask-Babel's locale stays as it was found
    g.pbem_lang = chosen
    if tz:
        g.pbem_tz = tz
    refresh()


def current() -> str:
    """The language being spoken now ('en' outside any context)."""
    locale = get_locale()
    code = locale.language if locale is not None else DEFAULT
    return code if code in SUPPORTED else DEFAULT


_NULL = NullTranslations()
_LOADED: dict[Any, Any] = {}


def translations() -> Any:
    """The catalog of the language spoken now (no translation outside any context), loaded once per locale."""
    locale = get_locale()
    if locale is None:
        return _NULL
    found = _LOADED.get(locale)
    if found is None:
        found = _LOADED[locale] = get_domain().get_translations()
    return found


def text(key: str | tuple[str, str], /, **params: Any) -> str:
    """A message key (the English text; a (singular, plural) pair for one that counts ``num``) in the language
    spoken now, with ``params`` filled in (``%(name)s``): dates, times and durations in the reader's words (``day``,
    ``when`` on the reader's clock, ``duration``). A translation that names a parameter it was not given falls
    back to the English text."""
    catalog = translations()
    if isinstance(key, str):
        english, found = key, str(catalog.ugettext(key)) if key else ""
    else:
        num = params.get("num", 1)
        english = key[0] if num == 1 else key[1]
        found = str(catalog.ungettext(key[0], key[1], num))
    if not params:
        return found
    shown = {name: _shown(value) for name, value in params.items()}
    try:
        return found % shown
    except (KeyError, ValueError, TypeError):
        return english % shown


def _shown(value: Any) -> Any:
    """A message parameter in the reader's words: a date, a time, a duration or a stored text (``stored``);
    anything else as it is."""
    if isinstance(value, datetime):
        return when(value, _select_timezone() if has_app_context() else "UTC")
    if isinstance(value, date):
        return day(value)
    if isinstance(value, timedelta):
        return duration(value)
    if isinstance(value, dict) and "key" in value and "params" in value:
        return words(value)
    return value


@contextmanager
def in_language(lang: str | None, tz: str | None = None) -> Iterator[None]:
    """Speak ``lang`` inside the block, and with ``tz`` show times on that clock (needs an app context:
    ``force_locale`` does nothing without one): an email to a seat, in its language and time zone."""
    with force_locale(language(lang)):
        if tz is None or not has_app_context():
            yield
            return
        before = g.get("pbem_tz")
        g.pbem_tz = tz
        try:
            yield
        finally:
            g.pbem_tz = before


def catalog(lang: str) -> Any:
    """The catalog of ``lang`` (none outside an app context)."""
    with force_locale(language(lang)):
        return translations()


# -------------------------------------------------------------------------------------------- templates

GETTEXT_NAMES = ("_", "gettext")
TEMPLATE_CACHE = 2000
"""Compiled templates kept (Jinja's default is 400): every template in every language, for a few games."""


class TranslatingEnvironment(FlaskEnvironment):
    """Flask's Jinja environment, with every template compiled once per language: ``_('…')`` is compiled
    already translated (a page has some forty, each otherwise a catalog lookup at every render), its values,
    if any, filled in as the page renders. ``ngettext`` (a plural depends on its number) and ``{% trans %}``
    blocks are still translated as the page renders.

    A template is looked up in the language spoken now (``current``), and what it includes or imports in the
    same language. The languages' templates share this environment's loader and cache, so changing either
    (``cache.clear()`` after a new loader) reaches them all.
    """

    language: str | None = None
    """The language of an environment's templates (None: the one that hands each lookup to its language)."""

    def __init__(self, app: App, **options: Any) -> None:
        options.setdefault("cache_size", TEMPLATE_CACHE)
        super().__init__(app, **options)

    def speaking(self, lang: str) -> TranslatingEnvironment:
        """The environment of the templates in ``lang``, made once."""
        # (owner, table): an overlay copies its parent's attributes, this one included, but needs its own table
        owner, table = self.__dict__.get("_pbem_languages", (None, {}))
        if owner is not self:
            table = {}
            self.__dict__["_pbem_languages"] = (self, table)
        found: TranslatingEnvironment | None = table.get(lang)
        if found is None:
            found = self.overlay(cache_size=0, extensions=[ConstantTexts])
            found.language = lang
            found.loader = _Follow(self)
            found.cache = self.cache
            table[lang] = found
        return found

    def _load_template(self, name: str, globals: MutableMapping[str, Any] | None) -> Template:
        if self.language is None:
            return self.speaking(current())._load_template(name, globals)
        linked = self.linked_to
        if linked is not None:
            self.auto_reload = linked.auto_reload
        return super()._load_template(name, globals)


class _Follow(BaseLoader):
    """A language's loader: the source from its parent environment's loader as that loader is now. Its own
    identity keeps the language's templates apart from the others' in the shared cache."""

    def __init__(self, parent: TranslatingEnvironment) -> None:
        self._parent = weakref.ref(parent)

    def get_source(self, environment: Any, template: str) -> tuple[str, str | None, Callable[[], bool] | None]:
        parent = self._parent()
        if parent is None or parent.loader is None:
            raise RuntimeError("the templates' environment is gone")
        return parent.loader.get_source(environment, template)

    def list_templates(self) -> list[str]:
        parent = self._parent()
        return [] if parent is None or parent.loader is None else parent.loader.list_templates()


class ConstantTexts(Extension):
    """Compile ``_('text')`` and ``gettext('text')`` (a string and nothing else) as the text translated into
    the environment's language: what new-style gettext returns for it (``%%`` read as ``%``; Markup where the
    template escapes). ``_('text', name=value, …)`` becomes the translated text with the values filled in
    (the ``pbem_values`` filter), as gettext would fill them, without the lookup."""

    def filter_stream(self, stream: TokenStream) -> Iterable[Token]:
        lang = getattr(self.environment, "language", None)
        if lang is None or not has_app_context():
            return stream
        texts = catalog(lang)
        autoescape = self.environment.autoescape
        escaping = bool(autoescape(stream.name) if callable(autoescape) else autoescape)
        tokens = list(stream)
        out: list[Token] = []
        i = 0
        while i < len(tokens):
            call = _gettext_call(tokens, i)
            if call is None:
                out.append(tokens[i])
                i += 1
                continue
            line, message = tokens[i].lineno, tokens[i + 2].value
            if call == i + 3:  # no values
                try:
                    text = str(texts.ugettext(message) % {})
                except (TypeError, ValueError, KeyError):  # it needs values: left to the render, which fails as before
                    out.append(tokens[i])
                    i += 1
                    continue
                out += [Token(line, "lparen", "("), Token(line, "string", text)]
                out += [Token(line, "pipe", "|"), Token(line, "name", "safe")] if escaping else []
                out.append(Token(line, "rparen", ")"))
            else:
                out += [Token(line, "lparen", "("), Token(line, "string", str(texts.ugettext(message)))]
                out += [Token(line, "pipe", "|"), Token(line, "name", VALUES_FILTER), Token(line, "lparen", "(")]
                out += tokens[i + 4 : call + 1]  # name=value, … and the call's closing parenthesis
                out.append(Token(line, "rparen", ")"))
            i = call + 1
        return out


VALUES_FILTER = "pbem_values"


@pass_eval_context
def with_values(eval_ctx: EvalContext, text: str, /, **variables: Any) -> str:
    """A translated text compiled into a template, with its values filled in as new-style gettext fills them."""
    return (Markup(text) if eval_ctx.autoescape else text) % variables


def _gettext_call(tokens: list[Token], i: int) -> int | None:
    """Where a gettext call on one string, alone or with ``name=value`` arguments, that starts at ``tokens[i]``
    ends (the index of its closing parenthesis), else None."""
    if i + 3 >= len(tokens) or tokens[i].type != "name" or tokens[i].value not in GETTEXT_NAMES:
        return None
    if (i and tokens[i - 1].type == "dot") or (tokens[i + 1].type, tokens[i + 2].type) != ("lparen", "string"):
        return None
    if tokens[i + 3].type == "rparen":
        return i + 3
    if tokens[i + 3].type != "comma" or i + 5 >= len(tokens):
        return None
    if (tokens[i + 4].type, tokens[i + 5].type) != ("name", "assign"):
        return None
    depth = 1
    for j in range(i + 4, len(tokens)):
        kind = tokens[j].type
        if kind == "lparen":
            depth += 1
        elif kind == "rparen":
            depth -= 1
            if depth == 0:
                return j
        elif kind in ("variable_end", "block_end"):
            return None
    return None


# ------------------------------------------------------------------------------------------------ dates


def zone_name(tz: tzinfo) -> str:
    """The name a time zone is known by: 'Europe/Amsterdam', 'UTC'."""
    if tz is UTC:
        return "UTC"
    return str(getattr(tz, "key", None) or tz.tzname(None) or tz)


def _zone(tz: tzinfo | str) -> tzinfo:
    return timing.zone(tz) if isinstance(tz, str) else tz


def when(instant: datetime, tz: tzinfo | str, lang: str | None = None) -> str:
    """An instant (naive means UTC) on the clock of ``tz``, in the words of ``lang`` (default: the current
    language), with the zone's name: 'Thursday 12 March 2026, 14:05 (Europe/Amsterdam)', 'donderdag 12 maart
    2026, 14:05 (Europe/Amsterdam)'. The one time label of pages, emails and admin."""
    zone_of = _zone(tz)
    local = (instant if instant.tzinfo is not None else instant.replace(tzinfo=UTC)).astimezone(zone_of)
    words = format_datetime(local, "EEEE d MMMM y, HH:mm", tzinfo=zone_of, locale=language(lang or current()))
    return f"{words} ({zone_name(zone_of)})"


def day(value: date, lang: str | None = None) -> str:
    """A date in plain words: '12 March 2026', '12 maart 2026', '12 mars 2026'."""
    return format_date(value, "d MMMM y", locale=language(lang or current()))


def duration(delta: timedelta, lang: str | None = None) -> str:
    """A length of time in whole days and hours, in plain words: '2 days', '1 dag en 5 uur', 'less than an hour'."""
    code = language(lang or current())
    days, hours = divmod(int(delta.total_seconds() // 3600), 24)
    parts = [format_timedelta(timedelta(days=days), locale=code)] * bool(days)
    parts += [format_timedelta(timedelta(hours=hours), locale=code)] * bool(hours)
    texts = _catalog_of(code)
    if len(parts) == 2:
        return str(texts.ugettext(N_("%(days)s and %(hours)s"))) % {"days": parts[0], "hours": parts[1]}
    return parts[0] if parts else str(texts.ugettext(N_("less than an hour")))


def _catalog_of(lang: str) -> Any:
    """The catalog of ``lang``: the current one when it is spoken now, none outside an app context."""
    if not has_app_context():
        return _NULL
    return translations() if lang == current() else catalog(lang)


def relative(instant: datetime, now: datetime, lang: str | None = None) -> str:
    """How long ago (or, in the future, how soon) ``instant`` is, short: '3 days ago', 'in 5 hr.', 'il y a 7 min'."""
    moment = instant if instant.tzinfo is not None else instant.replace(tzinfo=UTC)
    return format_timedelta(moment - now, add_direction=True, format="short", locale=language(lang or current()))


# --------------------------------------------------------------------------------------------- catalogs


@dataclass(frozen=True)
class CatalogReport:
    """What a catalog lacks: messages without a translation and fuzzy ones."""

    language: str
    total: int
    untranslated: tuple[str, ...]
    fuzzy: tuple[str, ...]

    @property
    def complete(self) -> bool:
        """True when every message has a translation that is not fuzzy."""
        return not self.untranslated and not self.fuzzy


def po_path(lang: str) -> Path:
    """The ``.po`` file of a language."""
    return TRANSLATIONS / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


def translated_languages() -> list[str]:
    """The languages that have a catalog (every supported language but the source one)."""
    return sorted(p.name for p in TRANSLATIONS.iterdir() if (p / "LC_MESSAGES" / f"{DOMAIN}.po").is_file())


def compile_catalogs(*, only_stale: bool = False) -> list[str]:
    """Write each language's ``.mo`` next to its ``.po`` (atomically); the languages compiled."""
    done: list[str] = []
    if not TRANSLATIONS.is_dir():
        return done
    for lang in translated_languages():
        po = po_path(lang)
        mo = po.with_suffix(".mo")
        if only_stale and mo.is_file() and mo.stat().st_mtime >= po.stat().st_mtime:
            continue
        with po.open("rb") as source:
            catalog = read_po(source, locale=lang)
        handle, temporary = tempfile.mkstemp(dir=mo.parent, prefix=".messages-", suffix=".mo")
        try:
            with os.fdopen(handle, "wb") as target:
                write_mo(target, catalog)
            os.replace(temporary, mo)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
        done.append(lang)
    return done


def check_catalog(lang: str) -> CatalogReport:
    """Read a language's ``.po`` and say what it lacks."""
    with po_path(lang).open("rb") as source:
        catalog = read_po(source, locale=lang)
    untranslated, fuzzy = [], []
    for message in catalog:
        if not message.id:
            continue
        key = message.id if isinstance(message.id, str) else message.id[0]
        strings = message.string if isinstance(message.string, tuple | list) else (message.string,)
        if not all(strings):
            untranslated.append(key)
        elif message.fuzzy:
            fuzzy.append(key)
    return CatalogReport(lang, len([m for m in catalog if m.id]), tuple(untranslated), tuple(fuzzy))


# ----------------------------------------------------------------------------------------- stored texts

StoredText = dict[str, Any]
"""A text stored as a code: ``{"key": <message key, or [singular, plural]>, "params": {name: value}}``. Values
are plain JSON, or tagged: ``{"$at": ISO instant}``, ``{"$day": ISO date}``, ``{"$for": seconds}``, ``{"$text":
<a stored text>}`` and ``{"$words": {lang: words}}`` (words someone else put into each language: a game's)."""


@dataclass(frozen=True)
class EachLanguage:
    """Words already put into every supported language (a game's own words), to be stored in a text's parameters
    and shown in the reader's: ``EachLanguage.of(lambda lang: rules.speaking(lang).describe_move(move))``."""

    words: Mapping[str, str]

    @classmethod
    def of(cls, say: Callable[[str], str]) -> EachLanguage:
        """``say`` asked once for each supported language."""
        return cls({lang: say(lang) for lang in SUPPORTED})


def stored(key: str | tuple[str, str], /, **params: Any) -> StoredText:
    """A text to store as a code (``key``, marked with ``N_`` or ``Np_``) with its parameters, put into words when
    it is shown (``words``), in the reader's language and time zone. A parameter may be a date, a time, a
    duration, another stored text or ``EachLanguage``."""
    return {"key": list(key) if isinstance(key, tuple) else key, "params": {n: _stored(v) for n, v in params.items()}}


def _stored(value: Any) -> Any:
    if isinstance(value, datetime):
        moment = value if value.tzinfo is not None else value.replace(tzinfo=UTC)
        return {"$at": moment.astimezone(UTC).isoformat()}
    if isinstance(value, date):
        return {"$day": value.isoformat()}
    if isinstance(value, timedelta):
        return {"$for": value.total_seconds()}
    if isinstance(value, EachLanguage):
        return {"$words": dict(value.words)}
    if isinstance(value, dict) and "key" in value and "params" in value:
        return {"$text": value}
    return value


def words(text_: StoredText | str | None, /, lang: str | None = None) -> str:
    """A stored text in the words of ``lang`` (default: the language spoken now; ``"en"`` needs no app). A
    sentence stored before texts were codes (a string) is shown as it is; None is ''."""
    if text_ is None:
        return ""
    if isinstance(text_, str):
        return text_
    raw = text_.get("key") or ""
    key: str | tuple[str, str] = raw if isinstance(raw, str) else (str(raw[0]), str(raw[1]))
    stored_params = text_.get("params") or {}
    if not has_app_context():
        return _english(key, {n: _spoken(v, DEFAULT) for n, v in stored_params.items()})
    if lang is None or language(lang) == current():
        return text(key, **{n: _spoken(v, current()) for n, v in stored_params.items()})
    with in_language(lang):
        return text(key, **{n: _spoken(v, language(lang)) for n, v in stored_params.items()})


def english(text_: StoredText | str | None, /) -> str:
    """A stored text in English, times in UTC, whatever is spoken now: the copy a row keeps for those who read the
    database itself."""
    if text_ is None or isinstance(text_, str):
        return text_ or ""
    raw = text_.get("key") or ""
    key: str | tuple[str, str] = raw if isinstance(raw, str) else (str(raw[0]), str(raw[1]))
    return _english(key, {n: _spoken(v, DEFAULT, "UTC") for n, v in (text_.get("params") or {}).items()})


def _english(key: str | tuple[str, str], params: Mapping[str, Any]) -> str:
    """The source text of ``key`` with ``params`` filled in, without a catalog."""
    if isinstance(key, tuple):
        key = key[0] if params.get("num", 1) == 1 else key[1]
    try:
        return key % dict(params) if params else key
    except (KeyError, ValueError, TypeError):
        return key


def _spoken(value: Any, lang: str, tz: str | None = None) -> Any:
    """A stored parameter in the words of ``lang`` (times on the clock of ``tz``, else the reader's)."""
    if not isinstance(value, dict) or len(value) != 1:
        return value
    ((tag, inner),) = value.items()
    if tag == "$at":
        zone_of = tz or (_select_timezone() if has_app_context() else "UTC")
        return when(datetime.fromisoformat(inner), zone_of, lang)
    if tag == "$day":
        return day(date.fromisoformat(inner), lang)
    if tag == "$for":
        return duration(timedelta(seconds=float(inner)), lang)
    if tag == "$text":
        return english(inner) if tz == "UTC" and lang == DEFAULT else words(inner, lang)
    if tag == "$words":
        return inner.get(lang) or inner.get(DEFAULT) or next(iter(inner.values()), "")
    return value
