"""Tests for credalbook.metrics.binning: the one binning helper of the binned metrics.

The bin rule at the edges (j/B opens bin j; 0 in the first bin, 1.0 in the last), where it
differs from ``floor(x * B)``, equal-mass bins against the EU paper's rule, batched per-bin sums
against a loop of ``numpy.bincount``, the engine of the binned calibration errors
(``bin_statistics``) against a per-problem loop (bit for bit for equal-width bins, also across its
cache-sized steps; ties, neighbouring floats and B > N for equal-mass bins), and the binned metrics
that use the helper.
"""

import numpy as np
import pytest

import credalbook.metrics.binning as binning_module
from credalbook.metrics import (
    bin_ids,
    bin_statistics,
    BIN_STRATEGIES,
    BinStatistics,
    ece_classwise,
    ece_confidence,
    interval_cuts,
    interval_index,
    reliability_curve,
)
from credalbook.metrics.binning import (
    bin_index,
    bin_sums,
    check_strategy,
    cut_index,
    equal_mass_cuts,
    equal_width_bin_index,
    uniform_edges,
)


class TestBinIds:
    def test_main(self):
        assert bin_ids([0.0, 0.05, 0.1, 0.3, 0.7, 0.99, 1.0], 10).tolist() == [0, 0, 1, 3, 7, 9, 9]
        assert bin_ids(np.array([[0.0, 1.0], [0.5, 0.49]]), 2).tolist() == [[0, 1], [1, 0]]
        assert bin_ids([0.3], 1).tolist() == [0]

    @pytest.mark.parametrize("n_bins", [1, 2, 3, 7, 10, 15, 20, 33, 50])
    def test_edges(self, n_bins):
        # j/B opens bin j, the float just below it is still in bin j-1; 0 -> first bin, 1.0 -> last
        j = np.arange(n_bins + 1)
        edges = j / n_bins
        np.testing.assert_array_equal(bin_ids(edges, n_bins), np.minimum(j, n_bins - 1))
        below = np.nextafter(edges[1:], 0.0)
        np.testing.assert_array_equal(bin_ids(below, n_bins), j[:-1])
        np.testing.assert_array_equal(uniform_edges(n_bins), edges)

    def test_rule_is_edges_not_floor(self):
        # floor(x * B) disagrees with the edges j / B for some values just below an edge (x * B
        # rounds up to the integer); the helper follows the edges, as the metrics always have.
        found = 0
        for n_bins in range(2, 60):
            x = np.nextafter(np.arange(1, n_bins) / n_bins, 0.0)
            floor = np.floor(x * n_bins).astype(int)
            ours = bin_ids(x, n_bins)
            np.testing.assert_array_equal(ours, np.arange(n_bins - 1))
            found += int((floor != ours).sum())
        assert found > 0

    def test_quantile(self):
        rng = np.random.default_rng(0)
        x = rng.random(203)
        ids = bin_ids(x, 10, strategy="quantile")
        assert np.bincount(ids, minlength=10).max() - np.bincount(ids, minlength=10).min() <= 1
        # the EU paper's equal-mass intervals, computed by credalbook.metrics.epistemic
        np.testing.assert_array_equal(equal_mass_cuts(x, 10), interval_cuts(x, n_bins=10))
        np.testing.assert_array_equal(ids, interval_index(x, interval_cuts(x, n_bins=10)))
        # values sorted: bins are consecutive runs
        assert np.all(np.diff(bin_ids(np.sort(x), 10, strategy="quantile")) >= 0)

    def test_errors(self):
        with pytest.raises(ValueError, match="n_bins"):
            bin_ids([0.5], 0)
        with pytest.raises(ValueError, match="strategy"):
            bin_ids([0.5], 2, strategy="log")
        with pytest.raises(ValueError, match="values"):
            bin_ids([0.5, np.nan], 2)
        with pytest.raises(ValueError, match="n_bins"):
            bin_ids([0.5], 10**9)
        with pytest.raises(ValueError, match="values"):
            bin_ids(np.array([0.5 + 1j]), 2)
        for bad in (-0.5, 1.5, -1e-3):
            with pytest.raises(ValueError, match=r"values must lie in \[0, 1\]"):
                bin_ids([0.5, bad], 4)
        assert bin_ids([-1e-6, 1 + 1e-6], 4).tolist() == [0, 3]  # within the tolerance of probabilities
        assert bin_ids([-0.5, 1.5, 0.2], 3, strategy="quantile").tolist() == [0, 2, 1]  # any real values
        with pytest.raises(ValueError, match="scalar"):
            bin_ids(0.5, 2, strategy="quantile")

    def test_old_strategy_names(self):
        x = np.random.default_rng(4).random(50)
        with pytest.warns(FutureWarning, match="'equal_width' was renamed"):
            np.testing.assert_array_equal(bin_ids(x, 7, strategy="equal_width"), bin_ids(x, 7))
        with pytest.warns(FutureWarning, match="'equal_mass' was renamed"):
            np.testing.assert_array_equal(bin_ids(x, 7, strategy="equal_mass"), bin_ids(x, 7, strategy="quantile"))

    def test_quantile_per_row(self):
        # equal-mass bins are computed along the last axis, each row on its own
        x = np.random.default_rng(5).random((3, 40))
        ids = bin_ids(x, 4, strategy="quantile")
        for row, got in zip(x, ids):
            np.testing.assert_array_equal(got, bin_ids(row, 4, strategy="quantile"))
            assert np.bincount(got, minlength=4).tolist() == [10, 10, 10, 10]

    def test_quantile_more_bins_than_values(self):
        # B > N: every value in a bin of its own, the other bins empty (no error, no phantom values)
        x = np.array([0.4, 0.1, 0.9])
        ids = bin_ids(x, 10, strategy="quantile")
        assert len(set(ids.tolist())) == 3 and ids.min() >= 0 and ids.max() <= 9
        assert np.all(np.diff(ids[np.argsort(x)]) > 0)
        assert bin_ids([0.3], 5, strategy="quantile").tolist() == [2]  # N = 1: k_m = round(m/5) = 0, 0, 1, 1

    def test_quantile_ties(self):
        # ties at a cut are never split: they all go to the upper bin, so bins can be unequal or empty
        x = np.array([0.2] * 6 + [0.7] * 2)
        ids = bin_ids(x, 4, strategy="quantile")  # cuts (0.2, 0.2, 0.45)
        assert ids.tolist() == [2] * 6 + [3] * 2
        assert bin_ids(np.full(5, 0.5), 3, strategy="quantile").tolist() == [2] * 5


