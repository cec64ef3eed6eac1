"""The five papers the book reproduces, each in its own subpackage, apart from the methods.

Each ``credalbook.papers.<paper>`` holds that paper's experiments, figures, the numbers it reports
and the rows of its chapter's "Paper vs. this book" table; :mod:`credalbook.papers.report` is the
table itself and :mod:`credalbook.papers.presets` the chapters' sizes per scale. Nothing in the
core of the package imports from here.
"""

__all__ = ["eu", "juergens", "mimori", "mortier", "presets", "primer", "report", "wu_gales"]
