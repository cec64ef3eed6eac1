"""Binary scores everywhere: a 1-D array of scores P(y = 1) (or logits with ``from_logits=True``) with labels in
{0, 1} (integers, whole floats or bools) means the two-class predictions ``[1 - p, p]``.

Every public callable of :mod:`credalbook.metrics` and :mod:`credalbook.stats` whose first two arguments are
``(probs, labels)`` (taken from the packages' ``__all__``, as ``tests/test_public_inputs.py`` does), their
intervals (``ci=``), the measures of the tests and the reliability display are fed the scores and the stacked
rows and must return the same numbers, bit for bit (``==``; NaN equal to NaN); malformed scores and labels raise
a ValueError that names the argument.
"""

from __future__ import annotations

import dataclasses
import inspect

import matplotlib
import numpy as np
import pytest
import torch
from scipy.special import expit

from credalbook import metrics as M
from credalbook import stats as S
from credalbook._validation import as_binary_probs, as_predictions, check_probs_labels, check_probs_or_scores
from credalbook.plotting import plot_reliability_diagram, plot_test_result, ReliabilityDisplay

matplotlib.use("Agg")

N = 40
RNG = np.random.default_rng(20240601)
SCORES = RNG.uniform(0.02, 0.98, size=N)
LABELS = (RNG.random(N) < SCORES).astype(np.int64)
ROWS = np.stack([1 - SCORES, SCORES], axis=1)
LOGITS = RNG.normal(size=N) * 3

#: Options a callable needs beyond (probs, labels); ``n_resamples`` and ``seed`` are set for every callable that has them.
OPTIONS = {"bootstrap_ci": {"metric": M.ece_confidence}}

#: Options of the stacked call that the (N,) call takes by default: the curve of binary scores is that of P(y = 1).
STACKED_DEFAULTS = {"metrics.reliability_curve": {"kind": "classwise", "class_index": 1}}

#: Callables whose (N,) input means something else than the stacked rows, with what it means (tested below).
OTHER_MEANING = {
    "metrics.smooth_ece": "binary smooth ECE of P(y = 1) (Blasiok & Nakkiran), not of the top-label confidence",
    "metrics.smooth_ece_bandwidth": "the bandwidth of the binary smooth ECE of P(y = 1)",
}

#: Callables that do not take binary scores yet, with the change each needs (none now).
PENDING: dict[str, str] = {}

#: Callables that take (N,) scores but not bool labels (none now).
BOOL_PENDING: dict[str, str] = {}


def _pairs() -> dict[str, object]:
    """Every public ``f(probs, labels, ...)`` of metrics and stats, by qualified name."""
    out = {}
    for sub, mod in (("metrics", M), ("stats", S)):
        for n in mod.__all__:
            obj = getattr(mod, n, None)
            if not inspect.isfunction(obj):
                continue
            params = list(inspect.signature(obj).parameters)
            if params[:2] == ["probs", "labels"]:
                out[f"{sub}.{n}"] = obj
    return out


PAIRS = _pairs()


def _stacked(name: str, opts: dict) -> dict:
    return {**opts, **STACKED_DEFAULTS.get(name, {})}


def _options(name: str, fn, **extra) -> dict:
    params = inspect.signature(fn).parameters
    opts = dict(OPTIONS.get(name.split(".")[-1], {}))
    if "n_resamples" in params:
        opts["n_resamples"] = 20
    if "seed" in params:
        opts["seed"] = 0
    opts.update(extra)
    missing = [
        a
        for a, p in list(params.items())[2:]
        if p.default is p.empty and p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL) and a not in opts
    ]
    assert not missing, f"{name}: add its required options {missing} to OPTIONS"
    return opts


def _plain(x):
    if isinstance(x, torch.Tensor):
        return x.detach().cpu().numpy()
    return x