class TestBinIndex:
    def test_main(self):
        edges = np.array([0.0, 0.2, 0.3, 0.75, 1.0])
        values = np.array([-1e-9, 0.0, 0.2, 0.29, 0.3, 0.75, 0.99, 1.0, 1 + 1e-9])
        assert bin_index(values, edges).tolist() == [0, 0, 1, 1, 2, 3, 3, 3, 3]
        x = np.random.default_rng(1).random(50)
        np.testing.assert_array_equal(bin_index(x, uniform_edges(7)), equal_width_bin_index(x, 7))


class TestBinSums:
    def test_main(self):
        rng = np.random.default_rng(2)
        ids = rng.integers(0, 6, size=(3, 4, 40))
        w = rng.normal(size=(3, 4, 40))
        got = bin_sums(ids, w, 6)
        assert got.shape == (3, 4, 6)
        for a in range(3):
            for b in range(4):
                np.testing.assert_array_equal(got[a, b], np.bincount(ids[a, b], weights=w[a, b], minlength=6))
        counts = bin_sums(ids, None, 6)
        assert counts.dtype.kind == "i"
        np.testing.assert_array_equal(counts.sum(axis=-1), 40)
        np.testing.assert_array_equal(bin_sums(ids[0, 0], w[0, 0], 6), got[0, 0])


