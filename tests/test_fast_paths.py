"""Every fast path against its generic route on fixed data (quick: each test well under 2 s).

A fast path that draws the same random numbers as its reference must give the same numbers; one
that cannot is held to the reference's distribution. A bug in a fast path (a comparison turned
round, a wrong gather) changes these numbers at once, where a Monte-Carlo Type I check would need
minutes to notice.
"""

from __future__ import annotations

import sys

import numpy as np
import pytest

from credalbook.metrics import classification
from credalbook.metrics.binning import equal_width_bin_index
from credalbook.metrics.classification import ece_confidence_batched


# ------------------------------------------------------------------------------------------
# the row maxima of the top-label errors (torch.max on large arrays) against NumPy
# ------------------------------------------------------------------------------------------
def _top_label_reference(p, y):
    """``credalbook.metrics.classification._top_label`` as it was before torch's row maxima (verbatim)."""
    yhat = p.argmax(axis=-1)
    conf = np.take_along_axis(p, yhat[..., None], axis=-1)
    return conf, np.where(yhat == y, 0, -1)


def _tied_probs(n, k, seed):
    """Rows with many exact ties among their largest entries (and zeros of both signs)."""
    rng = np.random.default_rng(seed)
    p = rng.integers(0, 3, size=(n, k)).astype(np.float64)
    p[:, 0] += p.sum(axis=1) == 0  # no all-zero rows
    p /= p.sum(axis=1, keepdims=True)
    p[rng.random((n, k)) < 0.05] *= -1.0  # -0.0 where an entry is 0: still ties with +0.0
    return np.abs(p) * np.where(p == 0, -1.0, 1.0)