def assert_same(a, b, where: str = "result"):
    """Exact equality of two results: numbers, arrays, tensors, dataclasses, dicts, sequences (NaN == NaN)."""
    a, b = _plain(a), _plain(b)
    if dataclasses.is_dataclass(a) and not isinstance(a, type):
        assert type(a) is type(b), f"{where}: {type(a).__name__} != {type(b).__name__}"
        for f in dataclasses.fields(a):
            if f.name != "binary":  # a curve says whether it came from binary scores
                assert_same(getattr(a, f.name), getattr(b, f.name), f"{where}.{f.name}")
    elif isinstance(a, dict):
        assert list(a) == list(b), f"{where}: keys {list(a)} != {list(b)}"
        for k in a:
            assert_same(a[k], b[k], f"{where}[{k!r}]")
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), f"{where}: lengths {len(a)} != {len(b)}"
        for i, (u, v) in enumerate(zip(a, b)):
            assert_same(u, v, f"{where}[{i}]")
    elif isinstance(a, (np.ndarray, np.generic, float, int)) and not isinstance(a, bool):
        np.testing.assert_array_equal(a, b, err_msg=where, strict=False)
    elif hasattr(a, "dist") and hasattr(a, "args"):  # a frozen scipy.stats distribution
        assert (a.dist.name, a.args, a.kwds) == (b.dist.name, b.args, b.kwds), where
    elif callable(a) and not isinstance(a, type):
        assert repr(a) == repr(b), where
    else:
        assert a == b, f"{where}: {a!r} != {b!r}"


def _cases(kind: str, parameter: str | None = None):
    for name, fn in PAIRS.items():
        if parameter is not None and parameter not in inspect.signature(fn).parameters:
            continue
        marks = []
        if name in OTHER_MEANING or (kind == "errors" and name in PENDING):  # PENDING: any (N,) probs is refused
            continue
        if name in PENDING:
            marks = [pytest.mark.xfail(strict=True, reason=PENDING[name])]
        elif kind == "bool" and name in BOOL_PENDING:
            marks = [pytest.mark.xfail(strict=True, reason=BOOL_PENDING[name])]
        yield pytest.param(name, id=name, marks=marks)


def test_the_walk_is_not_empty():
    """The walk sees the metrics, the intervals and the tests (a renamed module must not empty it)."""
    for name in ("metrics.ece_confidence", "metrics.bootstrap_ci", "metrics.skce", "stats.calibration_test"):
        assert name in PAIRS


@pytest.mark.parametrize("name", list(_cases("int")))
def test_scores_equal_stacked_rows(name):
    fn = PAIRS[name]
    opts = _options(name, fn)
    assert_same(fn(SCORES, LABELS, **opts), fn(ROWS, LABELS, **_stacked(name, opts)), name)


@pytest.mark.parametrize("name", list(_cases("bool")))
def test_bool_and_float_labels(name):
    fn = PAIRS[name]
    opts = _options(name, fn)
    expected = fn(ROWS, LABELS, **_stacked(name, opts))
    assert_same(fn(SCORES, LABELS.astype(bool), **opts), expected, name + " (bool labels)")
    assert_same(fn(SCORES, LABELS.astype(np.float32), **opts), expected, name + " (float labels)")


@pytest.mark.parametrize("name", list(_cases("tensor")))
def test_tensors(name):
    """Tensors: (N,) float64 scores give what the stacked (N, 2) tensor gives (same code path: tensor in, tensor out)."""
    fn = PAIRS[name]
    opts = _options(name, fn)
    expected = fn(torch.from_numpy(ROWS), torch.from_numpy(LABELS), **_stacked(name, opts))
    assert_same(fn(torch.from_numpy(SCORES), torch.from_numpy(LABELS), **opts), expected, name)
    if name not in BOOL_PENDING:
        assert_same(fn(torch.from_numpy(SCORES), torch.from_numpy(LABELS).bool(), **opts), expected, name)