class TestUsers:
    def test_ece_and_reliability_curve_on_the_helper(self):
        rng = np.random.default_rng(3)
        p = rng.dirichlet(np.ones(3), size=200)
        p[:5] = [1.0, 0.0, 0.0]  # confidence exactly 1: the last bin
        y = rng.integers(0, 3, size=200)
        conf, correct = p.max(axis=1), (p.argmax(axis=1) == y).astype(float)
        ids = bin_ids(conf, 10)
        expected = np.abs(bin_sums(ids, correct - conf, 10)).sum() / 200
        assert ece_confidence(p, y, n_bins=10) == expected
        curve = reliability_curve(p, y, n_bins=10)
        np.testing.assert_array_equal(curve.counts, bin_sums(ids, None, 10))
        assert curve.counts[-1] >= 5
        # classwise: values 0 go to the first bin
        curve = reliability_curve(p, y, n_bins=10, kind="classwise", class_index=1)
        assert curve.counts[0] >= 5
        assert ece_classwise(p, y, n_bins=10) == pytest.approx(
            np.mean(
                [
                    reliability_curve(p, y, n_bins=10, kind="classwise", class_index=k).calibration_error
                    for k in range(3)
                ]
            ),
            abs=1e-15,
        )


# ----------------------------------------------------------------------------------------------
# The engine of the binned calibration errors
# ----------------------------------------------------------------------------------------------
def _reference_statistics(x, positive, n_bins, binning):
    """Per-problem loop: bins from bin_index / the equal-mass rule written out, one bincount each."""
    *batch, n, c = x.shape
    xr, pr = x.reshape(-1, n, c), positive.reshape(-1, n)
    gap = np.zeros((len(xr), c, n_bins))
    counts = np.zeros((len(xr), c, n_bins), dtype=np.int64)
    pos = np.zeros((len(xr), c, n_bins), dtype=np.int64)
    for a in range(len(xr)):
        for k in range(c):
            v, o = xr[a, :, k], (pr[a] == k).astype(float)
            if binning == "uniform":
                ids = bin_index(v, uniform_edges(n_bins))
            else:  # k_m = round(m T / B); cut between the order statistics k_m - 1 and k_m; ±inf outside
                srt = sorted(v.tolist())
                cuts = []
                for m in range(1, n_bins):
                    km = round(m * n / n_bins)
                    cuts.append(-np.inf if km < 1 else np.inf if km > n - 1 else 0.5 * (srt[km - 1] + srt[km]))
                ids = np.array([sum(cut <= value for cut in cuts) for value in v.tolist()], dtype=int)
            gap[a, k] = np.bincount(ids, weights=o - v, minlength=n_bins)
            counts[a, k] = np.bincount(ids, minlength=n_bins)
            pos[a, k] = np.bincount(ids, weights=o, minlength=n_bins)
    shape = (*batch, c, n_bins)
    return gap.reshape(shape), counts.reshape(shape), pos.reshape(shape)


def _engine_case(rng, n, c, batch=(), kind="uniform"):
    shape = (*batch, n, c)
    if kind == "uniform":
        x = rng.random(shape)
    elif kind == "grid":  # many values on the edges j/B and many ties
        x = rng.integers(0, 5, shape) / 4.0
    else:  # masses at 0 and 1 (confidences exactly 1.0, probabilities exactly 0)
        x = rng.random(shape)
        x[x < 0.5] = 0.0
        x[x > 0.9] = 1.0
    return x, rng.integers(-1, c, (*batch, n))


