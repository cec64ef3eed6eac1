"""Tests for credalbook.stats.comparison: several models on the same labels, paired bootstrap differences."""

import json

import numpy as np
import pytest
from scipy import special, stats

from credalbook import metrics as M
from credalbook.stats import compare_models, DEFAULT_METRICS, ModelComparison
from credalbook.stats.comparison import paired_pvalue
from credalbook.synthetic import calibrated_predictions


def _sharpen(p, power=3.0):
    q = p**power
    return q / q.sum(axis=1, keepdims=True)


def _equally_calibrated(n, rng, temperature=1.0):
    """Two exchangeable binary models: y = 1[x1 + x2 + e > 0], model j predicts P(y = 1 | x_j), its logit
    multiplied by ``temperature`` (1: calibrated; 2: both equally over-confident).

    With x1, x2, e independent N(0, 1), P(y = 1 | x_j) = Phi(x_j / sqrt(2)); (A, B, y) and (B, A, y) have the
    same distribution, so every metric has the same expectation on both models (H0 of the comparison)."""
    x1, x2, e = rng.normal(size=(3, n))
    y = (x1 + x2 + e > 0).astype(int)
    a, b = (special.expit(temperature * special.logit(stats.norm.cdf(x / np.sqrt(2)))) for x in (x1, x2))
    return np.column_stack([1 - a, a]), np.column_stack([1 - b, b]), y


@pytest.fixture(scope="module")
def data():
    p, y = calibrated_predictions(600, 4, seed=1)
    return p, _sharpen(p), y