@pytest.mark.parametrize("name", list(_cases("ci", "ci")))
def test_intervals(name):
    fn = PAIRS[name]
    opts = _options(name, fn, ci=0.9)
    assert_same(fn(SCORES, LABELS, **opts), fn(ROWS, LABELS, **opts), name)


@pytest.mark.parametrize("name", list(_cases("logits", "from_logits")))
def test_logits(name):
    """(N,) logits with from_logits=True are the rows [sigmoid(-z), sigmoid(z)] (SciPy's expit, float64)."""
    fn = PAIRS[name]
    opts = _options(name, fn)
    rows = np.stack([expit(-LOGITS), expit(LOGITS)], axis=1)
    assert_same(fn(LOGITS, LABELS, from_logits=True, **opts), fn(rows, LABELS, **opts), name)
    z32 = LOGITS.astype(np.float32).astype(np.float64)  # float32 logits: the sigmoid of their float64 values
    rows32 = np.stack([expit(-z32), expit(z32)], axis=1)
    assert_same(
        fn(torch.from_numpy(LOGITS).float(), LABELS, from_logits=True, **opts), fn(rows32, LABELS, **opts), name
    )


@pytest.mark.parametrize("name", list(_cases("errors")))
@pytest.mark.parametrize(
    "bad, arg",
    [
        ("above_one", "probs"),
        ("negative", "probs"),
        ("nan", "probs"),
        ("two", "labels"),
        ("fraction", "labels"),
        ("short", "labels"),
        ("many_classes", "labels"),
    ],
)
def test_errors(name, bad, arg):
    fn = PAIRS[name]
    p, y = SCORES.copy(), LABELS.copy()
    if bad == "above_one":
        p[3] = 1.5
    elif bad == "negative":
        p[3] = -0.2
    elif bad == "nan":
        p[3] = np.nan
    elif bad == "two":
        y[3] = 2
    elif bad == "fraction":
        y = y.astype(float)
        y[3] = 0.5
    elif bad == "short":
        y = y[:-1]
    else:  # labels of K = 4 classes with one score per instance
        y = np.arange(N) % 4
    with pytest.raises(ValueError, match=rf"(?<![A-Za-z_]){arg}(?![A-Za-z_])"):
        fn(p, y, **_options(name, fn))


@pytest.mark.parametrize("measure", S.MEASURES)
def test_measures(measure):
    """The statistics of the tests (CalibrationMeasure), called on scores, equal their value on the stacked rows."""
    g = S.calibration_measure(measure)
    assert_same(g(SCORES, LABELS.astype(bool)), g(ROWS, LABELS), measure)


@pytest.mark.parametrize("method", S.METHODS)
def test_every_calibration_test_method(method):
    opts = dict(method=method, n_resamples=20, seed=0)
    if method.startswith("hosmer_lemeshow"):
        opts["n_bins"] = 4
    assert_same(S.calibration_test(SCORES, LABELS, **opts), S.calibration_test(ROWS, LABELS, **opts), method)


class TestOtherMeaning:
    """smooth_ece on (N,) scores is the binary smooth ECE of P(y = 1) (relplot's convention)."""

    @pytest.mark.parametrize("name", sorted(OTHER_MEANING))
    def test_labels_and_tensors(self, name):
        fn = PAIRS[name]
        expected = fn(SCORES, LABELS)
        assert_same(fn(SCORES, LABELS.astype(bool)), expected, name)
        assert_same(fn(torch.from_numpy(SCORES), torch.from_numpy(LABELS).bool()), expected, name)

    def test_binary_smooth_ece_is_not_top_label(self):
        """Scores on one side of 1/2: the top-label confidences are 1 - p, and the binary smECE of p with labels y
        equals the top-label smECE of (1 - p, correctness 1 - y)."""
        p = RNG.uniform(0.05, 0.45, size=200)
        y = (RNG.random(200) < p).astype(int)
        top = M.smooth_ece(np.stack([1 - p, p], axis=1), y, bandwidth=0.05)
        assert M.smooth_ece(1 - p, 1 - y, bandwidth=0.05) == pytest.approx(top, abs=1e-12)


