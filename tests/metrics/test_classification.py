"""Tests for credalbook.metrics (Mortier et al. 2023, Eqs. 4-6).

Hand-computed values, an independent loop-based reference for the binned calibration errors,
invariances (instances, class labels), torch/numpy and batched/loop agreement, and Monte-Carlo
checks on perfectly calibrated synthetic predictions.
"""

import functools
import math

import numpy as np
import pytest
import torch

from credalbook._validation import as_scalar
from credalbook.metrics import (
    accuracy,
    ace,
    all_label_ece,
    brier_score,
    calibration_summary,
    ece,
    ece_classwise,
    ece_confidence,
    nll,
    reliability_curve,
    ReliabilityCurve,
)
from credalbook.metrics.binning import equal_width_bin_index
from credalbook.metrics.classification import one_hot
from credalbook.synthetic import calibrated_predictions, sample_labels


def _named(fn, **options):
    out = functools.partial(fn, **options)
    out.__name__ = fn.__name__ + "".join(f"[{k}={v}]" for k, v in options.items())
    return out


ALL_METRICS = [
    accuracy,
    brier_score,
    nll,
    ece_confidence,
    ece_classwise,
    ace,
    _named(ece_confidence, strategy="quantile"),
    _named(ece_classwise, strategy="quantile", norm=2),
    _named(ece_confidence, norm=2, debiased=True),
    _named(ece_classwise, norm=3),
]


# ----------------------------------------------------------------------------------------------
# Independent slow references: explicit Python loops over bins, edges j/B, last bin right-closed.
# ----------------------------------------------------------------------------------------------
def _in_bin(value, j, n_bins):
    lo, hi = j / n_bins, (j + 1) / n_bins
    if j == n_bins - 1:
        return lo <= value <= hi
    return lo <= value < hi


def _ref_ece_confidence(probs, labels, n_bins):
    n = len(labels)
    conf = [max(row) for row in probs]
    pred = [int(np.argmax(row)) for row in probs]
    total = 0.0
    for j in range(n_bins):
        members = [i for i in range(n) if _in_bin(conf[i], j, n_bins)]
        if not members:
            continue
        acc = sum(1.0 for i in members if pred[i] == labels[i]) / len(members)
        mean_conf = sum(conf[i] for i in members) / len(members)
        total += len(members) / n * abs(acc - mean_conf)
    return total


def _ref_ece_classwise(probs, labels, n_bins):
    n, k = np.shape(probs)
    total = 0.0
    for c in range(k):
        for j in range(n_bins):
            members = [i for i in range(n) if _in_bin(probs[i][c], j, n_bins)]
            if not members:
                continue
            obs = sum(1.0 for i in members if labels[i] == c) / len(members)
            mean_p = sum(probs[i][c] for i in members) / len(members)
            total += len(members) / n * abs(obs - mean_p)
    return total / k


def _ref_members(values, n_bins, strategy):
    """Bins as lists of indices: equal-width edges j/B, or the equal-mass rule written out."""
    n = len(values)
    if strategy == "uniform":
        return [[i for i in range(n) if _in_bin(values[i], j, n_bins)] for j in range(n_bins)]
    srt = sorted(values)
    cuts = (
        [-math.inf]
        + [
            -math.inf
            if round(m * n / n_bins) < 1
            else math.inf
            if round(m * n / n_bins) > n - 1
            else 0.5 * (srt[round(m * n / n_bins) - 1] + srt[round(m * n / n_bins)])
            for m in range(1, n_bins)
        ]
        + [math.inf]
    )
    return [[i for i in range(n) if cuts[j] <= values[i] < cuts[j + 1]] for j in range(n_bins)]


def _ref_power(values, outcomes, n_bins, strategy, norm, debiased):
    """Sum over bins of (n_b / N)|mean o - mean x|^p; debiased: Kumar et al.'s unbiased_square_ce, clipped at 0."""
    n, total = len(values), 0.0
    for members in _ref_members(values, n_bins, strategy):
        if not members or (debiased and len(members) < 2):
            continue
        o = sum(outcomes[i] for i in members) / len(members)
        x = sum(values[i] for i in members) / len(members)
        term = abs(o - x) ** norm
        if debiased:
            term -= o * (1 - o) / (len(members) - 1)
        total += len(members) / n * term
    return max(total, 0.0) if debiased else total


def _ref_ece(probs, labels, n_bins, *, kind, strategy="uniform", norm=1, debiased=False):
    probs, labels = np.asarray(probs).tolist(), list(labels)
    if kind == "confidence":
        conf = [max(row) for row in probs]
        correct = [1.0 if int(np.argmax(row)) == y else 0.0 for row, y in zip(probs, labels)]
        return _ref_power(conf, correct, n_bins, strategy, norm, debiased) ** (1 / norm)
    k = len(probs[0])
    per_class = [
        _ref_power(
            [row[c] for row in probs], [1.0 if y == c else 0.0 for y in labels], n_bins, strategy, norm, debiased
        )
        for c in range(k)
    ]
    return (sum(per_class) / k) ** (1 / norm)


def _kumar_l2(values, outcomes, n_bins, debias):
    """Kumar et al.'s l2 estimator with their equal-mass bins (numpy.array_split of the sorted values,
    cuts at midpoints, a value on a cut in the lower bin); plug-in or debiased."""
    values, outcomes = np.asarray(values, float), np.asarray(outcomes, float)
    srt = np.sort(values)
    parts = np.array_split(srt, n_bins)
    cuts = sorted({(parts[i][-1] + parts[i + 1][0]) / 2 for i in range(n_bins - 1)} | {1.0})
    ids = np.searchsorted(cuts, values, side="left")
    total = 0.0
    for b in range(len(cuts)):
        m = ids == b
        if m.sum() == 0 or (debias and m.sum() < 2):
            continue
        o, x = outcomes[m].mean(), values[m].mean()
        err = (x - o) ** 2 - (o * (1 - o) / (m.sum() - 1) if debias else 0.0)
        total += m.sum() / len(values) * err
    return max(total, 0.0) ** 0.5


