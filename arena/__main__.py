"""`python -m uno_env.arena`: the `uno-arena` command."""

import sys

from .tournament import main

sys.exit(main())
