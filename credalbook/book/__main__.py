"""``python -m credalbook.book``: the book's command line (see :mod:`credalbook.book.runner`)."""

import os
import sys

from credalbook.book.runner import main, MALLOC_SETTINGS, OPENMP_SETTINGS

for _k, _v in OPENMP_SETTINGS.items():  # before anything imports torch (GNU OpenMP reads them when it loads)
    os.environ.setdefault(_k, _v)

# glibc reads its malloc settings at start-up only: start again with them (once; values set by the caller win), so
# that every command, `run --part` by hand included, computes with them.
if sys.platform.startswith("linux") and not all(k in os.environ for k in MALLOC_SETTINGS):
    os.execve(
        sys.executable, [sys.executable, "-m", "credalbook.book", *sys.argv[1:]], {**MALLOC_SETTINGS, **os.environ}
    )

sys.exit(main())
