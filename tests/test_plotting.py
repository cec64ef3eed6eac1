"""Tests for credalbook.plotting (matplotlib's Agg backend, no display)."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from scipy import stats  # noqa: E402

from credalbook.metrics import reliability_curve  # noqa: E402
from credalbook.plotting import PALETTE, plot_rejection_rates, plot_reliability_diagram, set_theme  # noqa: E402
from credalbook.synthetic import calibrated_predictions  # noqa: E402


def _curve(kind="confidence", class_index=None, n_bins=10):
    p, y = calibrated_predictions(300, 3, seed=0)
    return reliability_curve(p, y, n_bins=n_bins, kind=kind, class_index=class_index)


def _observed_bars(ax):
    """Heights of the first bar container: the observed frequency of each non-empty bin."""
    return np.array([patch.get_height() for patch in ax.containers[0]])


class TestPlotReliabilityDiagram:
    def test_main(self):
        curve = _curve()
        nonempty = curve.counts > 0
        assert 0 < nonempty.sum() < len(curve.counts)  # confidences of K=3 start at 1/3: bins 0-2 empty
        ax = plot_reliability_diagram(curve, show_counts=False)
        assert isinstance(ax, matplotlib.axes.Axes)
        assert len(ax.patches) == nonempty.sum()
        np.testing.assert_allclose(_observed_bars(ax), curve.observed[nonempty])
        centers = (curve.bin_edges[:-1] + curve.bin_edges[1:]) / 2
        np.testing.assert_allclose([p.get_x() + p.get_width() / 2 for p in ax.containers[0]], centers[nonempty])
        assert tuple(ax.get_xlim()) == (0.0, 1.0) and tuple(ax.get_ylim()) == (0.0, 1.0)
        assert ax.get_xlabel().startswith("confidence") and ax.get_ylabel() == "accuracy"
        labels = [t.get_text() for t in ax.get_legend().get_texts()]
        assert labels == [f"ECE = {curve.calibration_error:.3f}"]
        # one red gap segment per non-empty bin, and the diagonal
        assert len(ax.collections[0].get_segments()) == nonempty.sum()
        diag = ax.lines[0]
        np.testing.assert_array_equal(diag.get_xdata(), [0, 1])
        np.testing.assert_array_equal(diag.get_ydata(), [0, 1])

    def test_counts_histogram(self):
        curve = _curve()
        nonempty = curve.counts > 0
        ax = plot_reliability_diagram(curve)
        assert len(ax.containers) == 2
        assert len(ax.patches) == nonempty.sum() + len(curve.counts)
        np.testing.assert_allclose(_observed_bars(ax), curve.observed[nonempty])
        hist = np.array([p.get_height() for p in ax.containers[1]])
        np.testing.assert_allclose(hist, 0.25 * curve.counts / curve.counts.max())

    def test_given_axes_and_label(self):
        fig, (ax1, ax2) = plt.subplots(1, 2)
        out = plot_reliability_diagram(_curve(kind="classwise"), ax=ax2, label="pooled", color="C1")
        assert out is ax2
        assert len(ax1.patches) == 0
        assert [t.get_text() for t in ax2.get_legend().get_texts()] == ["pooled"]
        assert "all classes" in ax2.get_xlabel() and ax2.get_ylabel() == "observed frequency"
        n_before = len(plt.get_fignums())
        ax = plot_reliability_diagram(_curve(kind="classwise", class_index=2), ax=ax1)
        assert ax is ax1 and "class 2" in ax1.get_xlabel()
        assert len(plt.get_fignums()) == n_before  # no new figure when ax is given

    def test_errors(self):
        curve = _curve()
        for bad in (None, {"counts": curve.counts}, (curve.mean_predicted, curve.observed)):
            with pytest.raises(ValueError, match="curve must be a ReliabilityCurve"):
                plot_reliability_diagram(bad)


class TestPlotRejectionRates:
    def test_main(self):
        rates = {"resampling": 0.045, "chi2": 0.3, "chi2_external": 0.02}
        ax = plot_rejection_rates(rates, alpha=0.05, n_datasets=200)
        assert isinstance(ax, matplotlib.axes.Axes)
        bars = ax.containers[0]
        np.testing.assert_allclose([p.get_height() for p in bars], list(rates.values()))
        assert [t.get_text() for t in ax.get_xticklabels()] == list(rates)
        np.testing.assert_allclose(ax.lines[0].get_ydata(), [0.05, 0.05])
        # the band: 2.5 % and 97.5 % binomial quantiles of the rejection count, as rates
        band = [p for p in ax.patches if p not in list(bars)]
        assert len(band) == 1
        lo, hi = stats.binom.ppf([0.025, 0.975], 200, 0.05) / 200
        y0, y1 = band[0].get_y(), band[0].get_y() + band[0].get_height()
        assert (y0, y1) == pytest.approx((lo, hi))
        assert lo < 0.05 < hi
        legend = [t.get_text() for t in ax.get_legend().get_texts()]
        assert legend[0] == "95% binomial band, n = 200"

    def test_band_level_and_axes(self):
        fig, ax = plt.subplots()
        out = plot_rejection_rates({"a": 0.1}, alpha=0.1, n_datasets=500, ci=0.99, ax=ax)
        assert out is ax
        band = [p for p in ax.patches if p not in list(ax.containers[0])][0]
        lo, hi = stats.binom.ppf([0.005, 0.995], 500, 0.1) / 500
        assert (band.get_y(), band.get_y() + band.get_height()) == pytest.approx((lo, hi))

    def test_errors(self):
        with pytest.raises(ValueError, match="rates must contain at least one entry"):
            plot_rejection_rates({}, alpha=0.05, n_datasets=100)


class TestSetTheme:
    def test_main(self):
        with matplotlib.rc_context():
            set_theme(font_scale=1.2)
            assert matplotlib.rcParams["figure.dpi"] == 110
            assert matplotlib.rcParams["savefig.bbox"] == "tight"
            assert matplotlib.rcParams["axes.titleweight"] == "bold"
        assert PALETTE == "colorblind"

    def test_errors(self):
        with matplotlib.rc_context():
            with pytest.raises(ValueError):
                set_theme(context="not-a-context")


class TestSimplexPlots:
    def test_simplex_coordinates(self):
        from credalbook.plotting import simplex_coordinates

        np.testing.assert_allclose(simplex_coordinates(np.eye(3)), [[0, 0], [1, 0], [0.5, np.sqrt(3) / 2]])
        np.testing.assert_allclose(simplex_coordinates([1 / 3] * 3), [0.5, np.sqrt(3) / 6])
        with pytest.raises(ValueError, match="K = 3"):
            simplex_coordinates([0.5, 0.5])

    def test_credal_scenario_and_error_rates(self, tmp_cache):
        import matplotlib.pyplot as plt

        from credalbook.papers.mortier import plot_error_rate_figure, set_test_error_rates
        from credalbook.plotting import plot_credal_scenario
        from credalbook.synthetic import credal_scenario

        for name in ("S1", "S3"):
            sc = credal_scenario(name, n_instances=2, n_members=6, n_classes=3, u=0.3, seed=0)
            ax = plot_credal_scenario(sc)
            assert ax.get_title() == name and len(ax.collections) >= 2
            plt.close("all")
        studies = {
            s: set_test_error_rates(
                s,
                n_datasets=3,
                n_instances=20,
                n_members=2,
                n_classes=3,
                u=0.5,
                n_resamples=10,
                measures=("ece_conf",),
                n_jobs=1,
                progress=False,
            )
            for s in ("S1", "S2")
        }
        fig = plot_error_rate_figure(studies, title="demo")
        assert len(fig.axes) == 2 and fig.axes[1].get_ylabel() == "Type II error"
        assert fig.axes[0].get_ylabel() == "Type I error"
        plt.close(fig)
        with pytest.raises(ValueError, match="studies"):
            plot_error_rate_figure({})


class TestJuergensPlots:
    def test_instance_error_rates(self, tmp_cache):
        import matplotlib

        matplotlib.use("Agg")
        from credalbook.papers.juergens import instance_test_error_rates, plot_instance_error_rates

        opts = dict(
            n_datasets=2,
            n_instances=200,
            estimators=(("kl", {}),),
            n_resamples=10,
            learner_options={"max_epochs": 2},
            progress=False,
        )
        studies = {h: instance_test_error_rates("binary", h, **opts) for h in ("H0-const", "H1-3")}
        fig = plot_instance_error_rates(studies, title="t")
        assert len(fig.axes) == 2
        assert [len(ax.lines) for ax in fig.axes] == [3, 2]  # two tests (+ diagonal on the H0 panel)
        with pytest.raises(ValueError, match="studies"):
            plot_instance_error_rates({})

    def test_landscape_and_nulls(self):
        import matplotlib

        matplotlib.use("Agg")
        from credalbook.papers.juergens import estimator_landscape, plot_landscape
        from credalbook.plotting import plot_null_distributions

        ax = plot_landscape(estimator_landscape("lp", n_instances=50, n_repeats=1, resolution=5))
        assert len(ax.lines) >= 2
        fig = plot_null_distributions({"a": np.random.default_rng(0).normal(size=50), "b": np.ones(10)})
        assert len(fig.axes) == 2
        with pytest.raises(ValueError, match="samples"):
            plot_null_distributions({})


class TestRenamedOptions:
    def test_rejection_rates_band(self):
        with pytest.warns(FutureWarning, match="'band' was renamed to 'ci'"):
            old = plot_rejection_rates({"a": 0.1}, alpha=0.1, n_datasets=500, band=0.99)
        new = plot_rejection_rates({"a": 0.1}, alpha=0.1, n_datasets=500, ci=0.99)
        assert [t.get_text() for t in old.get_legend().get_texts()] == [
            t.get_text() for t in new.get_legend().get_texts()
        ]
        plt.close("all")

    def test_test_errors_level(self):
        from types import SimpleNamespace

        from credalbook.plotting import plot_test_errors

        seen = []
        run = SimpleNamespace(
            alphas=np.array([0.05, 0.1]),
            errors=np.array([0.04, 0.1]),
            kind="type_I",
            n_datasets=100,
            band=lambda ci: seen.append(ci) or np.array([[0.0, 0.1], [0.0, 0.2]]),
        )
        with pytest.warns(FutureWarning, match="'level' was renamed to 'ci'"):
            plot_test_errors(run, level=0.9)
        plot_test_errors(run, ci=0.9)
        assert seen == [0.9, 0.9]
        plt.close("all")

    def test_null_distributions_bins(self):
        from credalbook.plotting import plot_null_distributions

        samples = {"a": np.random.default_rng(0).normal(size=50)}
        with pytest.warns(FutureWarning, match="'bins' was renamed to 'n_bins'"):
            old = plot_null_distributions(samples, bins=7)
        new = plot_null_distributions(samples, n_bins=7)
        assert len(old.axes[0].patches) == len(new.axes[0].patches) == 7
        plt.close("all")