def _random_case(n=300, k=4, seed=0, concentration=1.0):
    rng = np.random.default_rng(seed)
    p = rng.dirichlet(np.full(k, concentration), size=n)
    y = rng.integers(0, k, size=n)
    return p, y


def _grid_case(n=400, k=3, seed=0):
    """Probabilities on the grid {0, 1/20, ..., 1}: many values sit exactly on bin edges j/10."""
    rng = np.random.default_rng(seed)
    counts = rng.multinomial(20, np.full(k, 1.0 / k), size=n)
    return counts / 20.0, rng.integers(0, k, size=n)


def _relabel(p, y, perm):
    """New class j is old class perm[j]."""
    inv = np.argsort(perm)
    return p[:, perm], inv[y]


def _sharpen(p, power=3.0):
    s = p**power
    return s / s.sum(axis=-1, keepdims=True)


# ----------------------------------------------------------------------------------------------
class TestAccuracy:
    def test_main(self):
        p = [[0.7, 0.3], [0.4, 0.6], [0.9, 0.1], [0.5, 0.5]]
        # correct, correct, wrong, tie -> argmax 0 -> correct
        assert accuracy(p, [0, 1, 1, 0]) == pytest.approx(0.75, abs=1e-15)
        assert accuracy(p, [1, 0, 0, 1]) == pytest.approx(0.25, abs=1e-15)
        assert isinstance(accuracy(p, [0, 1, 1, 0]), float)

    def test_ties_go_to_lowest_index(self):
        p = [[0.4, 0.4, 0.2], [0.2, 0.4, 0.4]]
        assert accuracy(p, [0, 1]) == 1.0
        assert accuracy(p, [1, 2]) == 0.0

    def test_float_integer_labels(self):
        p = [[0.7, 0.3], [0.4, 0.6]]
        assert accuracy(p, np.array([0.0, 1.0])) == 1.0

    def test_errors(self):
        with pytest.raises(ValueError, match="probs"):
            accuracy([0.5, 0.5], [0])
        with pytest.raises(ValueError, match="labels"):
            accuracy([[0.5, 0.5]], [2])


class TestBrierScore:
    def test_main(self):
        assert brier_score([[0.7, 0.3], [0.4, 0.6]], [0, 0]) == pytest.approx(0.45, abs=1e-12)
        # 0.5² + 0.3² + 0.8²
        assert brier_score([[0.5, 0.3, 0.2]], [2]) == pytest.approx(0.98, abs=1e-12)
        # range [0, 2]: perfect and maximally wrong predictions
        assert brier_score([[1.0, 0.0], [0.0, 1.0]], [0, 1]) == 0.0
        assert brier_score([[1.0, 0.0], [0.0, 1.0]], [1, 0]) == pytest.approx(2.0)

    def test_monte_carlo_expectation(self):
        """For labels y ~ p, E[BS] = mean_i (1 - ||p_i||²)."""
        rng = np.random.default_rng(3)
        p = rng.dirichlet(np.ones(4), size=50)
        n_rep = 20_000
        y = sample_labels(p, rng, size=n_rep)  # (R, N)
        scores = brier_score(np.broadcast_to(p, (n_rep, *p.shape)), y)
        assert scores.shape == (n_rep,)
        expected = float(np.mean(1.0 - (p**2).sum(axis=1)))
        se = scores.std() / math.sqrt(n_rep)
        assert abs(scores.mean() - expected) < 5 * se
        assert abs(scores.mean() - expected) < 3e-3

    def test_errors(self):
        with pytest.raises(ValueError, match="probs"):
            brier_score([[0.5, 0.6]], [0])
        with pytest.raises(ValueError, match="labels"):
            brier_score([[0.5, 0.5]], [-1])


class TestNLL:
    def test_main(self):
        expected = -(math.log(0.5) + math.log(0.75)) / 2
        assert nll([[0.5, 0.5], [0.25, 0.75]], [0, 1]) == pytest.approx(expected, abs=1e-12)
        assert expected == pytest.approx(0.490415, abs=1e-6)
        assert nll([[1.0, 0.0]], [0]) == 0.0

    def test_zero_probability_is_clipped(self):
        assert nll([[1.0, 0.0]], [1]) == pytest.approx(-math.log(1e-12))
        assert nll([[1.0, 0.0]], [1], eps=1e-3) == pytest.approx(-math.log(1e-3))
        assert math.isfinite(nll([[1.0, 0.0, 0.0]], [2]))

    def test_errors(self):
        with pytest.raises(ValueError, match="probs"):
            nll([[np.nan, 1.0]], [0])
        with pytest.raises(ValueError, match="labels"):
            nll([[0.5, 0.5]], [[0]])
        for bad in (-1e-12, float("nan"), float("inf"), True, "1e-12", 1j, None):
            with pytest.raises(ValueError, match="eps"):
                nll([[0.5, 0.5]], [0], eps=bad)

    def test_eps_zero_turns_clipping_off(self):
        assert nll([[0.5, 0.5], [0.25, 0.75]], [0, 1], eps=0) == nll([[0.5, 0.5], [0.25, 0.75]], [0, 1])
        with np.errstate(divide="ignore"):
            assert nll([[1.0, 0.0]], [1], eps=0.0) == math.inf


