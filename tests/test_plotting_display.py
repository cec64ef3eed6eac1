"""Tests for credalbook.plotting.ReliabilityDisplay and plot_test_result (matplotlib's Agg backend)."""

from dataclasses import dataclass

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from matplotlib.collections import PolyCollection  # noqa: E402
from scipy import stats  # noqa: E402

from credalbook.metrics import consistency_bands, reliability_curve  # noqa: E402
from credalbook.plotting import plot_test_result, ReliabilityDisplay  # noqa: E402
from credalbook.synthetic import calibrated_predictions  # noqa: E402


@dataclass(frozen=True)
class StandIn:
    """The fields of credalbook.stats.TestResult that plot_test_result reads."""

    statistic: float
    pvalue: float
    alpha: float
    method: str
    null_distribution: np.ndarray | None = None
    null_model: object = None
    threshold: float | None = None


def _band(ax):
    polys = [c for c in ax.collections if isinstance(c, PolyCollection)]
    assert len(polys) == 1
    return polys[0]


def _legend(ax):
    return [t.get_text() for t in ax.get_legend().get_texts()]


class TestReliabilityDisplay:
    def test_main(self):
        p, y = calibrated_predictions(400, 3, seed=0)
        d = ReliabilityDisplay.from_predictions(p, y, n_bins=10, n_resamples=200, seed=5, name="net")
        curve = reliability_curve(p, y, n_bins=10)
        for field in ("bin_edges", "counts", "mean_predicted", "observed"):
            np.testing.assert_array_equal(getattr(d.curve, field), getattr(curve, field))
        bands = consistency_bands(p, n_bins=10, n_resamples=200, seed=5)
        np.testing.assert_array_equal(d.band.low, bands.low)
        np.testing.assert_array_equal(d.band.high, bands.high)
        ax = d.ax_
        assert isinstance(ax, matplotlib.axes.Axes) and d.figure_ is ax.figure
        nonempty = curve.counts > 0
        # bars of the observed frequencies, then the counts histogram (one bar per bin)
        assert len(ax.containers) == 2
        np.testing.assert_allclose([b.get_height() for b in ax.containers[0]], curve.observed[nonempty])
        np.testing.assert_allclose([b.get_height() for b in ax.containers[1]], 0.25 * curve.counts / curve.counts.max())
        # the band: its outline spans low..high at the non-empty bins' mean predictions
        verts = _band(ax).get_paths()[0].vertices
        ok = np.isfinite(bands.low)
        assert verts[:, 0].min() == pytest.approx(bands.mean_predicted[ok].min())
        assert verts[:, 0].max() == pytest.approx(bands.mean_predicted[ok].max())
        assert verts[:, 1].min() == pytest.approx(bands.low[ok].min())
        assert verts[:, 1].max() == pytest.approx(bands.high[ok].max())
        assert _legend(ax) == ["95% consistency band", f"net (ECE = {curve.calibration_error:.3f})"]
        np.testing.assert_array_equal(ax.lines[0].get_xdata(), [0, 1])  # the diagonal

    def test_options(self):
        p, y = calibrated_predictions(300, 3, seed=1)
        d = ReliabilityDisplay.from_predictions(p, y, strategy="quantile", n_bins=5, ci=None, show_counts=False)
        assert d.band is None
        assert not [c for c in d.ax_.collections if isinstance(c, PolyCollection)]
        assert len(d.ax_.containers) == 1 and d.curve.counts.tolist() == [60] * 5
        d = ReliabilityDisplay.from_predictions(
            p, y, kind="classwise", class_index=2, n_bins=5, ci=0.8, n_resamples=100, seed=0
        )
        assert d.curve.class_index == 2 and d.band.class_index == 2 and d.band.ci == 0.8
        assert d.ax_.get_title() == "class 2" and "80% consistency band" in _legend(d.ax_)
        # an existing display drawn again on given axes
        fig, ax = plt.subplots()
        assert d.plot(ax=ax, name="again") is d and d.ax_ is ax and d.figure_ is fig
        assert any(t.startswith("again (ECE") for t in _legend(ax))

    def test_classwise_panels(self):
        p, y = calibrated_predictions(300, 4, seed=2)
        d = ReliabilityDisplay.from_predictions(p, y, kind="classwise", n_bins=6, n_resamples=100, seed=0)
        assert len(d.curve) == 4 and len(d.band) == 4 and d.ax_.shape == (4,)
        assert [a.get_title() for a in d.ax_] == ["class 0", "class 1", "class 2", "class 3"]
        for k, (a, c) in enumerate(zip(d.ax_, d.curve)):
            ref = reliability_curve(p, y, kind="classwise", class_index=k, n_bins=6)
            np.testing.assert_array_equal(c.observed, ref.observed)
            _band(a)
        fig, axes = plt.subplots(2, 2)
        d2 = ReliabilityDisplay.from_predictions(p, y, kind="classwise", n_bins=6, n_resamples=100, seed=0, ax=axes)
        assert list(d2.ax_) == list(axes.ravel())
        np.testing.assert_array_equal(d2.band[3].low, d.band[3].low)  # the same seed, the same bands

    def test_errors(self):
        p, y = calibrated_predictions(50, 3, seed=0)
        with pytest.raises(ValueError, match="kind must be one of"):
            ReliabilityDisplay.from_predictions(p, y, kind="top")
        with pytest.raises(ValueError, match="strategy must be one of"):
            ReliabilityDisplay.from_predictions(p, y, strategy="adaptive")
        with pytest.raises(ValueError, match=r"ci must lie in \(0, 1\)"):
            ReliabilityDisplay.from_predictions(p, y, ci=95)
        with pytest.raises(ValueError, match="show_counts must be True or False"):
            ReliabilityDisplay.from_predictions(p, y, show_counts="yes")
        with pytest.raises(ValueError, match="ax must hold one Axes per class"):
            ReliabilityDisplay.from_predictions(p, y, kind="classwise", ax=plt.subplots(1, 2)[1], ci=None)
        p30 = np.full((5, 30), 1 / 30)
        with pytest.raises(ValueError, match="at most 25"):
            ReliabilityDisplay.from_predictions(p30, np.zeros(5, dtype=int), kind="classwise")
        with pytest.raises(ValueError, match="curve must be a ReliabilityCurve"):
            ReliabilityDisplay([])
        with pytest.raises(ValueError, match="band must be a ConsistencyBands per curve"):
            ReliabilityDisplay(reliability_curve(p, y), band=[1, 2])


