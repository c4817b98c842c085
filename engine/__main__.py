"""Run the engine's command line: ``python -m engine replay|play|demo|bench``."""

import sys

from .cli import main

sys.exit(main())