class TestMeanMetricsCi:
    """``ci=`` of accuracy, NLL and Brier score: per-instance terms weighted by the multiplicities of the
    resample indices, the replicates of evaluating the metric on the gathered predictions (the path of
    bootstrap_ci for a function of its own) up to the order of the sums."""

    @pytest.mark.parametrize("metric", [accuracy, nll, brier_score, functools.partial(nll, eps=0.05)])
    def test_equals_gathering_predictions(self, metric):
        from credalbook.metrics import bootstrap_ci

        p, y = calibrated_predictions(1001, 4, seed=8)
        est = metric(p, y, ci=0.9, n_resamples=300, seed=3)
        old = bootstrap_ci(p, y, lambda a, b: metric(a, b), ci=0.9, n_resamples=300, seed=3, batched=True)
        np.testing.assert_allclose(est.replicates, old.replicates, rtol=1e-13, atol=0)
        np.testing.assert_allclose([est.low, est.high], [old.low, old.high], rtol=1e-13, atol=0)
        assert est.value == old.value == metric(p, y) and est.n_resamples == 300
        rng = np.random.default_rng(3)  # a plain loop: one index draw of size N per replicate
        loop = [metric(p[i], y[i]) for i in (rng.integers(0, 1001, 1001) for _ in range(300))]
        np.testing.assert_allclose(est.replicates, loop, rtol=1e-13, atol=0)
        assert bootstrap_ci(p, y, metric, ci=0.9, n_resamples=300, seed=3) == est  # bootstrap_ci delegates

    def test_by_hand(self):
        """Two instances, one correct: a replicate's accuracy is 0, 1/2 or 1 with probabilities 1/4, 1/2, 1/4;
        the 95 % percentile interval of 2000 replicates is [0, 1]."""
        p, y = [[0.9, 0.1], [0.2, 0.8]], [0, 0]
        est = accuracy(p, y, ci=0.95, n_resamples=2000, seed=0)
        assert (est.value, est.low, est.high) == (0.5, 0.0, 1.0)
        share = np.mean(est.replicates == 0.5)
        assert abs(share - 0.5) < 4 * np.sqrt(0.25 / 2000)

    def test_errors(self):
        p, y = calibrated_predictions(50, 3, seed=0)
        for metric in (accuracy, nll, brier_score):
            with pytest.raises(ValueError, match="ci"):
                metric(p, y, ci=1.5)
            with pytest.raises(ValueError, match="n_resamples"):
                metric(p, y, ci=0.9, n_resamples=1)
            with pytest.raises(ValueError, match=r"probs must have shape \(N, K\) when ci is given"):
                metric(np.stack([p, p]), np.stack([y, y]), ci=0.9)
            with pytest.raises(ValueError, match="n_resamples"):  # checked even without ci
                metric(p, y, n_resamples=0)


class TestHelpers:
    def test_main(self):
        np.testing.assert_array_equal(
            one_hot(np.array([[1, 0], [2, 2]]), 3), [[[0, 1, 0], [1, 0, 0]], [[0, 0, 1], [0, 0, 1]]]
        )
        assert one_hot(np.array([1]), 3).dtype == np.float64
        assert as_scalar(np.array(0.25)) == 0.25 and type(as_scalar(np.float64(1.0))) is float
        np.testing.assert_array_equal(as_scalar(np.array([1.0, 2.0])), [1.0, 2.0])


