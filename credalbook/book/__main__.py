"""``python -m credalbook.book``: the book's command line (see :mod:`credalbook.book.runner`)."""

import sys

from credalbook.book.runner import main

sys.exit(main())