class TestDisplays:
    def teardown_method(self):
        import matplotlib.pyplot as plt

        plt.close("all")

    def test_default_is_the_class_one_diagram(self):
        kw = dict(n_bins=5, n_resamples=50, seed=0)
        d = ReliabilityDisplay.from_predictions(SCORES, LABELS.astype(bool), **kw)
        ref = ReliabilityDisplay.from_predictions(ROWS, LABELS, kind="classwise", class_index=1, **kw)
        assert (d.curve.kind, d.curve.class_index, d.curve.binary) == ("classwise", 1, True)
        assert_same(d.curve, ref.curve)
        assert_same(d.band, ref.band)
        assert d.ax_.get_xlabel() == "mean predicted P(y = 1)" and d.ax_.get_ylabel() == "fraction of y = 1"
        # by hand: the fraction of positives at the mean score of each bin
        ids = np.minimum((SCORES * 5).astype(int), 4)
        for j in range(5):
            if (ids == j).any():
                assert d.curve.observed[j] == pytest.approx(LABELS[ids == j].mean(), abs=1e-15)
                assert d.curve.mean_predicted[j] == pytest.approx(SCORES[ids == j].mean(), abs=1e-15)

    def test_explicit_kind(self):
        kw = dict(n_bins=5, n_resamples=50, seed=0)
        for kind in ("confidence", "classwise"):
            d = ReliabilityDisplay.from_predictions(torch.from_numpy(SCORES), LABELS, kind=kind, **kw)
            ref = ReliabilityDisplay.from_predictions(ROWS, LABELS, kind=kind, **kw)
            assert_same(d.curve, ref.curve)
            assert_same(d.band, ref.band)
        assert ReliabilityDisplay.from_predictions(SCORES, LABELS, kind="confidence", **kw).ax_.get_xlabel() == (
            "confidence $c_i$"
        )

    def test_curve_and_bands_defaults(self):
        curve = M.reliability_curve(SCORES, LABELS, n_bins=7)
        assert_same(curve, M.reliability_curve(ROWS, LABELS, n_bins=7, kind="classwise", class_index=1))
        assert curve.binary and not M.reliability_curve(ROWS, LABELS, n_bins=7).binary
        band = M.consistency_bands(SCORES, n_bins=7, n_resamples=50, seed=1)
        assert_same(band, M.consistency_bands(ROWS, n_bins=7, kind="classwise", class_index=1, n_resamples=50, seed=1))
        assert plot_reliability_diagram(curve).get_xlabel() == "mean predicted P(y = 1)"

    def test_2d_defaults_unchanged(self):
        """(N, K) rows: the default is still the confidence diagram, with the same numbers and draws."""
        p = RNG.dirichlet(np.ones(3), size=60)
        y = RNG.integers(3, size=60)
        assert_same(M.reliability_curve(p, y), M.reliability_curve(p, y, kind="confidence"))
        assert_same(
            M.consistency_bands(p, n_resamples=30, seed=2),
            M.consistency_bands(p, kind="confidence", n_resamples=30, seed=2),
        )
        d = ReliabilityDisplay.from_predictions(p, y, n_resamples=30, seed=0)
        assert d.curve.kind == "confidence" and not d.curve.binary and d.ax_.get_xlabel() == "confidence $c_i$"

    def test_test_plot(self):
        r = S.calibration_test(SCORES, LABELS, n_resamples=30, seed=0)
        ax = plot_test_result(r)
        assert ax.get_title() == plot_test_result(S.calibration_test(ROWS, LABELS, n_resamples=30, seed=0)).get_title()


