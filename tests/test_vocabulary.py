"""One vocabulary: every public signature uses the words of CONTRIBUTING.md's table, and data comes first.

The test walks every public callable (functions, classes' ``__init__`` and public methods) of the core subpackages,
the CLI and the papers' code, and fails on a synonym of a word in the table, on a callable that takes
predictions and labels but not as its first two parameters ``(probs, labels)``, and on one that takes label
histograms before the predictions they go with (``(probs, label_hist)``, never ``(label_hist, probs)``). A renamed
keyword keeps working for one minor version through :func:`credalbook._deprecation.renamed`, and the old data order
``(label_hist, probs)`` through :func:`credalbook._deprecation.swapped_label_hist`; both keep the new signature, so
old names and orders never show here; the last test classes check that each of them still works and warns.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import pkgutil
import warnings

import pytest

from credalbook import _deprecation

CORE = ("metrics", "stats", "calibration", "credal", "synthetic", "data", "nn", "gp", "plotting")

#: The synonyms of the table: a parameter with one of these names is a defect (name -> the table's word).
SYNONYMS = {
    "n_bootstrap": "n_resamples",
    "n_boot": "n_resamples",
    "num_resamples": "n_resamples",
    "B": "n_resamples",
    "bins": "n_bins",
    "num_bins": "n_bins",
    "nbins": "n_bins",
    "binning": "strategy",
    "random_state": "seed",
    "rng": "seed",
    "generator": "seed",
    "level": "ci",
    "bands": "ci",
    "confidence": "ci",
    "confidence_level": "ci",
    "targets": "labels",
    "target": "labels",
    "y_true": "labels",
    "y_prob": "probs",
    "probas": "probs",
    "probabilities": "probs",
    "preds": "probs",
    "reference": "null",
    "p_value": "pvalue",
    "significance": "alpha",
}

#: Names allowed on purpose, each with its reason (``module:qualname`` -> parameters).
EXCEPTIONS = {
    # a learner's fit takes its inputs first, as scikit-learn's fit(X, y): the features x of lambda(x), then the
    # set's predictions and the labels
    "credalbook.stats.weight_learning:fit_weight_function": ("order",),
    # the instance-dependent test learns lambda(x) as fit_weight_function does: the features x first
    "credalbook.stats.instance:instance_calibration_test": ("order",),
    # the minimiser the others are compared with (SciPy's COBYLA), not a test's null distribution
    "credalbook.papers.mortier.real_sets:solver_agreement": ("reference",),
}

#: Parameter names that hold predictions, the one that holds labels, and the one that holds label histograms.
PREDICTIONS = ("probs", "ens_probs", "logits", "scores", "phi_probs")
LABELS = "labels"
LABEL_HIST = "label_hist"


def _modules(package: str):
    pkg = importlib.import_module(package)
    yield pkg
    for info in pkgutil.walk_packages(getattr(pkg, "__path__", []), prefix=package + "."):
        if info.name.rsplit(".", 1)[-1].startswith("_") or ".book" in info.name[len("credalbook") :]:
            continue
        yield importlib.import_module(info.name)


def _public_callables(module):
    """``(qualified name, callable)`` for each public function/class defined in ``module`` and their methods."""
    for name, obj in vars(module).items():
        if name.startswith("_") or getattr(obj, "__module__", None) != module.__name__:
            continue
        if inspect.isfunction(obj):
            yield f"{module.__name__}:{name}", obj
        elif inspect.isclass(obj):
            # a dataclass's generated __init__ lists its fields (a record of results), not a call's inputs
            if "__init__" in vars(obj) and not dataclasses.is_dataclass(obj):
                yield f"{module.__name__}:{name}.__init__", obj.__init__
            for attr, member in vars(obj).items():
                if attr.startswith("_"):
                    continue
                func = member.__func__ if isinstance(member, (classmethod, staticmethod)) else member
                if inspect.isfunction(func):
                    yield f"{module.__name__}:{name}.{attr}", func


def _parameters(func) -> list:
    try:
        params = list(inspect.signature(func).parameters.values())
    except (TypeError, ValueError):
        return []
    return [p for p in params if p.name not in ("self", "cls") and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]


def violations(qualname: str, func) -> list:
    """What in ``func``'s signature breaks the vocabulary: synonyms, and predictions and labels not first."""
    params = _parameters(func)
    names = [p.name for p in params]
    allowed = EXCEPTIONS.get(qualname, ())
    out = [
        f"{qualname}: parameter {n!r} is a synonym of {SYNONYMS[n]!r}"
        for n in names
        if n in SYNONYMS and n not in allowed
    ]
    # optional labels (keyword-only, default None: "with labels, also ...") do not make a (probs, labels) call
    takes_labels = any(p.name == LABELS and not (p.kind == p.KEYWORD_ONLY and p.default is None) for p in params)
    if takes_labels and any(n in PREDICTIONS for n in names) and "order" not in allowed:
        if len(names) < 2 or names[0] not in PREDICTIONS or names[1] != LABELS:
            out.append(
                f"{qualname}: takes predictions and labels, but its first two parameters are "
                f"{tuple(names[:2])}, not (<predictions>, labels)"
            )
    # label histograms follow the predictions they go with (the labels' place), whatever comes before them
    first_prediction = next((n for n in names if n in PREDICTIONS), None)
    if LABEL_HIST in names and first_prediction is not None and "order" not in allowed:
        if names.index(LABEL_HIST) < names.index(first_prediction):
            out.append(
                f"{qualname}: takes {LABEL_HIST!r} before its predictions {first_prediction!r}, not "
                f"(<predictions>, {LABEL_HIST})"
            )
    return out


