"""``python -m credalbook evaluate ...``: the command line of :mod:`credalbook.cli`."""

import sys

from credalbook.cli import main

if __name__ == "__main__":
    sys.exit(main())