class TestCompareModels:
    def test_main(self, data):
        """Values are the metrics on the data, intervals those of each metric's own ci= for the same seed,
        differences are value minus baseline value, replicate by replicate."""
        p, q, y = data
        c = compare_models({"cal": p, "sharp": q}, y, n_bins=10, n_resamples=300, seed=7)
        assert isinstance(c, ModelComparison)
        assert c.models == ("cal", "sharp") and c.baseline == "cal" and c.metrics == DEFAULT_METRICS
        for name in DEFAULT_METRICS:
            fn = getattr(M, name)
            opts = {"n_bins": 10} if name.startswith("ece") else {}
            for model, probs in (("cal", p), ("sharp", q)):
                own = fn(probs, y, ci=0.95, n_resamples=300, seed=7, **opts)
                got = c.estimates[name][model]
                assert (got.value, got.low, got.high) == (own.value, own.low, own.high)
                np.testing.assert_array_equal(got.replicates, own.replicates)
            d = c.differences[name]["sharp"]
            assert d.value == c.estimates[name]["sharp"].value - c.estimates[name]["cal"].value
            assert d.value == fn(q, y, **opts) - fn(p, y, **opts)
            reps = c.estimates[name]["sharp"].replicates - c.estimates[name]["cal"].replicates
            np.testing.assert_array_equal(d.replicates, reps)
            assert (d.low, d.high) == tuple(np.quantile(reps, [(1 - 0.95) / 2, (1 + 0.95) / 2]))
            assert c.pvalues[name]["sharp"] == paired_pvalue(reps)
            assert "cal" not in c.differences[name] and "cal" not in c.pvalues[name]

    def test_paired_resamples(self, data):
        """Replicate r of every model is the metric on the same resampled instances: recomputed by hand from the
        documented index stream (rng.integers(0, N, N) per replicate), for a fast path and the generic one."""
        p, q, y = data
        n = len(y)
        c = compare_models({"cal": p, "sharp": q}, y, metrics=["ece_confidence", "ace"], n_resamples=20, seed=3)
        rng = np.random.default_rng(3)
        for r in range(5):
            idx = rng.integers(0, n, size=n)
            for metric, opts in (("ece_confidence", {"n_bins": 15}), ("ace", {"n_bins": 15})):
                fn = getattr(M, metric)
                want = fn(q[idx], y[idx], **opts) - fn(p[idx], y[idx], **opts)
                assert c.differences[metric]["sharp"].replicates[r] == pytest.approx(want, abs=1e-12)

    def test_seed(self, data):
        p, q, y = data
        kw = dict(metrics=["ece_confidence", "brier_score"], n_resamples=100)
        a = compare_models({"cal": p, "sharp": q}, y, seed=11, **kw)
        b = compare_models({"cal": p, "sharp": q}, y, seed=11, **kw)
        other = compare_models({"cal": p, "sharp": q}, y, seed=12, **kw)
        assert a.to_rows() == b.to_rows()
        assert a.to_rows() != other.to_rows()
        g1 = compare_models({"cal": p, "sharp": q}, y, seed=np.random.default_rng(5), **kw)
        g2 = compare_models({"cal": p, "sharp": q}, y, seed=np.random.default_rng(5), **kw)
        assert g1.to_rows() == g2.to_rows()

    def test_identical_models(self, data):
        p, _, y = data
        c = compare_models({"a": p, "b": p.copy()}, y, metrics=[*DEFAULT_METRICS, "ace"], n_resamples=200, seed=0)
        for metric in c.metrics:
            d = c.differences[metric]["b"]
            assert (d.value, d.low, d.high) == (0.0, 0.0, 0.0)
            assert c.pvalues[metric]["b"] == 1.0

    def test_power(self):
        """A clearly over-confident model against a calibrated one on N = 2000: p < 0.01 for every calibration
        error and proper score (the smallest p-value with R = 1000 is 2/1001)."""
        p, y = calibrated_predictions(2000, 3, seed=4)
        c = compare_models({"calibrated": p, "over": _sharpen(p, 2.0)}, y, n_resamples=1000, seed=0)
        for metric in ("ece_confidence", "ece_classwise", "brier_score", "nll"):
            assert c.pvalues[metric]["over"] < 0.01, metric
            assert c.differences[metric]["over"].low > 0, metric
        assert c.pvalues["accuracy"]["over"] == 1.0  # sharpening keeps every arg-max

    def test_baseline(self, data):
        p, q, y = data
        c = compare_models({"cal": p, "sharp": q}, y, baseline="sharp", metrics="brier_score", n_resamples=50, seed=0)
        d = c.differences["brier_score"]["cal"]
        assert c.baseline == "sharp" and d.value == M.brier_score(p, y) - M.brier_score(q, y)
        rows = c.table
        assert [r["model"] for r in rows] == ["sharp", "cal"] and rows[0]["pvalue"] is None

    def test_mixed_logits(self, data):
        """A model given as logits and one as probabilities: the numbers of both given as probabilities."""
        p, q, y = data
        logits = np.log(q) + 2.0  # any shift: the softmax gives q back
        kw = dict(metrics=["ece_confidence", "nll"], n_resamples=100, seed=2)
        mixed = compare_models({"cal": p, "sharp": logits}, y, from_logits={"sharp"}, **kw)
        mapping = compare_models({"cal": p, "sharp": logits}, y, from_logits={"sharp": True, "cal": False}, **kw)
        probs = compare_models({"cal": p, "sharp": special.softmax(logits, axis=1)}, y, **kw)
        assert mixed.to_rows() == mapping.to_rows()
        for a, b in zip(mixed.to_rows(), probs.to_rows()):
            assert a.keys() == b.keys()
            for k in a:
                assert a[k] == (pytest.approx(b[k], abs=1e-12) if isinstance(a[k], float) else b[k])
        both = compare_models({"a": np.log(p), "b": logits}, y, from_logits=True, **kw)
        assert both.estimates["nll"]["b"].value == pytest.approx(M.nll(q, y), abs=1e-12)

    def test_table(self, data):
        p, q, y = data
        c = compare_models({"cal": p, "<sharp>": q}, y, metrics=["ece_confidence", "accuracy"], n_resamples=50, seed=0)
        rows = c.to_rows()
        assert len(rows) == 4 and set(rows[0]) == set(
            ["model", "metric", "value", "low", "high", "difference", "diff_low", "diff_high", "pvalue"]
        )
        assert json.loads(json.dumps(c.to_dict()))["rows"] == rows
        text = str(c)
        assert "cal (baseline)" in text and "<sharp>" in text and f"{rows[1]['difference']:+.4f}" in text
        assert text == c.format()
        page = c._repr_html_()
        assert "&lt;sharp&gt;" in page and "<sharp>" not in page and page.count("<tr>") == 5

    def test_pvalue(self):
        assert paired_pvalue(np.zeros(99)) == 1.0
        assert paired_pvalue(np.ones(99)) == 2 / 100
        assert paired_pvalue(-np.ones(99)) == 2 / 100
        d = np.r_[-np.ones(10), np.ones(89)]
        assert paired_pvalue(d) == 2 * 11 / 100
        # inversion of the percentile interval: p < 1 - ci exactly when 0 is outside the interval's order statistics
        rng = np.random.default_rng(0)
        for shift in np.linspace(0, 3, 13):
            d = rng.normal(shift, 1.0, size=999)
            below = np.sort(d)[24]  # the 25th of 999: (1 + 24) / 1000 = 0.025
            assert (paired_pvalue(d) <= 0.05) == (below > 0 or np.sort(d)[-25] < 0)

    def test_type_one_error_fast(self):
        """Two equally over-confident models: p-values about uniform, rejections at 0.05 not above the band
        (40 data sets; the slow test checks the band of 200)."""
        rng = np.random.default_rng(0)
        pvals = []
        for _ in range(40):
            a, b, y = _equally_calibrated(300, rng, temperature=2.0)
            c = compare_models({"a": a, "b": b}, y, metrics="ece_confidence", n_resamples=100, seed=rng)
            pvals.append(c.pvalues["ece_confidence"]["b"])
        pvals = np.array(pvals)
        assert 0.3 < pvals.mean() < 0.7
        assert np.count_nonzero(pvals <= 0.05) <= stats.binom.ppf(0.999, 40, 0.05)

    @pytest.mark.slow
    @pytest.mark.parametrize("temperature", [1.0, 2.0])
    def test_type_one_error(self, temperature):
        """Rejections at alpha = 0.05 over 200 data sets within the 99.9 % binomial band around 0.05: for every
        metric when both models are equally over-confident; for the Brier score and the NLL when both are
        calibrated, where the binned errors are conservative (never above the band; module docstring)."""
        rng = np.random.default_rng(1)
        metrics = ["ece_confidence", "ece_classwise", "brier_score", "nll"]
        rejected = dict.fromkeys(metrics, 0)
        for _ in range(200):
            a, b, y = _equally_calibrated(500, rng, temperature)
            c = compare_models({"a": a, "b": b}, y, metrics=metrics, n_resamples=200, seed=rng)
            for m in metrics:
                rejected[m] += int(c.pvalues[m]["b"] <= 0.05)
        low, high = stats.binom.interval(0.999, 200, 0.05)
        for m, r in rejected.items():
            conservative = temperature == 1.0 and m.startswith("ece")
            assert (0 if conservative else low) <= r <= high, rejected

    def test_errors(self, data):
        p, q, y = data
        with pytest.raises(ValueError, match="models"):
            compare_models({}, y)
        with pytest.raises(TypeError, match="models"):
            compare_models([p, q], y)
        with pytest.raises(TypeError, match="models"):
            compare_models({1: p}, y)
        with pytest.raises(ValueError, match=r"models\['short'\]"):
            compare_models({"cal": p, "short": q[:-1]}, y)
        with pytest.raises(ValueError, match=r"models\['three'\]"):
            compare_models({"cal": p, "three": p[:, :3] / p[:, :3].sum(1, keepdims=True)}, y)
        with pytest.raises(ValueError, match=r"models\['bad'\]"):
            compare_models({"cal": p, "bad": q * 2}, y)
        with pytest.raises(ValueError, match="labels"):
            compare_models({"cal": p}, y[:-1])
        with pytest.raises(ValueError, match="baseline"):
            compare_models({"cal": p, "sharp": q}, y, baseline="other")
        with pytest.raises(ValueError, match="metrics.*'ece_conf'"):
            compare_models({"cal": p}, y, metrics=["ece_conf"])
        with pytest.raises(ValueError, match="metrics"):
            compare_models({"cal": p}, y, metrics=["nll", "nll"])
        with pytest.raises(ValueError, match="metrics"):
            compare_models({"cal": p}, y, metrics=["reliability_curve"])  # not a number
        with pytest.raises(ValueError, match="from_logits"):
            compare_models({"cal": p}, y, from_logits={"other"})
        with pytest.raises(ValueError, match="from_logits"):
            compare_models({"cal": p}, y, from_logits={"cal": "yes"})
        with pytest.raises(ValueError, match="n_resamples"):
            compare_models({"cal": p}, y, n_resamples=1)
        with pytest.raises(ValueError, match="ci"):
            compare_models({"cal": p}, y, ci=1.5)
        with pytest.raises(ValueError, match="n_bins"):
            compare_models({"cal": p}, y, n_bins=0)


