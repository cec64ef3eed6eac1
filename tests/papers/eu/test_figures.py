"""Tests for credalbook.papers.eu.figures (Figs. 2-4 of the EU paper; matplotlib's Agg backend)."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from credalbook.papers.eu import (  # noqa: E402
    carve_balls,  # noqa: E402
    EU_CURVE_STYLE,
    EUIntervalCurves,
    plot_carved_discs,
    plot_eu_interval_figure,
    plot_eu_intervals,
    toy_eu_study,
)

GP = dict(n_inducing=8, epochs=1, batch_size=512, lr=0.05, natural_gradient=True)
DISCS = dict(shape=(2, 1), radius=1.6, p_train=(0.0, 0.6), q_test=0.15)


def _curves(n_seeds=3, n_bins=5):
    rng = np.random.default_rng(0)
    raw, cal, gain = (rng.uniform(0, 0.2, size=(n_seeds, n_bins)) for _ in range(3))
    return EUIntervalCurves("M", raw=raw, calibrated=cal, gain=gain)


class TestPlotCarvedDiscs:
    def test_main(self):
        rng = np.random.default_rng(0)
        x = rng.uniform(0, 6, size=(3000, 2))
        y = (x[:, 0] > 3).astype(int)
        centres = [[1.5, 1.5], [4.5, 4.5]]
        split = carve_balls(x, centres, radius=1.0, p_train=0.3, q_test=0.2, seed=0)
        ax = plot_carved_discs(x, y, split, centres=centres, radius=1.0, title="evaluation")
        offsets = [c.get_offsets() for c in ax.collections]
        assert [len(o) for o in offsets] == [
            np.sum(y[split.train] == 0),
            np.sum(y[split.train] == 1),
            len(split.aug_only),
            len(split.test),
        ]
        np.testing.assert_array_equal(np.sort(offsets[3][:, 0]), np.sort(x[split.test, 0]))
        assert len(ax.patches) == 2 and ax.patches[0].get_radius() == 1.0
        np.testing.assert_allclose(ax.patches[1].center, centres[1])
        assert ax.get_title() == "evaluation"
        # thinning to max_points per set
        ax2 = plot_carved_discs(x, y, split, max_points=100, ax=plt.subplots()[1])
        assert sum(len(c.get_offsets()) for c in ax2.collections[:2]) == 100 and len(ax2.patches) == 0

    def test_errors(self):
        x = np.zeros((4, 2))
        split = carve_balls(x, [[0.0, 0.0]], radius=1.0, p_train=0.5, q_test=0.25)
        with pytest.raises(ValueError, match="split must be a BallSplit"):
            plot_carved_discs(x, [0, 1, 0, 1], "split")
        with pytest.raises(ValueError, match=r"x must have shape \(N, 2\)"):
            plot_carved_discs(np.zeros((4, 3)), [0, 1, 0, 1], split)
        with pytest.raises(ValueError, match="radius must be given with centres"):
            plot_carved_discs(x, [0, 1, 0, 1], split, centres=[[0.0, 0.0]])


class TestPlotEUIntervals:
    def test_main(self):
        curves = _curves()
        ax = plot_eu_intervals(curves)
        assert len(ax.lines) == 4  # three curves and the zero line
        for line, which in zip(ax.lines, ("raw", "calibrated", "gain")):
            np.testing.assert_array_equal(line.get_xdata(), np.arange(1, 6))
            np.testing.assert_allclose(line.get_ydata(), getattr(curves, which).mean(axis=0))
            assert line.get_label() == EU_CURVE_STYLE[which][1]
        # bands: mean ± sd (ddof = 1) over the seeds
        band = ax.collections[2].get_paths()[0].vertices
        gain = curves.gain
        assert np.isclose(band[:, 1].max(), (gain.mean(0) + gain.std(0, ddof=1)).max())
        assert np.isclose(band[:, 1].min(), (gain.mean(0) - gain.std(0, ddof=1)).min())
        ax2 = plot_eu_intervals(curves, show_raw=False, ax=plt.subplots()[1])
        assert [line.get_label() for line in ax2.lines[:2]] == ["calibrated EU", "accuracy gain"]

    def test_one_seed_and_empty_interval(self):
        curves = _curves(n_seeds=1)
        curves.raw[0, 2] = np.nan
        np.testing.assert_array_equal(curves.sd("gain"), np.zeros(5))
        ax = plot_eu_intervals(curves)
        assert np.isnan(ax.lines[0].get_ydata()[2])

    def test_figure_from_study(self, tmp_cache):
        study = toy_eu_study(
            2, window=(8, 8), evaluation=DISCS, calibration=DISCS, gp=GP, n_samples=100, device="cpu", progress=False
        )
        fig = plot_eu_interval_figure(study)
        left, right = fig.axes
        assert len(left.lines) == 4 and len(right.lines) == 3  # the raw Ê_E is left out by default
        np.testing.assert_allclose(right.lines[1].get_ydata(), study.curves("E").mean("gain"))
        assert fig._suptitle.get_text() == "toy data"

    def test_errors(self):
        with pytest.raises(ValueError, match="curves must be an EUIntervalCurves"):
            plot_eu_intervals({"raw": 1})
