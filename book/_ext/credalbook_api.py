"""Sphinx extension of the book's API reference (book/api/), loaded through ``_config.yml``.

Two things autodoc and napoleon get wrong for this package's docstrings:

- A constant re-exported by a subpackage (``credalbook.metrics.ESTIMATORS``) is documented by
  the ``#:`` comment written beside its assignment in the defining module
  (``credalbook/metrics/distribution.py``); autodoc looks only in the subpackage's ``__init__``
  and otherwise shows the docstring of the value's type (``dict``, ``tuple``).
- Napoleon reads the first line of an attribute or property docstring as ``type: description``
  when it has a colon ("Labels per instance, shape (N,): the row sums"), turning the text before
  the colon into a broken cross-reference. Docstrings of constants, attributes and properties are
  kept as written (reStructuredText), as they are one or two sentences.
"""

from __future__ import annotations

import ast
import importlib
import inspect

from sphinx.pycode import ModuleAnalyzer

#: autodoc object types whose docstrings napoleon does not rewrite.
PLAIN = ("data", "attribute", "property")


def source_module(modname: str, name: str) -> str:
    """The module that assigns ``name``, following ``from X import name`` from ``modname``."""
    seen = set()
    while modname not in seen:
        seen.add(modname)
        try:
            tree = ast.parse(inspect.getsource(importlib.import_module(modname)))
        except (ImportError, OSError, TypeError, SyntaxError):
            return modname
        for node in tree.body:
            if (
                isinstance(node, ast.ImportFrom)
                and node.level == 0
                and node.module
                and any(a.name == name and a.asname in (None, name) for a in node.names)
            ):
                modname = node.module
                break
        else:
            return modname
    return modname


def doc_comment(modname: str, name: str) -> list[str]:
    """The ``#:`` comment above ``name``'s assignment in the module that defines it ([] if none)."""
    try:
        docs = ModuleAnalyzer.for_module(source_module(modname, name)).find_attr_docs()
    except Exception:  # no source: no comment
        return []
    return list(docs.get(("", name), []))


def _keep(app, what, name, obj, options, lines):
    if what in PLAIN:
        app.env.temp_data.setdefault("credalbook_api_plain", {})[name] = list(lines)


def _restore(app, what, name, obj, options, lines):
    if what not in PLAIN:
        return
    kept = app.env.temp_data.get("credalbook_api_plain", {}).pop(name, None)
    if kept is not None:
        lines[:] = kept
    if what == "data" and getattr(obj, "__doc__", None) == getattr(type(obj), "__doc__", None):
        modname, _, attr = name.rpartition(".")
        lines[:] = doc_comment(modname, attr)


def setup(app):
    # napoleon rewrites docstrings at the default priority (500): keep before, restore after.
    app.connect("autodoc-process-docstring", _keep, priority=400)
    app.connect("autodoc-process-docstring", _restore, priority=600)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