class TestBinStatistics:
    def test_main(self):
        # docstring: three instances, two classes (labels 0, 1, 1), two equal-width bins
        s = bin_statistics([[0.8, 0.2], [0.3, 0.7], [0.6, 0.4]], [0, 1, 1], 2, counts=True)
        assert isinstance(s, BinStatistics) and s.n == 3
        np.testing.assert_allclose(s.gap, [[-0.3, -0.4], [0.4, 0.3]], atol=1e-15)
        assert s.counts.tolist() == [[1, 2], [2, 1]] and s.positives.tolist() == [[0, 1], [1, 1]]
        s = bin_statistics([[0.8, 0.2], [0.3, 0.7], [0.6, 0.4]], [0, 1, 1], 2)
        assert s.counts is None and s.positives is None
        # equal-mass, one problem: values 0.1, 0.2 | 0.3, 0.9 (cut 0.25), positives 0.2 and 0.9
        s = bin_statistics([[0.3], [0.1], [0.9], [0.2]], [-1, -1, 0, 0], 2, strategy="quantile", counts=True)
        np.testing.assert_allclose(s.gap, [[1 - 0.3, 1 - 1.2]], atol=1e-15)
        assert s.counts.tolist() == [[2, 2]] and s.positives.tolist() == [[1, 1]]

    @pytest.mark.parametrize("binning", BIN_STRATEGIES)
    @pytest.mark.parametrize("kind", ["uniform", "grid", "atoms"])
    def test_reference(self, binning, kind):
        rng = np.random.default_rng(11)
        for n, c, batch, n_bins in [
            (1, 1, (), 10),
            (2, 3, (), 1),
            (7, 2, (3,), 3),
            (200, 4, (), 10),
            (50, 3, (2, 2), 15),
            (3000, 2, (), 7),
            (40, 1, (), 100),
        ]:
            x, positive = _engine_case(rng, n, c, batch, kind)
            s = bin_statistics(x, positive, n_bins, strategy=binning, counts=True)
            gap, counts, pos = _reference_statistics(x, positive, n_bins, binning)
            assert s.gap.shape == gap.shape == (*batch, c, n_bins)
            np.testing.assert_array_equal(s.counts, counts)
            np.testing.assert_array_equal(s.positives, pos)
            if binning == "uniform":  # the same additions in the same order: bit for bit
                np.testing.assert_array_equal(s.gap, gap)
            else:
                np.testing.assert_allclose(s.gap, gap, rtol=1e-12, atol=1e-12)

    def test_steps_are_exact(self, monkeypatch):
        # tiny steps: running sums carried across steps and batch elements spread over several steps
        monkeypatch.setattr(binning_module, "_CHUNK", 64)
        rng = np.random.default_rng(12)
        for n, c, batch, n_bins in [(300, 3, (), 10), (100, 1, (2,), 4), (5, 2, (7,), 3), (70, 4, (2, 3), 9)]:
            x, positive = _engine_case(rng, n, c, batch)
            s = bin_statistics(x, positive, n_bins, counts=True)
            gap, counts, pos = _reference_statistics(x, positive, n_bins, "uniform")
            np.testing.assert_array_equal(s.gap, gap)
            np.testing.assert_array_equal(s.counts, counts)
            np.testing.assert_array_equal(s.positives, pos)
        x = rng.random(5000)
        np.testing.assert_array_equal(equal_width_bin_index(x, 13), bin_index(x, uniform_edges(13)))

    def test_fast_equal_width_index_equals_binary_search(self):
        # the floor-and-correct rule of large arrays gives bin_index's answer everywhere, also on edges,
        # just below them, at 0 and 1 and outside [0, 1] (NaN: the last bin, where a binary search puts it)
        rng = np.random.default_rng(14)
        for n_bins in (1, 2, 3, 10, 33, 49, 1000):
            edges = uniform_edges(n_bins)
            x = np.concatenate(
                [
                    rng.random(3000),
                    edges,
                    np.nextafter(edges, -1),
                    np.nextafter(edges, 2),
                    [-3.0, -1e-9, 1 + 1e-9, 5.0, np.inf, -np.inf, np.nan],
                ]
            )
            np.testing.assert_array_equal(equal_width_bin_index(x, n_bins), bin_index(x, edges))

    def test_equal_mass_selection_equals_sorting(self, monkeypatch):
        # the order-statistics path (few cuts) against the sorting path (many cuts), on ties and on
        # neighbouring floats whose midpoint rounds onto one of them
        rng = np.random.default_rng(13)
        base = rng.random(4)
        values = np.concatenate([base, np.nextafter(base, 2), np.nextafter(np.nextafter(base, 2), 2), [0.0, 1.0]])
        cases = [rng.choice(values, size=(n, 2)) for n in (40, 41, 200, 1001)]
        cases.append(np.full((60, 1), 0.25))
        for x in cases:
            positive = rng.integers(-1, x.shape[1], x.shape[0])
            for n_bins in (2, 3, 5, 10, 20):
                fast = bin_statistics(x, positive, n_bins, strategy="quantile", counts=True)
                monkeypatch.setattr(binning_module, "_MAX_SELECT_CUTS", 0)
                slow = bin_statistics(x, positive, n_bins, strategy="quantile", counts=True)
                monkeypatch.undo()
                np.testing.assert_array_equal(fast.counts, slow.counts)
                np.testing.assert_array_equal(fast.positives, slow.positives)
                np.testing.assert_allclose(fast.gap, slow.gap, rtol=1e-12, atol=1e-12)

    def test_equal_mass_histogram_equals_sorting(self, monkeypatch):
        # the histogram path (from HISTOGRAM_MIN_VALUES values per problem) against the sorting path, on spread,
        # tied and neighbouring values, tiny and subnormal ones, values above 1, a spike holding most values (the
        # path gives up: partition) and signed ones (-0.0, negatives: the path gives up)
        rng = np.random.default_rng(21)
        n = 3000
        base = rng.random(5)
        close = np.concatenate([base, np.nextafter(base, 2), np.nextafter(np.nextafter(base, 2), 2)])
        cases = {
            "spread": rng.dirichlet(np.ones(3), size=n),
            "tied": rng.choice(close, size=(n, 2)),
            "rounded": np.round(rng.random((n, 2)), 2),
            "tiny": rng.random((n, 2)) * 1e-300,
            "subnormal": rng.random((n, 1)) * 1e-310,
            "above one": rng.random((n, 2)) * 1e6,
            "spike": np.where(rng.random((n, 2)) < 0.9, 0.25, rng.random((n, 2))),
            "-0.0": np.where(rng.random((n, 2)) < 0.5, -0.0, rng.random((n, 2))),
            "negative": rng.normal(size=(n, 2)),
        }
        calls = []
        real = binning_module._equal_mass_histogram
        monkeypatch.setattr(binning_module, "_equal_mass_histogram", lambda *a: calls.append(real(*a)) or calls[-1])
        used = {}
        for name, x in cases.items():
            del calls[:]
            positive = rng.integers(-1, x.shape[1], x.shape[0])
            for n_bins in (2, 3, 10, 15, 64):
                monkeypatch.setattr(binning_module, "HISTOGRAM_MIN_VALUES", 1)
                fast = bin_statistics(x, positive, n_bins, strategy="quantile", counts=True)
                monkeypatch.setattr(binning_module, "HISTOGRAM_MIN_VALUES", 10**9)
                monkeypatch.setattr(binning_module, "_MAX_SELECT_CUTS", 0)
                slow = bin_statistics(x, positive, n_bins, strategy="quantile", counts=True)
                monkeypatch.setattr(binning_module, "_MAX_SELECT_CUTS", 64)
                np.testing.assert_array_equal(fast.counts, slow.counts, err_msg=name)
                np.testing.assert_array_equal(fast.positives, slow.positives, err_msg=name)
                np.testing.assert_allclose(
                    fast.gap, slow.gap, rtol=1e-12, atol=1e-12 * n * np.abs(x).max(), err_msg=name
                )
            used[name] = sum(c is not None for c in calls) / len(calls)
        # the path ran on every problem of the spread, tiny and large values, gave up on the spike and the signed ones
        # (and where the cuts sit among many values of one key: the tied, subnormal ones)
        assert all(used[name] == 1 for name in ("spread", "tiny", "above one")), used
        assert all(used[name] == 0 for name in ("spike", "-0.0", "negative")), used
        assert binning_module._equal_mass_histogram(np.array([0.5, -0.0, 0.1] * 10), 3) is None

    def test_edges_of_the_unit_interval(self):
        # 1.0 falls in the last bin (no bin B + 1), 0.0 in the first, for both binnings
        x = np.array([[0.0], [1.0], [1.0], [0.5]])
        s = bin_statistics(x, [-1, 0, 0, -1], 10, counts=True)
        assert s.counts.tolist() == [[1, 0, 0, 0, 0, 1, 0, 0, 0, 2]]
        assert s.gap.shape == (1, 10) and s.gap[0, -1] == 0.0
        s = bin_statistics(x, [-1, 0, 0, -1], 2, strategy="quantile", counts=True)
        assert s.counts.tolist() == [[2, 2]] and s.positives.tolist() == [[0, 2]]
        # values just outside [0, 1] (within the simplex tolerance) go to the outer bins
        s = bin_statistics([[-1e-6], [1 + 1e-6]], [-1, 0], 4, counts=True)
        assert s.counts.tolist() == [[1, 0, 0, 1]]

    def test_errors(self):
        with pytest.raises(ValueError, match="values"):
            bin_statistics([0.1, 0.2], [0, 0], 2)
        with pytest.raises(ValueError, match="values"):
            bin_statistics(np.zeros((0, 2)), np.zeros(0, dtype=int), 2)
        with pytest.raises(ValueError, match="values"):
            bin_statistics([[np.nan]], [0], 2)
        for bad in (np.array([[0.5 + 1j]]), np.array([["a"]]), np.array([[None]], dtype=object)):
            with pytest.raises(ValueError, match="values"):
                bin_statistics(bad, [0], 2)
        with pytest.raises(ValueError, match="positive"):
            bin_statistics([[0.1], [0.2]], [0], 2)
        with pytest.raises(ValueError, match="positive"):
            bin_statistics([[0.1], [0.2]], [0, 1], 2)
        with pytest.raises(ValueError, match="positive"):
            bin_statistics([[0.1], [0.2]], [0.0, 0.0], 2)
        with pytest.raises(ValueError, match="strategy"):
            bin_statistics([[0.1]], [0], 2, strategy="adaptive")
        for bad in (0, True, 2.0, 10**9):
            with pytest.raises(ValueError, match="n_bins"):
                bin_statistics([[0.1]], [0], bad)


