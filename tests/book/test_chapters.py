"""credalbook.book.chapters: every chapter shows its paper-scale record: the ``publish(...)`` call is its cell's last expression (a line
after it, a ``glue`` for instance, would leave the record undisplayed; the book test finds that only after a
ten-minute build)."""

import ast

import nbformat
import pytest

from credalbook.book.chapters import chapter_paths


@pytest.mark.parametrize("nb", chapter_paths(), ids=lambda p: p.stem)
def test_publish_is_the_last_expression(nb):
    cells = [c for c in nbformat.read(nb, as_version=4).cells if c.cell_type == "code" and "publish(" in c.source]
    for cell in cells:
        body = ast.parse(cell.source).body
        calls = [
            s
            for s in body
            if isinstance(s, ast.Expr)
            and isinstance(s.value, ast.Call)
            and getattr(s.value.func, "id", "") == "publish"
        ]
        if calls:
            assert body[-1] is calls[-1], f"{nb.stem}: publish(...) must end its cell"