class TestDoor:
    """credalbook._validation: the one door for binary scores."""

    def test_rows(self):
        p = np.array([0.0, 0.25, 1.0, 0.1])
        np.testing.assert_array_equal(as_binary_probs(p), np.stack([1 - p, p], axis=1))
        assert as_binary_probs(p).dtype == np.float64
        # float32 scores: converted to float64 before 1 - p
        p32 = np.float32([0.1, 0.7])
        np.testing.assert_array_equal(as_binary_probs(p32)[:, 0], 1 - p32.astype(np.float64))
        np.testing.assert_array_equal(as_predictions(torch.from_numpy(p32)), as_binary_probs(p32))
        np.testing.assert_array_equal(as_binary_probs([True, False]), [[0.0, 1.0], [1.0, 0.0]])

    def test_logits(self):
        z = np.array([-800.0, -3.0, 0.0, 2.5, 40.0, 800.0])
        rows = as_predictions(z, from_logits=True)
        np.testing.assert_array_equal(rows, np.stack([expit(-z), expit(z)], axis=1))
        assert np.isfinite(rows).all() and rows[0].tolist() == [1.0, 0.0] and rows[-1].tolist() == [0.0, 1.0]
        # the softmax of the logits (0, z) of two classes
        soft = torch.softmax(torch.from_numpy(np.stack([np.zeros_like(z), z], axis=1)), dim=1).numpy()
        np.testing.assert_allclose(rows, soft, rtol=1e-15, atol=1e-300)
        with pytest.raises(ValueError, match=r"logits must be finite"):
            as_binary_probs([0.0, np.inf], "logits", from_logits=True)
        with pytest.raises(ValueError, match=r"probs must have shape \(N,\)"):
            as_binary_probs(np.zeros((2, 2)), from_logits=True)
        with pytest.raises(ValueError, match=r"probs must have at least one instance"):
            as_predictions(np.zeros(0), from_logits=True)

    def test_errors(self):
        with pytest.raises(
            ValueError, match=r"probs given as binary scores P\(y = 1\) must lie in \[0, 1\]; probs\[1\]"
        ):
            as_binary_probs([0.5, 1.2])
        with pytest.raises(ValueError, match=r"probs must contain at least one instance"):
            as_binary_probs(np.zeros(0))
        with pytest.raises(ValueError, match=r"probs must be numeric"):
            as_binary_probs(np.array(["a", "b"]))
        with pytest.raises(ValueError, match=r"from_logits must be True or False"):
            as_binary_probs([0.5], from_logits="yes")
        with pytest.raises(ValueError, match=r"labels must have shape \(3,\) to match the binary scores probs"):
            check_probs_labels([0.1, 0.2, 0.3], [[0], [1], [0]])
        with pytest.raises(ValueError, match=r"labels must lie in \{0, 1\}.*labels\[2\] = 3 \(pass probs of shape"):
            check_probs_labels([0.1, 0.2, 0.3], [0, 1, 3])
        with pytest.raises(ValueError, match=r"labels must hold binary labels"):
            check_probs_labels([0.1, 0.2], np.array([1j, 0]))

    def test_2d_unchanged(self):
        """(N, K) rows: the same arrays as check_probs; bool labels still refused; (K,) rows still refused by check_probs."""
        from credalbook._validation import check_probs

        p = RNG.dirichlet(np.ones(3), size=5).astype(np.float32)
        rows, binary = check_probs_or_scores(p)
        np.testing.assert_array_equal(rows, check_probs(p))
        assert not binary
        x = RNG.dirichlet(np.ones(2), size=4)
        assert check_probs_or_scores(x)[0] is x  # float64 rows: no copy, as check_probs
        with pytest.raises(ValueError, match=r"labels must hold integer class indices, got dtype bool"):
            check_probs_labels(x, np.array([True, False, True, True]))
        with pytest.raises(ValueError, match=r"probs must have at least 2 dimensions"):
            check_probs([0.5, 0.5])
        assert check_probs([0.5, 0.5], min_ndim=1).shape == (2,)