class TestEqualWidthBinIndex:
    def test_main(self):
        values = np.array([0.0, 0.05, 0.1, 0.3, 0.7, 0.99, 1.0])
        assert equal_width_bin_index(values, 10).tolist() == [0, 0, 1, 3, 7, 9, 9]
        assert equal_width_bin_index(np.array([1 / 3, 2 / 3, 1.0]), 3).tolist() == [1, 2, 2]
        # every grid value k/20 with k even is an edge j/10 and opens bin j
        grid = np.arange(21) / 20
        assert equal_width_bin_index(grid, 10).tolist() == [min(k // 2, 9) for k in range(21)]

    def test_out_of_range_values_are_clipped(self):
        # probabilities within the simplex tolerance may be slightly outside [0, 1]
        assert equal_width_bin_index(np.array([-1e-6, 1 + 1e-6]), 10).tolist() == [0, 9]

    def test_errors(self):
        # not validated itself: the public metrics validate n_bins before calling it
        with pytest.raises(ValueError, match="n_bins"):
            ece_confidence([[0.5, 0.5]], [0], n_bins=0)


class TestECEConfidence:
    def test_main(self):
        # docstring: (2/4)|0.5-0.9| + (2/4)|1-0.6|
        p = [[0.9, 0.1], [0.1, 0.9], [0.6, 0.4], [0.4, 0.6]]
        assert ece_confidence(p, [0, 0, 0, 1], n_bins=10) == pytest.approx(0.4, abs=1e-12)
        # one bin: |acc - mean confidence| = |3/4 - 0.75|
        assert ece_confidence(p, [0, 0, 0, 1], n_bins=1) == pytest.approx(0.0, abs=1e-12)

    def test_bin_edges(self):
        # conf 0.3 (correct) lies exactly on the edge 3/10 and shares bin [0.3, 0.4) with conf 0.35
        # (wrong): |0.5 - 0.325| = 0.175 (0.525 if 0.3 fell into [0.2, 0.3)).
        p_edge = [[0.3, 0.3, 0.2, 0.2], [0.35, 0.25, 0.2, 0.2]]
        assert ece_confidence(p_edge, [0, 1], n_bins=10) == pytest.approx(0.175, abs=1e-12)
        # conf 1.0 (correct) falls into the right-closed last bin together with 0.95 (wrong)
        p_top = [[1.0, 0.0, 0.0, 0.0], [0.95, 0.05, 0.0, 0.0]]
        assert ece_confidence(p_top, [0, 1], n_bins=10) == pytest.approx(0.475, abs=1e-12)
        # all four: (2/4) 0.175 + (2/4) 0.475
        assert ece_confidence(p_edge + p_top, [0, 1, 0, 1], n_bins=10) == pytest.approx(0.325, abs=1e-12)
        # a single instance at confidence 1.0, correct: perfectly calibrated
        assert ece_confidence([[1.0, 0.0]], [0]) == 0.0

    @pytest.mark.parametrize("case", [_random_case, _grid_case])
    @pytest.mark.parametrize("n_bins", [1, 7, 10, 15])
    def test_reference_implementation(self, case, n_bins):
        for seed in range(3):
            p, y = case(seed=seed)
            ref = _ref_ece_confidence(p.tolist(), y.tolist(), n_bins)
            assert ece_confidence(p, y, n_bins=n_bins) == pytest.approx(ref, abs=1e-12)

    def test_invariances(self):
        p, y = _random_case(n=500, k=5, seed=1)
        base = ece_confidence(p, y)
        perm = np.random.default_rng(2).permutation(len(y))
        assert ece_confidence(p[perm], y[perm]) == pytest.approx(base, abs=1e-12)
        p2, y2 = _relabel(p, y, np.random.default_rng(3).permutation(5))
        assert ece_confidence(p2, y2) == pytest.approx(base, abs=1e-12)

    def test_calibrated_vs_overconfident(self):
        p, y = calibrated_predictions(200_000, 5, seed=0)
        assert ece_confidence(p, y) < 0.01
        assert ece_confidence(_sharpen(p), y) > 0.05  # labels still drawn from p

    def test_errors(self):
        p = [[0.6, 0.4]]
        for bad in (0, -1, 2.5, True, "10", None):
            with pytest.raises(ValueError, match="n_bins"):
                ece_confidence(p, [0], n_bins=bad)
        assert ece_confidence(p, [0], n_bins=np.int64(4)) == pytest.approx(0.4)

    def test_l2_and_debiased_by_hand(self):
        # docstring: bins {0.9 (right), 0.9 (wrong)} and {0.6, 0.6 (both right)}
        p, y = [[0.9, 0.1], [0.1, 0.9], [0.6, 0.4], [0.4, 0.6]], [0, 0, 0, 1]
        assert ece_confidence(p, y, norm=2) == pytest.approx(0.4, abs=1e-12)
        # (1/2)[0.4² - 0.5·0.5/1] + (1/2)[0.4² - 0] = 0.035
        assert ece_confidence(p, y, norm=2, debiased=True) == pytest.approx(math.sqrt(0.035), abs=1e-12)
        # bins of one prediction contribute nothing to the debiased estimate; a negative sum is clipped
        assert ece_confidence([[0.9, 0.1], [0.55, 0.45]], [0, 0], norm=2, debiased=True) == 0.0
        assert ece_confidence([[0.7, 0.3], [0.7, 0.3]], [0, 1], norm=2, debiased=True) == 0.0  # 0.2² - 0.25 < 0
        # equal-mass, two bins of two: {0.6, 0.6} and {0.9, 0.9}, the same bins as above
        assert ece_confidence(p, y, n_bins=2, strategy="quantile") == pytest.approx(0.4, abs=1e-12)

    def test_kumar_equal_mass(self):
        # Kumar et al.'s strategy (array_split) is ours when B divides N and no values tie
        rng = np.random.default_rng(20)
        for n, n_bins in [(300, 10), (1050, 15), (64, 4)]:
            p = rng.dirichlet(np.ones(3), size=n)
            y = (rng.random(n) < 0.8 * p.max(1)).astype(int) * p.argmax(1) + 0  # right w.p. 0.8·conf (else label 0)
            conf, correct = p.max(1), (p.argmax(1) == y).astype(float)
            for debias in (False, True):
                got = ece_confidence(p, y, n_bins=n_bins, strategy="quantile", norm=2, debiased=debias)
                assert got == pytest.approx(_kumar_l2(conf, correct, n_bins, debias), abs=1e-12)

    def test_debiased_removes_the_bias(self):
        # Binary predictions f ~ U(0, 1) with outcomes y ~ Bernoulli(f²): in 10 equal-width bins the
        # true squared l2 error is sum_j (1/10)(E[f | j] - E[f² | j])², with E[f | j] = (j + 1/2)/10 and
        # E[f² | j] = ((j + 1)³ - j³)/300. The plug-in estimate at N = 200 overshoots it by about
        # sum_j o_j(1 - o_j)/N; the debiased estimate is unbiased.
        j = np.arange(10)
        truth = float(np.mean(((j + 0.5) / 10 - ((j + 1) ** 3 - j**3) / 300) ** 2))
        rng = np.random.default_rng(21)
        plug, deb = [], []
        for _ in range(400):
            f = rng.random(200)
            y = (rng.random(200) < f**2).astype(int)
            p = np.stack([1 - f, f], axis=1)
            # binary problem = class 1 of the classwise error with K = 2, counted twice (both classes agree)
            plug.append(ece_classwise(p, y, norm=2) ** 2)
            deb.append(ece_classwise(p, y, norm=2, debiased=True) ** 2)
        plug, deb = np.array(plug), np.array(deb)
        se = deb.std(ddof=1) / math.sqrt(len(deb))
        assert abs(deb.mean() - truth) < 4 * se
        assert plug.mean() - truth > 10 * se  # the plug-in bias, ~0.006 here
        assert abs(deb.mean() - truth) < 0.2 * (plug.mean() - truth)

    def test_calibrated_sample(self):
        # perfectly calibrated predictions: the debiased l2 error is near 0, the plug-in one is not
        p, y = calibrated_predictions(20_000, 4, seed=3)
        plug = ece_confidence(p, y, n_bins=15, norm=2)
        deb = ece_confidence(p, y, n_bins=15, norm=2, debiased=True)
        assert deb < plug and deb < 0.01

    def test_edge_cases(self):
        # N = 1, K = 2, every strategy and norm: |1 - 0.7| or 0 for a correct confidence of 1.0
        for strategy in ("uniform", "quantile"):
            for norm in (1, 2):
                assert ece_confidence([[0.7, 0.3]], [0], strategy=strategy, norm=norm) == pytest.approx(0.3)
                assert ece_confidence([[1.0, 0.0]], [0], strategy=strategy, norm=norm) == 0.0
            assert ece_confidence([[0.7, 0.3]], [0], strategy=strategy, norm=2, debiased=True) == 0.0
        # confidence exactly 1.0 falls in the last equal-width bin, not in a bin B + 1
        p = [[1.0, 0.0], [1.0, 0.0], [0.95, 0.05]]
        assert ece_confidence(p, [0, 0, 1], n_bins=10) == pytest.approx(abs(2 / 3 - 2.95 / 3), abs=1e-12)
        # ties: all confidences equal -> one non-empty bin whatever the strategy and number of bins
        p = np.tile([0.6, 0.4], (10, 1))
        y = np.array([0] * 7 + [1] * 3)
        for strategy in ("uniform", "quantile"):
            for n_bins in (1, 3, 10, 50):
                assert ece_confidence(p, y, n_bins=n_bins, strategy=strategy) == pytest.approx(0.1, abs=1e-12)
        # more equal-mass bins than predictions: each (distinct) confidence in a bin of its own
        p, y = _random_case(n=7, k=3, seed=22)
        conf, correct = p.max(1), (p.argmax(1) == y)
        per_instance = np.abs(correct - conf).mean()
        for n_bins in (7, 8, 50):
            assert ece_confidence(p, y, n_bins=n_bins, strategy="quantile") == pytest.approx(per_instance, abs=1e-12)

    def test_options_errors(self):
        p = [[0.6, 0.4]]
        for bad in (0, 0.5, True, np.inf, np.nan, "2", None):
            with pytest.raises(ValueError, match="norm"):
                ece_confidence(p, [0], norm=bad)
        for bad in ("yes", 1, None):
            with pytest.raises(ValueError, match="debiased"):
                ece_confidence(p, [0], norm=2, debiased=bad)
        with pytest.raises(ValueError, match="norm=2"):
            ece_confidence(p, [0], debiased=True)
        for bad in ("adaptive", "top_label", None):
            with pytest.raises(ValueError, match="strategy"):
                ece_confidence(p, [0], strategy=bad)
        with pytest.raises(ValueError, match="n_bins"):
            ece_confidence(p, [0], n_bins=10**9)


class TestECEClasswise:
    def test_main(self):
        # docstring: each class (.1 + .9 + .4 + .4) / 4
        p = [[0.9, 0.1], [0.1, 0.9], [0.6, 0.4], [0.4, 0.6]]
        assert ece_classwise(p, [0, 0, 0, 1], n_bins=10) == pytest.approx(0.45, abs=1e-12)

    def test_bin_edges(self):
        # class 0: {0.3 (y=1), 0.35 (y=0)} in [0.3, 0.4): (2/3)|0.5-0.325|; {0.7 (y=0)}: (1/3)0.7  -> 0.35
        # class 1: {0.65 (y=1)}: (1/3)0.35; {0.7 (y=0)}: (1/3)0.7; {0.3 (y=1)}: (1/3)0.7      -> 0.58333
        p = [[0.3, 0.7], [0.35, 0.65], [0.7, 0.3]]
        expected = (0.35 + (0.35 + 0.7 + 0.7) / 3) / 2
        assert ece_classwise(p, [0, 1, 1], n_bins=10) == pytest.approx(expected, abs=1e-12)
        # 1.0 and 0.0 predictions, correct: zero error (1.0 in the last bin, 0.0 in the first)
        assert ece_classwise([[1.0, 0.0], [0.0, 1.0]], [0, 1]) == 0.0

    @pytest.mark.parametrize("case", [_random_case, _grid_case])
    @pytest.mark.parametrize("n_bins", [1, 7, 10, 15])
    def test_reference_implementation(self, case, n_bins):
        for seed in range(3):
            p, y = case(seed=seed)
            ref = _ref_ece_classwise(p.tolist(), y.tolist(), n_bins)
            assert ece_classwise(p, y, n_bins=n_bins) == pytest.approx(ref, abs=1e-12)

    def test_equals_mean_of_classwise_curves(self):
        p, y = _random_case(n=400, k=6, seed=4)
        for n_bins in (5, 10):
            per_class = [
                reliability_curve(p, y, n_bins=n_bins, kind="classwise", class_index=k).calibration_error
                for k in range(6)
            ]
            assert ece_classwise(p, y, n_bins=n_bins) == pytest.approx(np.mean(per_class), abs=1e-12)

    def test_invariances(self):
        p, y = _random_case(n=500, k=5, seed=1)
        base = ece_classwise(p, y)
        perm = np.random.default_rng(2).permutation(len(y))
        assert ece_classwise(p[perm], y[perm]) == pytest.approx(base, abs=1e-12)
        p2, y2 = _relabel(p, y, np.random.default_rng(3).permutation(5))
        assert ece_classwise(p2, y2) == pytest.approx(base, abs=1e-12)

    def test_calibrated_vs_overconfident(self):
        p, y = calibrated_predictions(200_000, 5, seed=0)
        assert ece_classwise(p, y) < 0.01
        assert ece_classwise(_sharpen(p), y) > 0.05

    def test_errors(self):
        for bad in (0, 1.0, True):
            with pytest.raises(ValueError, match="n_bins"):
                ece_classwise([[0.6, 0.4]], [0], n_bins=bad)

    def test_l2_by_hand(self):
        # sqrt(mean over classes of sum_b (n_b/N) gap_b²), all labels 0, two bins
        p, y = [[0.9, 0.1], [0.6, 0.4], [0.1, 0.9]], [0, 0, 0]
        c0 = (1 / 3) * (1 - 0.1) ** 2 + (2 / 3) * (1 - 0.75) ** 2  # [0, 0.5): {0.1}; [0.5, 1]: {0.6, 0.9}, outcomes 1
        c1 = (2 / 3) * 0.25**2 + (1 / 3) * 0.9**2  # {0.1, 0.4}; {0.9}, outcomes 0
        assert ece_classwise(p, y, n_bins=2, norm=2) == pytest.approx(math.sqrt((c0 + c1) / 2), abs=1e-12)

    def test_debiased_clips_each_class(self):
        # Kumar et al.'s marginal estimator clips each class's debiased squared error at 0 before
        # the mean over classes (a class with a negative estimate counts 0, not less)
        p = np.array([[0.7, 0.2, 0.1], [0.7, 0.2, 0.1], [0.1, 0.2, 0.7], [0.1, 0.2, 0.7]])
        y = np.array([0, 1, 2, 2])
        per_class = [
            max(_ref_power(p[:, c].tolist(), (y == c).astype(float).tolist(), 2, "uniform", 2, True), 0)
            for c in range(3)
        ]
        assert (
            min(_ref_power(p[:, c].tolist(), (y == c).astype(float).tolist(), 2, "uniform", 2, False) for c in range(3))
            >= 0
        )
        assert ece_classwise(p, y, n_bins=2, norm=2, debiased=True) == pytest.approx(
            math.sqrt(np.mean(per_class)), abs=1e-12
        )

    def test_edge_cases(self):
        # probabilities exactly 0 and 1 (first and last bin), N = 1, K = 2, every strategy
        for strategy in ("uniform", "quantile"):
            assert ece_classwise([[1.0, 0.0], [0.0, 1.0]], [0, 1], strategy=strategy) == 0.0
            assert ece_classwise([[0.7, 0.3]], [0], strategy=strategy) == pytest.approx(0.3)
            assert ece_classwise([[0.7, 0.3]], [0], strategy=strategy, norm=2, debiased=True) == 0.0
            assert ece_classwise([[1.0, 0.0], [0.0, 1.0]], [1, 0], strategy=strategy, n_bins=30) == pytest.approx(1.0)


class TestAce:
    def test_main(self):
        # docstring: per class two ranges of two probabilities, each |acc - conf| = 0.35
        p = [[0.9, 0.1], [0.8, 0.2], [0.4, 0.6], [0.3, 0.7]]
        assert ace(p, [0, 1, 1, 1], n_bins=2) == pytest.approx(0.35, abs=1e-12)
        p, y = _random_case(n=300, k=5, seed=30)
        assert ace(p, y, n_bins=15) == ece_classwise(p, y, n_bins=15, strategy="quantile")
        assert isinstance(ace(p, y), float)

    @pytest.mark.parametrize("n, n_ranges", [(300, 10), (1050, 15), (120, 4)])
    def test_nixon_formula(self, n, n_ranges):
        # R divides N, no ties: ACE = 1/(KR) sum_k sum_r |acc(r, k) - conf(r, k)|, ranges of N/R
        # consecutive sorted probabilities of each class
        p, y = _random_case(n=n, k=4, seed=n)
        total = 0.0
        for k in range(4):
            order = np.argsort(p[:, k])
            for r in np.split(order, n_ranges):
                total += abs(np.mean(y[r] == k) - p[r, k].mean())
        assert ace(p, y, n_bins=n_ranges) == pytest.approx(total / (4 * n_ranges), abs=1e-12)

    def test_authors_code_rule(self):
        # the rule of the authors' uncertainty_metrics (gce, adaptive, class-conditional, l1) written
        # out: upper edges at the sorted values of ranks round(m N / R), numpy.digitize, ranges
        # weighted by their sizes; N not a multiple of R
        p, y = _random_case(n=1003, k=3, seed=31)
        for n_ranges in (7, 10):
            total = 0.0
            for k in range(3):
                srt = np.sort(p[:, k])
                upper = srt[np.round(np.linspace(0, len(srt), n_ranges, endpoint=False)).astype(int)][1:]
                ids = np.digitize(p[:, k], upper)
                for r in range(n_ranges):
                    m = ids == r
                    if m.any():
                        total += m.sum() / len(y) * abs(np.mean(y[m] == k) - p[m, k].mean())
            assert ace(p, y, n_bins=n_ranges) == pytest.approx(total / 3, abs=1e-12)

    def test_not_the_all_label_error(self):
        # `ace` no longer means Wu & Gales' all-label error (now all_label_ece): other value, no epsilon
        p, y = _random_case(n=400, k=4, seed=32)
        assert abs(ace(p, y) - all_label_ece(p, y)) > 1e-3
        with pytest.raises(TypeError):
            ace(p, y, epsilon=1 / 30)

    def test_errors(self):
        for bad in (0, 1.5, True, 10**9):
            with pytest.raises(ValueError, match="n_bins"):
                ace([[0.6, 0.4]], [0], n_bins=bad)
        with pytest.raises(ValueError, match="probs"):
            ace([[0.6, 0.6]], [0])


class TestAllMetrics:
    """Properties shared by every metric."""

    @pytest.mark.parametrize("metric", ALL_METRICS, ids=lambda f: f.__name__)
    def test_permutation_of_instances(self, metric):
        p, y = _random_case(n=200, k=4, seed=5)
        perm = np.random.default_rng(6).permutation(200)
        assert metric(p[perm], y[perm]) == pytest.approx(metric(p, y), abs=1e-12)

    @pytest.mark.parametrize("metric", ALL_METRICS, ids=lambda f: f.__name__)
    def test_relabelling_classes(self, metric):
        p, y = _random_case(n=200, k=4, seed=5)
        for s in range(3):
            p2, y2 = _relabel(p, y, np.random.default_rng(s).permutation(4))
            assert metric(p2, y2) == pytest.approx(metric(p, y), abs=1e-12)

    @pytest.mark.parametrize("metric", ALL_METRICS, ids=lambda f: f.__name__)
    def test_torch_equals_numpy(self, metric):
        p, y = _random_case(n=100, k=3, seed=7)
        expected = metric(p, y)
        got = metric(torch.tensor(p), torch.tensor(y))
        assert isinstance(got, float)
        assert got == expected
        # float32 tensors give the numbers of float32 arrays
        p32 = p.astype(np.float32)
        assert metric(torch.from_numpy(p32), torch.from_numpy(y)) == metric(p32, y)

    @pytest.mark.parametrize("metric", ALL_METRICS, ids=lambda f: f.__name__)
    def test_batched_equals_loop(self, metric):
        rng = np.random.default_rng(8)
        p = rng.dirichlet(np.ones(4), size=(2, 3, 50))
        y = rng.integers(0, 4, size=(2, 3, 50))
        got = metric(p, y)
        assert isinstance(got, np.ndarray) and got.shape == (2, 3)
        loop = np.array([[metric(p[a, b], y[a, b]) for b in range(3)] for a in range(2)])
        np.testing.assert_allclose(got, loop, rtol=0, atol=1e-12)

    @pytest.mark.parametrize("metric", ALL_METRICS, ids=lambda f: f.__name__)
    def test_errors(self, metric):
        with pytest.raises(ValueError, match="probs"):
            metric([[0.2, 0.2]], [0])
        with pytest.raises(ValueError, match="labels"):
            metric([[0.5, 0.5], [0.5, 0.5]], [0])


class TestReliabilityCurve:
    def test_main(self):
        c = reliability_curve([[0.9, 0.1], [0.1, 0.9], [0.6, 0.4]], [0, 0, 0], n_bins=2)
        assert isinstance(c, ReliabilityCurve)
        assert c.kind == "confidence" and c.class_index is None
        np.testing.assert_array_equal(c.bin_edges, [0.0, 0.5, 1.0])
        assert c.counts.tolist() == [0, 3]
        assert np.isnan(c.observed[0]) and np.isnan(c.mean_predicted[0])
        assert c.observed[1] == pytest.approx(2 / 3)
        assert c.mean_predicted[1] == pytest.approx(0.8)
        assert c.calibration_error == pytest.approx(abs(2 / 3 - 0.8))

    def test_classwise(self):
        p = [[0.9, 0.1], [0.1, 0.9], [0.6, 0.4]]
        c0 = reliability_curve(p, [0, 0, 0], n_bins=2, kind="classwise", class_index=0)
        assert c0.class_index == 0
        assert c0.counts.tolist() == [1, 2]
        np.testing.assert_allclose(c0.observed, [1.0, 1.0])
        np.testing.assert_allclose(c0.mean_predicted, [0.1, 0.75])
        # pooled: all (i, k) pairs
        pooled = reliability_curve(p, [0, 0, 0], n_bins=2, kind="classwise")
        assert pooled.class_index is None
        assert pooled.counts.sum() == 6
        assert pooled.counts.tolist() == [3, 3]
        np.testing.assert_allclose(pooled.observed, [1 / 3, 2 / 3])
        # np.integer class indices are accepted and stored as int
        assert reliability_curve(p, [0, 0, 0], kind="classwise", class_index=np.int64(1)).class_index == 1

    def test_confidence_equals_ece(self):
        for seed in range(3):
            p, y = _random_case(n=500, k=4, seed=seed)
            for n_bins in (5, 10, 20):
                c = reliability_curve(p, y, n_bins=n_bins, kind="confidence")
                assert c.calibration_error == pytest.approx(ece_confidence(p, y, n_bins=n_bins), abs=1e-12)
                assert c.counts.sum() == 500

    def test_equal_mass(self):
        p, y = _random_case(n=500, k=4, seed=33)
        for n_bins in (5, 10):
            c = reliability_curve(p, y, n_bins=n_bins, strategy="quantile")
            assert c.calibration_error == pytest.approx(
                ece_confidence(p, y, n_bins=n_bins, strategy="quantile"), abs=1e-12
            )
            assert c.counts.tolist() == [500 // n_bins] * n_bins
            assert c.bin_edges[0] == 0.0 and c.bin_edges[-1] == 1.0 and np.all(np.diff(c.bin_edges) >= 0)
            per_class = [
                reliability_curve(
                    p, y, n_bins=n_bins, kind="classwise", class_index=k, strategy="quantile"
                ).calibration_error
                for k in range(4)
            ]
            assert np.mean(per_class) == pytest.approx(ace(p, y, n_bins=n_bins), abs=1e-12)
        with pytest.raises(ValueError, match="strategy"):
            reliability_curve(p, y, strategy="adaptive")

    def test_bin_edge_in_curve(self):
        c = reliability_curve([[0.3, 0.3, 0.2, 0.2], [1.0, 0.0, 0.0, 0.0]], [0, 0], n_bins=10)
        assert c.counts.tolist() == [0, 0, 0, 1, 0, 0, 0, 0, 0, 1]

    def test_errors(self):
        p = [[0.6, 0.4], [0.3, 0.7]]
        with pytest.raises(ValueError, match="kind"):
            reliability_curve(p, [0, 1], kind="top-label")
        with pytest.raises(ValueError, match="class_index"):
            reliability_curve(p, [0, 1], kind="confidence", class_index=0)
        for bad in (-1, 2, 1.0, True, "0"):
            with pytest.raises(ValueError, match="class_index"):
                reliability_curve(p, [0, 1], kind="classwise", class_index=bad)
        with pytest.raises(ValueError, match=r"probs must have shape \(N, K\)"):
            reliability_curve(np.array([p, p]), [[0, 1], [0, 1]])
        with pytest.raises(ValueError, match="n_bins"):
            reliability_curve(p, [0, 1], n_bins=0)


class TestCalibrationSummary:
    def test_main(self):
        p, y = _random_case(n=300, k=4, seed=9)
        s = calibration_summary(p, y, n_bins=15)
        assert list(s) == ["accuracy", "mean_confidence", "brier_score", "nll", "ece_confidence", "ece_classwise"]
        assert s["accuracy"] == accuracy(p, y)
        assert s["mean_confidence"] == pytest.approx(p.max(axis=1).mean(), abs=1e-15)
        assert s["brier_score"] == brier_score(p, y)
        assert s["nll"] == nll(p, y)
        assert s["ece_confidence"] == ece_confidence(p, y, n_bins=15)
        assert s["ece_classwise"] == ece_classwise(p, y, n_bins=15)
        assert all(isinstance(v, float) for v in s.values())

    def test_old_keys_warn(self):
        """The keys of earlier releases still read the same values, with a FutureWarning naming the new key."""
        p, y = _random_case(n=50, k=3, seed=1)
        s = calibration_summary(p, y)
        for old, new in (("brier", "brier_score"), ("ece_conf", "ece_confidence"), ("ece_cwise", "ece_classwise")):
            with pytest.warns(FutureWarning, match=f"'{old}' was renamed to '{new}'"):
                assert s[old] == s[new]
            assert old not in s and old not in list(s)

    def test_docstring_example(self):
        s = calibration_summary([[0.9, 0.1], [0.2, 0.8]], [0, 1], n_bins=10)
        assert s["accuracy"] == 1.0
        assert s["mean_confidence"] == pytest.approx(0.85)
        assert s["ece_confidence"] == pytest.approx(0.15)

    def test_batched(self):
        rng = np.random.default_rng(10)
        p = rng.dirichlet(np.ones(3), size=(4, 60))
        y = rng.integers(0, 3, size=(4, 60))
        s = calibration_summary(p, y)
        for key, value in s.items():
            assert np.shape(value) == (4,), key
        np.testing.assert_allclose(s["ece_classwise"], [ece_classwise(p[b], y[b]) for b in range(4)], atol=1e-12)

    def test_errors(self):
        with pytest.raises(ValueError, match="probs"):
            calibration_summary([[0.5, 0.4]], [0])
        with pytest.raises(ValueError, match="n_bins"):
            calibration_summary([[0.5, 0.5]], [0], n_bins=0)


@pytest.mark.parametrize("kind, ece", [("confidence", ece_confidence), ("classwise", ece_classwise)])
@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
@pytest.mark.parametrize("norm, debiased", [(1, False), (2, False), (3, False), (2, True)])
def test_options_reference(kind, ece, strategy, norm, debiased):
    """Every strategy/norm/debiasing option of both binned errors against the reference loop `_ref_ece`."""
    for case, seed, n_bins in [(_random_case, 0, 10), (_grid_case, 1, 7), (_random_case, 2, 3), (_grid_case, 3, 15)]:
        p, y = case(seed=seed)
        ref = _ref_ece(p, y, n_bins, kind=kind, strategy=strategy, norm=norm, debiased=debiased)
        got = ece(p, y, n_bins=n_bins, strategy=strategy, norm=norm, debiased=debiased)
        assert got == pytest.approx(ref, abs=1e-12)


class TestRenamedKeywords:
    """binning= (0.5) is strategy= since 0.6, with the values "uniform"/"quantile"; the old ones still work and warn."""

    def test_binning_keyword_and_values(self):
        p, y = _random_case(n=200, k=4, seed=5)
        for old, new in (("equal_width", "uniform"), ("equal_mass", "quantile")):
            for fn in (ece_confidence, ece_classwise):
                with pytest.warns(FutureWarning, match="'binning' was renamed to 'strategy'"):
                    assert fn(p, y, binning=new) == fn(p, y, strategy=new)
                with pytest.warns(FutureWarning, match=f"strategy='{old}' was renamed to strategy='{new}'"):
                    assert fn(p, y, strategy=old) == fn(p, y, strategy=new)
        with pytest.raises(TypeError, match="pass only strategy"):
            ece_confidence(p, y, binning="uniform", strategy="uniform")


class TestEceAlias:
    """ece(epsilon) is ece_confidence(n_bins=1/(2 epsilon)) bit for bit; other epsilons use the regions."""

    def test_bit_identical(self):
        from credalbook.metrics import epsilon_from_bins
        from credalbook.metrics.regions import _region_ece, check_probs_label_rows

        rng = np.random.default_rng(11)
        for trial in range(60):
            n, k, b = int(rng.integers(1, 200)), int(rng.integers(2, 8)), int(rng.integers(1, 40))
            p = rng.dirichlet(np.ones(k) * rng.uniform(0.1, 3), size=n)
            if trial % 3 == 0:  # probabilities on bin edges
                grid = rng.integers(1, b + 1, size=(n, k)).astype(float)
                p = grid / grid.sum(axis=1, keepdims=True)
            y = rng.integers(0, k, size=n)
            eps = epsilon_from_bins(b)
            assert ece(p, y, epsilon=eps) == ece_confidence(p, y, n_bins=b)
            q, t, _ = check_probs_label_rows(p, y)
            assert ece(p, y, epsilon=eps) == _region_ece(q, t, eps)  # the regions give the same bits

    def test_other_epsilons_and_label_rows(self):
        p, y = _random_case(n=50, k=3, seed=2)
        rows = one_hot(y, 3)
        for eps in (0.0, 0.07, 0.5, 1.0, 1 / 30):
            assert ece(p, rows, epsilon=eps) == pytest.approx(ece(p, y, epsilon=eps), abs=1e-15)