def _all_callables(packages):
    seen = set()
    for package in packages:
        for module in _modules(package):
            for qualname, func in _public_callables(module):
                if qualname not in seen:
                    seen.add(qualname)
                    yield qualname, func


def test_core_signatures_use_the_vocabulary():
    found = [
        v for q, f in _all_callables([f"credalbook.{s}" for s in CORE] + ["credalbook.cli"]) for v in violations(q, f)
    ]
    assert found == [], "\n".join(found)


def test_papers_signatures_use_the_vocabulary():
    found = [v for q, f in _all_callables(["credalbook.papers"]) for v in violations(q, f)]
    assert found == [], "\n".join(found)


def test_the_walk_sees_the_public_surface():
    """The walk reaches what a user calls (it would pass vacuously on an empty walk)."""
    names = {q for q, _ in _all_callables([f"credalbook.{s}" for s in CORE])}
    for q in ("credalbook.metrics.classification:ece_confidence", "credalbook.stats.bootstrap:set_calibration_test"):
        assert any(n.startswith(q.split(":")[0]) for n in names)
    assert len(names) > 300


class TestTheTestFails:
    """The check would catch each synonym of the issue and data in the wrong order."""

    @pytest.mark.parametrize(
        "synonym",
        ["n_bootstrap", "bins", "num_bins", "random_state", "rng", "level", "bands", "binning", "targets", "reference"],
    )
    def test_on_a_synonym(self, synonym):
        ns = {}
        exec(f"def f(probs, labels, *, {synonym}=None):\n    pass", ns)
        (v,) = violations("demo:f", ns["f"])
        assert f"parameter {synonym!r} is a synonym" in v

    def test_on_the_data_order(self):
        def f(labels, probs, *, n_bins=15):
            pass

        def g(probs, *, n_bins=15, labels):
            pass

        def h(probs, labels, *, n_resamples=100, seed=None, ci=None, strategy="uniform"):
            pass

        assert violations("demo:f", f) == [
            "demo:f: takes predictions and labels, but its first two parameters are "
            "('labels', 'probs'), not (<predictions>, labels)"
        ]
        assert len(violations("demo:g", g)) == 1 and violations("demo:h", h) == []

    def test_on_the_label_hist_order(self):
        def f(label_hist, probs, *, n_bins=15):
            pass

        def g(features, phi_probs, label_hist):
            pass

        def h(label_hist, phi, *, order=2):  # no predictions: nothing to order
            pass

        assert violations("demo:f", f) == [
            "demo:f: takes 'label_hist' before its predictions 'probs', not (<predictions>, label_hist)"
        ]
        assert violations("demo:g", g) == [] and violations("demo:h", h) == []


class TestOldNamesStillWork:
    """Every keyword renamed in 0.6 is accepted with a FutureWarning naming the new one, for one minor version."""

    def test_the_renames_are_registered(self):
        for package in CORE:
            importlib.import_module(f"credalbook.{package}")
        assert _deprecation.RENAMED, "no renamed keyword registered"
        for qualname, renames in _deprecation.RENAMED.items():
            module, _, name = qualname.partition(":")
            obj = importlib.import_module(module)
            for attr in name.split("."):
                obj = getattr(obj, attr, None)
                if obj is None:
                    break
            if obj is None or "<locals>" in name:
                continue
            accepted = {p.name for p in _parameters(obj)}
            for old, new in renames.items():
                assert new in accepted and old not in accepted, (qualname, old, new)

    def test_an_old_name_warns_and_means_the_new_one(self, monkeypatch):
        # a demo function of this test: registered in a copy, so the package's registry (which the changelog
        # must list in full, tests/test_layout.py) holds only the package's renames
        monkeypatch.setattr(_deprecation, "RENAMED", dict(_deprecation.RENAMED))

        @_deprecation.renamed(n_bootstrap="n_resamples")
        def f(probs, labels, *, n_resamples=100):
            return n_resamples

        with pytest.warns(FutureWarning, match="'n_bootstrap' was renamed to 'n_resamples'"):
            assert f(None, None, n_bootstrap=7) == 7
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert f(None, None, n_resamples=7) == 7
        with pytest.raises(TypeError, match="pass only n_resamples"):
            f(None, None, n_bootstrap=1, n_resamples=2)
        assert violations("demo:f", f) == []


class TestOldDataOrderStillWorks:
    """Every callable whose data order became ``(<predictions>, label_hist)`` in 0.6 takes the old order with a
    FutureWarning (the numbers: each module's test file); its signature shows the new one."""

    def test_the_swaps_are_registered(self):
        for package in CORE + ("papers.mimori",):
            importlib.import_module(f"credalbook.{package}")
        assert len(_deprecation.SWAPPED) >= 14, sorted(_deprecation.SWAPPED)
        for qualname, (first, second) in _deprecation.SWAPPED.items():
            module, _, name = qualname.partition(":")
            func = getattr(importlib.import_module(module), name)
            assert [p.name for p in _parameters(func)][:2] == [first, second], qualname
            assert first in PREDICTIONS and second == LABEL_HIST, qualname

    def test_the_old_order_warns_and_means_the_new_one(self, monkeypatch):
        monkeypatch.setattr(_deprecation, "SWAPPED", dict(_deprecation.SWAPPED))

        @_deprecation.swapped_label_hist()
        def f(probs, label_hist, *, n_bins=15):
            return probs, label_hist

        hist, probs = [[2, 0], [1, 1]], [[0.8, 0.2], [0.5, 0.5]]
        with pytest.warns(FutureWarning, match=r"f\(label_hist, probs\) is deprecated since 0\.6"):
            assert f(hist, probs) == (probs, hist)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert f(probs, hist) == (probs, hist) == f(label_hist=hist, probs=probs)
        assert violations("demo:f", f) == []
