"""The Flask extensions the app shares with its blueprints, created here and bound in ``create_app``."""

from __future__ import annotations

from flask_login import LoginManager
from flask_wtf.csrf import CSRFProtect

csrf = CSRFProtect()
login_manager = LoginManager()
