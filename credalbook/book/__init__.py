"""Executing the chapters with papermill, building the site with Jupyter Book, and its API pages.

Run as ``python -m credalbook.book build`` (see README.md); :mod:`credalbook.book.api_pages` writes
the API reference pages from the subpackages' ``__all__``. Nothing else in the package imports this
subpackage.
"""

__all__ = ["api_pages", "chapters", "pages", "records", "reproduce", "runner"]