class TestBinaryScores:
    def test_main(self):
        """(N,) scores P(y = 1), with bool labels, give the numbers of the (N, 2) rows [1 - p, p]."""
        rng = np.random.default_rng(0)
        s = rng.random(400)
        y = rng.random(400) < s
        t = np.clip(s + rng.normal(0, 0.1, 400), 0, 1)
        kw = dict(n_resamples=100, seed=0)
        scores = compare_models({"a": s, "b": t}, y, **kw)
        rows = compare_models({"a": np.column_stack([1 - s, s]), "b": np.column_stack([1 - t, t])}, y.astype(int), **kw)
        assert scores.to_rows() == rows.to_rows()
        z = special.logit(np.clip(t, 1e-9, 1 - 1e-9))
        mixed = compare_models({"a": s, "b": z}, y, from_logits={"b"}, metrics="nll", **kw)
        want = M.nll(np.clip(t, 1e-9, 1 - 1e-9), y)
        assert mixed.estimates["nll"]["b"].value == pytest.approx(want, rel=1e-9)

    def test_errors(self):
        s = np.linspace(0, 1, 10)
        with pytest.raises(ValueError, match="labels"):
            compare_models({"a": s}, np.full(10, 2))
        with pytest.raises(ValueError, match=r"models\['b'\]"):
            compare_models({"a": s, "b": np.full((10, 3), 1 / 3)}, np.zeros(10, dtype=int))