class TestPlotTestResult:
    def test_null_distribution(self):
        null = np.random.default_rng(0).gamma(2.0, 0.01, size=500)
        r = StandIn(
            statistic=0.05, pvalue=0.032, alpha=0.05, method="consistency", null_distribution=null, threshold=0.045
        )
        ax = plot_test_result(r)
        heights = np.array([b.get_height() for b in ax.patches])
        widths = np.array([b.get_width() for b in ax.patches])
        assert (heights * widths).sum() == pytest.approx(1.0)  # a density histogram of the 500 values
        assert ax.patches[0].get_x() == pytest.approx(null.min())
        stat_line, thr_line = ax.lines
        np.testing.assert_allclose(stat_line.get_xdata(), [0.05, 0.05])
        np.testing.assert_allclose(thr_line.get_xdata(), [0.045, 0.045])
        assert ax.get_title() == "consistency: p = 0.032 (α = 0.05)"
        assert _legend(ax) == [
            "null distribution (500 resamples)",
            "observed statistic = 0.05",
            "critical value (α = 0.05)",
        ]

    def test_null_model(self):
        fig, given = plt.subplots()
        r = StandIn(statistic=2.5, pvalue=0.0062, alpha=0.01, method="skce_linear", null_model=stats.norm())
        ax = plot_test_result(r, ax=given)
        assert ax is given and not ax.patches
        curve = ax.lines[0]
        np.testing.assert_allclose(curve.get_ydata(), stats.norm.pdf(curve.get_xdata()))
        assert curve.get_xdata().min() < -3 and curve.get_xdata().max() > 3
        np.testing.assert_allclose(ax.lines[1].get_xdata(), [2.5, 2.5])
        assert len(ax.lines) == 2  # no threshold given
        # a statistic far in the tail is still in view; a discrete null draws its mass function
        ax = plot_test_result(StandIn(9.0, 1e-9, 0.05, "z", null_model=stats.norm()))
        assert ax.lines[0].get_xdata().max() >= 9.0
        ax = plot_test_result(StandIn(7.0, 0.2, 0.05, "hl", null_model=stats.binom(10, 0.5)))
        np.testing.assert_allclose(
            np.sort([s[1, 1] for s in ax.collections[0].get_segments()]),
            np.sort(stats.binom(10, 0.5).pmf(np.arange(0, 11))),
            atol=1e-12,
        )

    def test_both_nulls(self):
        null = np.random.default_rng(1).normal(size=400)
        ax = plot_test_result(
            StandIn(1.0, 0.16, 0.05, "skce_quadratic", null_distribution=null, null_model=stats.norm())
        )
        assert ax.patches and len(ax.lines) == 2  # histogram, the model's density, the statistic
        np.testing.assert_allclose(ax.lines[0].get_ydata(), stats.norm.pdf(ax.lines[0].get_xdata()))

    def test_errors(self):
        with pytest.raises(TypeError, match=r"lacks \['null_distribution', 'null_model', 'threshold'\]"):
            plot_test_result(type("R", (), {"statistic": 1.0, "pvalue": 0.5, "alpha": 0.05, "method": "m"})())


class TestRenamedOptions:
    """bands= (a level or the band objects), bins= and level= of 0.5 are ci=, band= and n_bins= since 0.6."""

    def test_display(self):
        p, y = calibrated_predictions(300, 3, seed=0)
        with pytest.warns(FutureWarning, match="'bands' was renamed to 'ci'"):
            old = ReliabilityDisplay.from_predictions(p, y, n_bins=5, bands=0.8, n_resamples=50, seed=1)
        new = ReliabilityDisplay.from_predictions(p, y, n_bins=5, ci=0.8, n_resamples=50, seed=1)
        np.testing.assert_array_equal(old.band.low, new.band.low)
        with pytest.warns(FutureWarning, match="ReliabilityDisplay.bands was renamed"):
            assert new.bands is new.band
        with pytest.warns(FutureWarning, match="kind='top_label' was renamed"):
            assert ReliabilityDisplay.from_predictions(p, y, kind="top_label", ci=None).curve.kind == "confidence"
        with pytest.warns(FutureWarning, match="'bands' was renamed to 'band'"):
            assert ReliabilityDisplay(new.curve, bands=new.band).band is new.band
        plt.close("all")

    def test_histogram_bins(self):
        r = StandIn(statistic=0.05, pvalue=0.03, alpha=0.05, method="m", null_distribution=np.arange(20.0))
        with pytest.warns(FutureWarning, match="'bins' was renamed to 'n_bins'"):
            old = plot_test_result(r, bins=4)
        assert len(old.patches) == len(plot_test_result(r, n_bins=4).patches) == 4
        plt.close("all")
