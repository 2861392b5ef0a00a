"""``python -m wargames_cli``: the same as the ``wargames`` console script."""

import sys

from wargames_cli.cli import main

sys.exit(main())
