# The front door: `make run` and `make test` set everything up themselves.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.DEFAULT_GOAL := help
.PHONY: help run test lint demo bench bench-web bench-sweep bench-mail bench-mail-in bench-memory play clean i18n-extract i18n-update i18n-compile i18n-check

help:  ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-11s %s\n", $$1, $$2}'

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	$(BIN)/pbem i18n compile
	touch $(STAMP)

CATALOGS := $(wildcard pbem/translations/*/LC_MESSAGES/messages.po)

$(CATALOGS:.po=.mo): %.mo: %.po | $(STAMP)
	$(BIN)/pbem i18n compile

run: export PBEM_MAIL_REPLY_ADDRESS ?= play@pbem.localhost
run: $(STAMP) $(CATALOGS:.po=.mo)  ## migrate the SQLite database, start a demo game and serve it at http://127.0.0.1:5000
	$(BIN)/pbem db-upgrade
	$(BIN)/pbem demo
	$(BIN)/pbem demo --game call-to-adventure
	$(BIN)/pbem serve --host 127.0.0.1 --port 5000

test: $(STAMP) $(CATALOGS:.po=.mo)  ## run the whole test suite (lint and type checks included), two at a time
	$(BIN)/python -m pytest -n 2

lint: $(STAMP)  ## ruff and mypy
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

demo: $(STAMP)  ## play a game of bots in the terminal and print its milestones and result
	$(BIN)/python -m engine demo

bench: $(STAMP)  ## engine speed: random legal games on one core
	$(BIN)/python -m engine bench

bench-web: $(STAMP)  ## web speed: 16 players against gunicorn on SQLite, then PostgreSQL (PBEM_BENCH_POSTGRES_URL)
	$(BIN)/python bench/web.py

bench-mail-in: $(STAMP)  ## replies by email: 1,000 replies through Dovecot and pbem mail-in --imap, SQLite then PostgreSQL (PBEM_BENCH_POSTGRES_URL)
	$(BIN)/python bench/mail_in.py

bench-sweep: $(STAMP)  ## sweep speed: reminder and deadline sweeps over 100,000 active games, SQLite then PostgreSQL
	$(BIN)/python bench/sweep.py

bench-mail: $(STAMP)  ## mail speed: pbem scheduler into a local SMTP server, and 10,000 reminders after an outage
	cd bench && ../$(BIN)/python mail.py

bench-memory: $(STAMP)  ## memory (PSS) of one gunicorn worker and the scheduler after a load run
	$(BIN)/python bench/memory.py

play: $(STAMP)  ## heuristic bot against two random bots, 1000 games
	$(BIN)/python -m engine play --players 3 --bots heuristic,random,random --games 1000 --seed 1

i18n-extract: $(STAMP)  ## collect the texts to translate into pbem/translations/messages.pot
	$(BIN)/pbem i18n extract

i18n-update: i18n-extract  ## add new texts to each language's .po (untranslated, never fuzzy)
	$(BIN)/pbem i18n update

i18n-compile: $(STAMP)  ## compile the .po catalogs to the .mo files the server reads
	$(BIN)/pbem i18n compile

i18n-check: $(STAMP)  ## list what each language lacks; fails on untranslated or fuzzy texts
	$(BIN)/pbem i18n check

clean:  ## remove the virtual environment and caches
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
