"""Executing the chapters with papermill and building the site with Jupyter Book.

Run as ``python -m credalbook.book.runner build`` (see README.md). Nothing else in the package
imports this subpackage.
"""

__all__ = ["runner"]