class TestCheckStrategy:
    def test_main(self):
        assert BIN_STRATEGIES == ("uniform", "quantile")
        assert [check_strategy(b) for b in BIN_STRATEGIES] == list(BIN_STRATEGIES)

    def test_old_values_warn(self):
        for old, new in (("equal_width", "uniform"), ("equal_mass", "quantile")):
            with pytest.warns(FutureWarning, match=f"strategy={old!r} was renamed to strategy={new!r}"):
                assert check_strategy(old) == new

    def test_errors(self):
        for bad in ("adaptive", None, 1):
            with pytest.raises(ValueError, match="strategy"):
                check_strategy(bad)


class TestEqualMassCuts:
    def test_main(self):
        assert equal_mass_cuts(np.array([0.1, 0.4, 0.2, 0.3, 0.6, 0.5]), 3).tolist() == [0.25, 0.45]
        # T < B: ranks round(m T / B) of 0 or T give infinite cuts, so those bins stay empty
        assert equal_mass_cuts(np.array([0.2, 0.6]), 4).tolist() == [-np.inf, 0.4, np.inf]
        assert equal_mass_cuts(np.array([0.3]), 3).tolist() == [-np.inf, np.inf]
        np.testing.assert_array_equal(cut_index(np.array([0.2, 0.6]), equal_mass_cuts(np.array([0.2, 0.6]), 4)), [1, 2])

    def test_ties(self):
        assert equal_mass_cuts(np.array([0.5, 0.5, 0.5, 0.9]), 2).tolist() == [0.5]


def test_bin_statistics_binning_keyword():
    """binning= of 0.5 is strategy= since 0.6 (FutureWarning), the same statistics."""
    x, pos = np.random.default_rng(3).random((40, 3)), np.random.default_rng(4).integers(-1, 3, size=40)
    with pytest.warns(FutureWarning, match="'binning' was renamed to 'strategy'"):
        old = bin_statistics(x, pos, 4, binning="quantile", counts=True)
    new = bin_statistics(x, pos, 4, strategy="quantile", counts=True)
    np.testing.assert_array_equal(old.gap, new.gap)
    np.testing.assert_array_equal(old.counts, new.counts)