class TestRowMax:
    @pytest.fixture(autouse=True)
    def _torch_imported(self):
        import torch  # noqa: F401 - the fast route runs only once torch is imported

    @pytest.mark.parametrize("torch_loaded", [True, False])
    def test_torch_only_when_imported(self, monkeypatch, torch_loaded):
        """The route follows whether torch is imported (importing it costs far more than it saves); both give NumPy's result."""
        import torch

        if not torch_loaded:
            monkeypatch.setattr(classification, "loaded_torch", lambda: None)
        calls = []
        real = torch.max
        monkeypatch.setattr(torch, "max", lambda *a, **k: calls.append(1) or real(*a, **k))
        p = _tied_probs(classification._TORCH_MAX_SIZE // 5 + 3, 5, seed=4)
        y = np.zeros(p.shape[0], dtype=np.int64)
        conf, pos = classification._top_label(p, y)
        ref_conf, ref_pos = _top_label_reference(p, y)
        assert np.array_equal(conf.view(np.int64), ref_conf.view(np.int64)) and np.array_equal(pos, ref_pos)
        assert len(calls) == int(torch_loaded)

    @pytest.mark.parametrize("k", [2, 3, 10, 17])
    def test_ties_and_signed_zeros(self, k):
        """Above the torch threshold: the same confidences (bit for bit, sign of zero included) and the first
        maximal index, as NumPy's argmax, on rows with exact ties."""
        n = classification._TORCH_MAX_SIZE // k + 7
        p = _tied_probs(n, k, seed=k)
        y = np.random.default_rng(0).integers(0, k, n)
        assert p.size >= classification._TORCH_MAX_SIZE
        conf, pos = classification._top_label(p, y)
        ref_conf, ref_pos = _top_label_reference(p, y)
        assert conf.shape == ref_conf.shape and np.array_equal(pos, ref_pos)
        assert np.array_equal(conf.view(np.int64), ref_conf.view(np.int64))  # bits, not values
        assert (p.argmax(1) != (p == p.max(1, keepdims=True)).argmax(1)).sum() == 0  # ties really are there
        assert ((p == p.max(1, keepdims=True)).sum(1) > 1).mean() > 0.2

    def test_batched_and_read_only(self):
        """(R, N, K) batches and a read-only (memory-mapped) array take the fast route with the same result."""
        rng = np.random.default_rng(1)
        p = rng.dirichlet(np.ones(10), size=(3, 4000))
        y = rng.integers(0, 10, (3, 4000))
        ro = p.copy()
        ro.flags.writeable = False
        for arr in (p, ro):
            conf, pos = classification._top_label(arr, y)
            ref_conf, ref_pos = _top_label_reference(arr, y)
            assert np.array_equal(conf, ref_conf) and np.array_equal(pos, ref_pos)

    @pytest.mark.parametrize("kind", ["random", "tied", "edges"])
    def test_ece_confidence_unchanged(self, kind):
        """ece_confidence (all options, equal width and equal mass) equals the error computed from the
        reference top label bit for bit, on random data, ties, and confidences exactly on the bin edges."""
        from credalbook.metrics.classification import _top_label_error

        rng = np.random.default_rng(2)
        n, k = 20_000, 5
        if kind == "random":
            p = rng.dirichlet(np.ones(k) * 0.5, size=n)
        elif kind == "tied":
            p = _tied_probs(n, k, seed=3)
        else:  # top probability exactly j / 10 (and 1.0)
            top = rng.integers(3, 11, n) / 10
            p = np.empty((n, k))
            p[:, 0] = top
            p[:, 1:] = ((1 - top) / (k - 1))[:, None]
        y = rng.integers(0, k, n)
        for options in ({}, {"norm": 2}, {"norm": 2, "debiased": True}, {"strategy": "quantile"}):
            conf, pos = _top_label_reference(p, y)
            ref = _top_label_error(
                conf,
                pos,
                n_bins=10,
                strategy=options.get("strategy", "uniform"),
                norm=options.get("norm", 1),
                debiased=options.get("debiased", False),
            )
            assert classification.ece_confidence(p, y, n_bins=10, **options) == float(ref[..., 0] if ref.ndim else ref)


# ------------------------------------------------------------------------------------------
# the O(N) consistency null of the top-label ECE against the generic consistency resampling
# ------------------------------------------------------------------------------------------
class TestTopLabelNull:
    @pytest.mark.parametrize("resample", ["bootstrap", "permutation"])
    def test_same_draws_same_numbers(self, resample):
        """The fast null's replicates equal the generic route's on the same random numbers: the same indices,
        then labels drawn from the same uniforms (a hit, the arg-max class, iff u < c; a miss, another class),
        the resampled predictions binned by ece_confidence_batched."""
        from credalbook.stats.bootstrap import _top_label_null
        from credalbook.stats.null_distribution import _draw_indices

        rng = np.random.default_rng(4)
        n, k, n_bins, size = 300, 4, 10, 40
        p = rng.dirichlet(np.ones(k), size=n)
        conf = np.ascontiguousarray(p.max(axis=1))
        bins = equal_width_bin_index(conf, n_bins).astype(np.uint8)
        fast = _top_label_null(size, np.random.default_rng(11), conf, bins, n_bins, resample)

        ref_rng = np.random.default_rng(11)
        idx = _draw_indices(ref_rng, n, (size,), resample)
        hits = ref_rng.random((size, n)) < conf[idx]
        yhat = p.argmax(axis=1)[idx]
        labels = np.where(hits, yhat, (yhat + 1) % k)  # any class but the arg-max for a miss
        generic = ece_confidence_batched(p[idx], labels, n_bins)
        np.testing.assert_allclose(fast, generic, rtol=1e-12, atol=1e-15)
        assert np.ptp(fast) > 0

    def test_tiny_case(self):
        """Two instances, confidences 0.9 (bin 9) and 0.3 (bin 3): every replicate's ECE is the one of its drawn
        instances and hits, recomputed by hand from the same draws."""
        from credalbook.stats.bootstrap import _top_label_null

        conf = np.array([0.9, 0.3])
        bins = np.array([9, 3], dtype=np.uint8)
        fast = _top_label_null(200, np.random.default_rng(5), conf, bins, 10, "bootstrap")
        rng = np.random.default_rng(5)
        idx = rng.integers(0, 2, size=(200, 2))
        u = rng.random((200, 2))
        expected = []
        for r in range(200):
            gap = {}
            for i, ui in zip(idx[r], u[r]):
                gap[bins[i]] = gap.get(bins[i], 0.0) + (float(ui < conf[i]) - conf[i])
            expected.append(sum(abs(g) for g in gap.values()) / 2)
        np.testing.assert_allclose(fast, expected, rtol=1e-12, atol=1e-15)


# ------------------------------------------------------------------------------------------
# temperature scaling's precomputed NLL against the autograd objective
# ------------------------------------------------------------------------------------------
class TestTemperatureNll:
    def test_same_objective_and_temperature(self):
        """The precomputed NLL equals the objective at every log T of a grid (1e-12), with labels and with label
        histograms; the fitted T agrees with precompute=False to 1e-6."""
        import torch

        from credalbook.calibration import TemperatureScaling
        from credalbook.calibration.scaling import _temperature_nll
        from credalbook.metrics.label_hist import as_label_hist_tensor

        rng = np.random.default_rng(6)
        logits = 3 * rng.normal(size=(1500, 5))
        p = np.exp(logits / 1.7)
        p /= p.sum(1, keepdims=True)
        y = (rng.random((1500, 1)) > p.cumsum(1)).sum(1).clip(max=4)
        hist = rng.multinomial(3, p)
        for labels in (y, hist):
            z = torch.as_tensor(logits)
            h = as_label_hist_tensor(labels, 1500, 5)
            ts = TemperatureScaling()
            ts._build(5)
            nll = _temperature_nll(z, h)
            for log_t in (-3.0, -0.5, 0.0, 0.7, 4.0):
                with torch.no_grad():
                    ts.log_t.fill_(log_t)
                    ref = float(ts.objective(z, h))
                assert float(nll(ts.log_t.detach())) == pytest.approx(ref, rel=1e-12)
            fast = TemperatureScaling().fit(logits, labels)
            slow = TemperatureScaling(precompute=False).fit(logits, labels)
            assert fast.temperature == pytest.approx(slow.temperature, abs=1e-6)
            assert 1.3 < fast.temperature < 2.2

    def test_held_out_and_subclasses_use_the_objective(self):
        """With a held-out part, or for a subclass with its own prediction (post-combination), fit takes the
        objective itself: the same T as precompute=False bit for bit."""
        from credalbook.calibration import TemperatureScaling

        rng = np.random.default_rng(7)
        logits = 2 * rng.normal(size=(400, 3))
        y = np.where(rng.random(400) < 0.6, logits.argmax(1), rng.integers(0, 3, 400))
        a = TemperatureScaling().fit(logits, y, cv_fraction=0.25, seed=1)
        b = TemperatureScaling(precompute=False).fit(logits, y, cv_fraction=0.25, seed=1)
        assert a.temperature == b.temperature and a.cv_nll_ == b.cv_nll_
        with pytest.raises(ValueError, match="precompute"):
            TemperatureScaling(precompute="yes")


# ------------------------------------------------------------------------------------------
# .npy files are memory-mapped
# ------------------------------------------------------------------------------------------
def test_npy_memory_mapped(tmp_path):
    """load_array maps a .npy file read-only (no copy), and the metrics read it: the same ECE as the array."""
    from credalbook.data.prediction_files import load_array

    rng = np.random.default_rng(8)
    p = rng.dirichlet(np.ones(4), size=20_000)
    y = rng.integers(0, 4, 20_000)
    np.save(tmp_path / "p.npy", p)
    arr = load_array(tmp_path / "p.npy")
    assert not arr.flags.writeable and not arr.flags.owndata
    assert np.array_equal(arr, p)
    assert classification.ece_confidence(arr, y, n_bins=15) == classification.ece_confidence(p, y, n_bins=15)


# ------------------------------------------------------------------------------------------
# bootstrap intervals of equal-width errors from multiplicities, threaded, against gathering
# ------------------------------------------------------------------------------------------
class TestCountsBootstrap:
    """``ci=`` of the equal-width errors weights per-instance terms by the multiplicities of the resample
    indices (threads above ``BLOCKED_MIN_N``); the generic route gathers the rows at the same indices."""

    @staticmethod
    def _data(n, k, seed):
        rng = np.random.default_rng(seed)
        p = rng.dirichlet(np.ones(k) * 0.7, size=n)
        y = (rng.random((n, 1)) > np.cumsum(p**1.3 / (p**1.3).sum(1, keepdims=True), 1)).sum(1).clip(max=k - 1)
        return p, y

    def test_same_indices_as_gathering(self):
        """The multiplicities equal the bincounts of resample_statistic's indices exactly (odd N, threaded,
        several chunks), so models resampled with one seed see the same instances (paired bootstrap)."""
        from credalbook.metrics import intervals

        n = intervals.BLOCKED_MIN_N + 1
        w = np.random.default_rng(0).integers(0, 1000, (n, 3)).astype(np.float64)  # integer sums: exact
        got = [intervals.resample_counts(lambda c, j=j: c @ w[:, j], n, n_resamples=11, seed=3) for j in range(3)]
        idx = []
        intervals.resample_statistic(
            lambda a: idx.append(a.copy()) or np.zeros(len(a)), (np.arange(n),), n_resamples=11, seed=3
        )
        counts = np.stack([np.bincount(row, minlength=n) for row in np.concatenate(idx)])
        assert np.array_equal(np.stack(got, axis=1), counts @ w) and counts.sum() == 11 * n

    @pytest.mark.parametrize("metric", ["ece_confidence", "ece_classwise"])
    def test_replicates_equal_gathering(self, metric, monkeypatch):
        """Replicates of ``ci=`` equal binning the gathered rows (generic route, same seed) to 1e-12 for every
        norm, and are bit for bit the same with one thread as with several."""
        from credalbook.metrics import intervals

        p, y = self._data(intervals.BLOCKED_MIN_N + 3, 4, seed=1)
        fn = getattr(classification, metric)
        batched = getattr(classification, metric + "_batched")
        for options in ({}, {"norm": 2}, {"norm": 2, "debiased": True}):
            est = fn(p, y, n_bins=7, ci=0.9, n_resamples=10, seed=5, **options)
            generic = intervals.resample_statistic(
                lambda a, b: batched(a, b, 7, **options), (p, y), n_resamples=10, seed=5
            )
            np.testing.assert_allclose(est.replicates, generic, rtol=1e-12, atol=1e-15)
            assert np.ptp(generic) > 0
        with monkeypatch.context() as m:
            m.setattr(intervals, "_workers", lambda: 1)
            serial = fn(p, y, n_bins=7, ci=0.9, n_resamples=10, seed=5)
        assert np.array_equal(serial.replicates, fn(p, y, n_bins=7, ci=0.9, n_resamples=10, seed=5).replicates)


# ------------------------------------------------------------------------------------------
# temperature scaling's direct bounded search against the grid and Brent of the other calibrators
# ------------------------------------------------------------------------------------------
class TestTemperatureSearch:
    @pytest.mark.parametrize("scale", [0.3, 1.0, 2.5])
    def test_same_temperature_as_grid_route(self, scale):
        """Under-confident (scale 0.3: T < 1), calibrated and over-confident logits (T > 1): the bounded search
        finds the T of the grid route (precompute=False) to 1e-6, inside the interval, where the NLL's slope in
        log T vanishes (central difference)."""
        import torch

        from credalbook.calibration import TemperatureScaling
        from credalbook.calibration.scaling import _temperature_nll
        from credalbook.metrics.label_hist import as_label_hist_tensor

        rng = np.random.default_rng(9)
        z = 3 * rng.normal(size=(3000, 6))
        p = np.exp(scale * z)
        p /= p.sum(1, keepdims=True)
        y = (rng.random((3000, 1)) > p.cumsum(1)).sum(1).clip(max=5)
        fast = TemperatureScaling().fit(z, y)
        slow = TemperatureScaling(precompute=False).fit(z, y)
        assert fast.temperature == pytest.approx(slow.temperature, abs=1e-6)
        assert fast.temperature == pytest.approx(1 / scale, rel=0.15)
        assert -9 < float(fast.log_t.detach()) < 9 and fast.n_iter_ < 41  # fewer evaluations than the grid alone
        nll = _temperature_nll(torch.as_tensor(z), as_label_hist_tensor(y, 3000, 6))
        h = 1e-4
        slope = (float(nll(fast.log_t.detach() + h)) - float(nll(fast.log_t.detach() - h))) / (2 * h)
        assert abs(slope) < 1e-5

    def test_other_calibrators_keep_their_route(self):
        """Subclasses with their own prediction (post-combination) and the other calibrators minimise
        objective with their search of before (no ``auto_method`` of the fast loss)."""
        import torch

        from credalbook.calibration import PostCombinationScaling, TemperatureScaling, VectorScaling

        z = torch.as_tensor(np.random.default_rng(2).normal(size=(50, 3)))
        hist = torch.nn.functional.one_hot(torch.arange(50) % 3, 3).to(torch.float64)
        for cal in (PostCombinationScaling(), VectorScaling(), TemperatureScaling(precompute=False)):
            loss = cal._fit_loss(z, hist, "auto", None)
            assert loss == cal.objective and not hasattr(loss, "auto_method")
        assert TemperatureScaling()._fit_loss(z, hist, "auto", None).auto_method == "bounded"
        ts = TemperatureScaling()
        assert (
            ts._fit_loss(z, hist, "auto", 0.2) == ts.objective and ts._fit_loss(z, hist, "adam", None) == ts.objective
        )


def test_equal_mass_problems_in_threads(monkeypatch):
    """The equal-mass statistics of K problems, one problem per thread (large N), equal those of one thread bit
    for bit (ACE, classwise equal mass with counts), ties at the cuts included."""
    from credalbook.metrics import binning, intervals

    rng = np.random.default_rng(12)
    n = intervals.BLOCKED_MIN_N + 5
    p = rng.dirichlet(np.ones(4) * 0.5, size=n)
    p[: n // 4] = np.round(p[: n // 4], 2)  # ties at the cuts
    p /= p.sum(1, keepdims=True)
    y = rng.integers(0, 4, n)
    threaded = binning._bin_statistics(p, y, 15, "quantile", True)
    with monkeypatch.context() as m:
        m.setattr(binning, "_workers", lambda: 1)
        serial = binning._bin_statistics(p, y, 15, "quantile", True)
        ace_serial = classification.ace(p, y, n_bins=15)
    for a, b in ((threaded.gap, serial.gap), (threaded.counts, serial.counts), (threaded.positives, serial.positives)):
        assert np.array_equal(a, b)
    assert classification.ace(p, y, n_bins=15) == ace_serial > 0
    assert np.array_equal(threaded.counts.sum(-1), np.full(4, n))


def test_mean_intervals_in_threads(monkeypatch):
    """accuracy / NLL / Brier ``ci=`` at a threaded N: the replicates equal the one-thread route's bit for bit,
    and the means of the terms gathered at resample_statistic's indices (1e-12)."""
    from credalbook.metrics import accuracy, brier_score, intervals, nll

    p, y = TestCountsBootstrap._data(intervals.BLOCKED_MIN_N + 1, 3, seed=4)
    terms = {
        accuracy: (p.argmax(1) == y).astype(np.float64),
        nll: -np.log(p[np.arange(len(y)), y]),
        brier_score: ((p - np.eye(3)[y]) ** 2).sum(1),
    }
    for metric, t in terms.items():
        est = metric(p, y, ci=0.9, n_resamples=11, seed=2)
        with monkeypatch.context() as m:
            m.setattr(intervals, "_workers", lambda: 1)
            serial = metric(p, y, ci=0.9, n_resamples=11, seed=2)
        assert np.array_equal(est.replicates, serial.replicates) and est == serial
        gathered = intervals.resample_statistic(lambda a: a.mean(axis=-1), (t,), n_resamples=11, seed=2)
        np.testing.assert_allclose(est.replicates, gathered, rtol=1e-12)
        assert np.ptp(gathered) > 0


# ------------------------------------------------------------------------------------------
# the O(N) top-label null and the multi-class Hosmer-Lemeshow test at N = 10^6: buffers, draws ahead
# ------------------------------------------------------------------------------------------
def _top_label_null_reference(size, rng, conf, bins, n_bins, resample):
    """``credalbook.stats.bootstrap._top_label_null`` before its buffers and draws ahead (verbatim)."""
    from credalbook.stats import bootstrap
    from credalbook.stats.null_distribution import _draw_indices

    n = conf.shape[0]
    per = max(1, min(size, bootstrap.TOP_LABEL_BLOCK // n))
    out = np.empty(size)
    for s in range(0, size, per):
        m = min(per, size - s)
        idx = _draw_indices(rng, n, (m,), resample)
        c = conf[idx]
        w = np.subtract(rng.random((m, n)) < c, c)
        flat = (bins[idx] + (n_bins * np.arange(m, dtype=np.intp))[:, None]).ravel()
        gap = np.bincount(flat, weights=w.ravel(), minlength=m * n_bins).reshape(m, n_bins)
        out[s : s + m] = np.abs(gap).sum(axis=1) / n
    return out


@pytest.mark.parametrize("resample", ["bootstrap", "permutation"])
@pytest.mark.parametrize("block", [None, 700, 1])
def test_top_label_null_as_before(resample, block, monkeypatch):
    """The fast null's replicates equal those of its previous code bit for bit, with one block of replicates,
    blocks of two (and a last one of one), and one replicate per block (each drawn ahead in a thread); the
    generator is left where the previous code left it."""
    from credalbook.stats import bootstrap

    if block is not None:
        monkeypatch.setattr(bootstrap, "TOP_LABEL_BLOCK", block)
    rng = np.random.default_rng(3)
    p = rng.dirichlet(np.full(4, 0.5), size=300)
    conf = np.ascontiguousarray(p.max(axis=1))
    bins = equal_width_bin_index(conf, 10).astype(np.uint8)
    fast_rng, ref_rng = np.random.default_rng(8), np.random.default_rng(8)
    fast = bootstrap._top_label_null(31, fast_rng, conf, bins, 10, resample)
    ref = _top_label_null_reference(31, ref_rng, conf, bins, 10, resample)
    assert np.array_equal(fast, ref) and np.ptp(fast) > 0
    assert fast_rng.random() == ref_rng.random()


@pytest.mark.parametrize("resample", ["bootstrap", "permutation"])
def test_top_label_null_by_blocks(resample):
    """From N = 2**15 the bootstrap's indices are those of replicate_indices (grouped by blocks of instances),
    drawn from the same generator before the replicate's uniforms; the permutation keeps its draws. The null
    is recomputed by hand from that stream, and equals the generic consistency resampling on those draws."""
    from credalbook.metrics import intervals
    from credalbook.stats import bootstrap
    from credalbook.stats.null_distribution import _draw_indices

    n, k, n_bins, size = intervals.BLOCKED_MIN_N + 3, 3, 10, 3
    rng = np.random.default_rng(6)
    p = rng.dirichlet(np.ones(k), size=n)
    conf = np.ascontiguousarray(p.max(axis=1))
    bins = equal_width_bin_index(conf, n_bins).astype(np.uint8)
    fast = bootstrap._top_label_null(size, np.random.default_rng(8), conf, bins, n_bins, resample)
    ref = np.random.default_rng(8)
    per = max(1, min(size, bootstrap.TOP_LABEL_BLOCK // n))
    want = []
    for s in range(0, size, per):
        m = min(per, size - s)
        if resample == "bootstrap":
            idx = np.stack([intervals.replicate_indices(ref, n) for _ in range(m)])
        else:
            idx = _draw_indices(ref, n, (m,), resample)
        hits = ref.random((m, n)) < conf[idx]
        yhat = p.argmax(axis=1)[idx]
        want.extend(ece_confidence_batched(p[idx], np.where(hits, yhat, (yhat + 1) % k), n_bins))
    np.testing.assert_allclose(fast, want, rtol=1e-12, atol=1e-15)
    assert np.ptp(fast) > 0


def test_top_label_test_as_before(monkeypatch):
    """calibration_test(method="consistency"): statistic, null sample and p-value of the previous code of the
    fast null, same seed, default chunks (120 replicates in chunks of 50, 50 and 20)."""
    from credalbook.stats import bootstrap, calibration_test

    rng = np.random.default_rng(5)
    p = rng.dirichlet(np.ones(5), size=2000)
    y = np.where(rng.random(2000) < 0.8, p.argmax(1), 0)
    res = calibration_test(p, y, method="consistency", n_resamples=120, seed=4, direction=False)
    monkeypatch.setattr(bootstrap, "_top_label_null", _top_label_null_reference)
    ref = calibration_test(p, y, method="consistency", n_resamples=120, seed=4, direction=False)
    assert np.array_equal(res.null_distribution, ref.null_distribution) and np.ptp(ref.null_distribution) > 0
    assert (res.statistic, res.pvalue, res.threshold) == (ref.statistic, ref.pvalue, ref.threshold)


def _hl_null_reference(p, n_bins, grouping, n_resamples, seed):
    """The resampling definition of the Hosmer-Lemeshow null: labels from the uniforms ``rng.random((R, N))``,
    :math:`y^* = \\#\\{k < K - 1: u \\ge F_k\\}`, and Eq. 3 from one-hot sums in the bins of ``_binning``."""
    from credalbook.stats.hosmer_lemeshow import _binning, _hl

    u = np.random.default_rng(seed).random((n_resamples, len(p)))
    labels = (u[..., None] >= np.cumsum(p, axis=-1)[:, :-1]).sum(-1)
    binning = _binning(p, n_bins, grouping)
    return np.array([_hl(p, y, binning)[0] for y in labels])


def _rounded_probs(n, k, seed, decimals=1):
    """Probabilities with many exact ties within each class (rounded Dirichlet rows, renormalised)."""
    rng = np.random.default_rng(seed)
    p = np.round(rng.dirichlet(np.ones(k), size=n), decimals) + 0.05
    return p / p.sum(axis=1, keepdims=True)


@pytest.mark.parametrize("data", ["continuous", "ties", "signed_zeros"])
@pytest.mark.parametrize(("n", "k", "n_bins"), [(203, 4, 7), (1000, 3, 10), (57, 10, 57), (500, 30, 12)])
def test_hl_cells_as_binning(data, n, k, n_bins):
    """_cells (sorted values, edges, ranks only at tied edges) gives the cells, bin sizes and per-bin sums of
    _binning's stable argsort bit for bit, with ties at the bin edges and zeros of both signs."""
    from credalbook.stats.hosmer_lemeshow import _binning, _cell_table, _cells

    if data == "continuous":
        p = np.random.default_rng(n).dirichlet(np.ones(k), size=n)
    else:
        p = _rounded_probs(n, k, seed=n) if data == "ties" else _tied_probs(n, k, seed=n)
    for grouping in ("per_class", "single"):
        binning = _binning(p, n_bins, grouping)
        cells, sizes, p_sums = _cells(p, n_bins, grouping)
        assert np.array_equal(cells, _cell_table(p, binning).reshape(n, k))
        assert np.array_equal(sizes, binning[2])
        assert np.array_equal(p_sums, binning[3]) and np.array_equal(np.signbit(p_sums), np.signbit(binning[3]))


@pytest.mark.parametrize("grouping", ["per_class", "single"])
@pytest.mark.parametrize("data", ["continuous", "ties"])
def test_hl_test_as_definition(grouping, data, monkeypatch):
    """hosmer_lemeshow: the statistic of hosmer_lemeshow_statistic and the null sample of the resampling
    definition (same uniforms, one-hot sums in _binning's bins), bit for bit, also in small chunks of
    resamples (drawn ahead in a thread) and of instances."""
    from credalbook.stats import hosmer_lemeshow, hosmer_lemeshow_statistic
    from credalbook.stats.hosmer_lemeshow import _binning, _hl

    hl_module = sys.modules["credalbook.stats.hosmer_lemeshow"]
    p = np.random.default_rng(1).dirichlet(np.ones(4), size=240) if data == "continuous" else _rounded_probs(240, 4, 1)
    y = np.random.default_rng(2).integers(0, 4, size=240)
    ref = _hl_null_reference(p, 6, grouping, 40, seed=9)
    res = hosmer_lemeshow(p, y, n_bins=6, grouping=grouping, n_resamples=40, seed=9, chunk_size=None)
    assert res.statistic == hosmer_lemeshow_statistic(p, y, n_bins=6, grouping=grouping)
    assert res.count_statistic == float(_hl(p, y, _binning(p, 6, grouping))[1])
    assert np.array_equal(res.null_distribution, ref) and np.ptp(ref) > 0
    monkeypatch.setattr(hl_module, "_RESAMPLE_DRAWS", 240 * 3)  # 3 resamples a block, 14 blocks
    monkeypatch.setattr(hl_module, "_INSTANCE_CHUNK", 50)
    chunked = hosmer_lemeshow(p, y, n_bins=6, grouping=grouping, n_resamples=40, seed=9, chunk_size=None)
    assert np.array_equal(chunked.null_distribution, ref)


def test_drawn_ahead_same_stream():
    """Draws ahead in a thread: the values and the generator's final state of a plain loop."""
    import credalbook.stats  # noqa: F401

    drawn_ahead = sys.modules["credalbook.stats.hosmer_lemeshow"]._drawn_ahead
    rng, ref = np.random.default_rng(0), np.random.default_rng(0)
    buffers = [np.empty(1000), np.empty(1000)]
    got = [x.copy() for x in drawn_ahead(lambda j: rng.random(out=buffers[j % 2][: 100 * j + 1]), 9)]
    for j, x in enumerate(got):
        assert np.array_equal(x, ref.random(100 * j + 1))
    assert rng.random() == ref.random()
    assert list(drawn_ahead(lambda j: j, 1)) == [0] and list(drawn_ahead(lambda j: j, 0)) == []


def test_hl_resampled_labels_by_hand():
    """Labels at the edges of the inverse CDF, u = F exactly (a uniform of 0.5 against F = 0.5 is class 1), and
    Eq. 3 of the resulting labels computed by hand: class-0 bins {1, 0}, {3, 2} (stable order of 0.25, 0.5,
    0.5, 0.75) with o = 0, 1 against p = 0.375, 0.625; class-1 bins {2, 0}, {3, 1} with o = 1/2, 1/2."""
    import credalbook.stats  # noqa: F401

    hl_module = sys.modules["credalbook.stats.hosmer_lemeshow"]

    class FixedUniforms:  # stands in for the generator: hands out the given uniforms
        def __init__(self, u):
            self.u = np.asarray(u, dtype=np.float64)

        def random(self, out):
            out[...] = self.u[: out.size].reshape(out.shape)
            self.u = self.u[out.size :]
            return out

    p = np.array([[0.5, 0.5], [0.25, 0.75], [0.75, 0.25], [0.5, 0.5]])
    cells, sizes, p_sums = hl_module._cells(p, 2, "per_class")
    cdf = np.cumsum(np.ascontiguousarray(p[:, :-1].T), axis=0)
    null = hl_module._resampled_statistics(
        2, FixedUniforms([0.5, 0.25, 0.7, 0.1, 0.0, 0.0, 0.75, 0.5]), cells, cdf, p_sums, sizes
    )
    by_hand = 0.375**2 / 0.375 + 0.375**2 / 0.625 + 0.125**2 / 0.375 + 0.125**2 / 0.625  # labels 1, 1, 0, 0
    assert null[0] == pytest.approx(by_hand, rel=1e-15) and by_hand == pytest.approx(2 / 3, rel=1e-15)
    assert null[1] == hl_module.hosmer_lemeshow_statistic(p, [0, 0, 1, 1], n_bins=2)  # labels 0, 0, 1, 1
