"""Tests for the plot functions of the Mimori et al. chapter in credalbook.papers.mimori.figures."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from credalbook.metrics import statistic_calibration  # noqa: E402
from credalbook.papers.mimori import (  # noqa: E402
    debiasing_study,
    optimal_log_alpha0_grid,
    plot_calibration_dispersion_map,
    plot_debiasing_study,
    plot_dpe_reliability,
    plot_optimal_log_alpha0,
    plot_theorem1_check,
    plot_ts_shifts,
    theorem1_check,
)


class TestPlotDebiasingStudy:
    def test_main(self):
        s = debiasing_study(n_instances=(100, 300, 1000), n_runs=3)
        fig = plot_debiasing_study(s)
        assert len(fig.axes) == 2
        # one error bar per (estimator, number of labels) in each panel
        assert len(fig.axes[0].containers) == 4
        x, y = fig.axes[0].containers[0].lines[0].get_data()
        np.testing.assert_array_equal(x, s.n_instances)
        np.testing.assert_allclose(y, s.estimates[("EL", "plug-in", 2)].mean(axis=0))
        assert fig.axes[0].get_xscale() == "log"

    def test_errors(self):
        s = debiasing_study(n_instances=(100,), n_runs=2)
        _, ax = plt.subplots()
        with pytest.raises(ValueError, match="axes must hold 2 axes"):
            plot_debiasing_study(s, axes=[ax])


class TestPlotOptimalLogAlpha0:
    def test_main(self):
        g = optimal_log_alpha0_grid(n_labels=(2, 5), reg=(0.005, 0.05, 0.5))
        fig = plot_optimal_log_alpha0(g)
        assert len(fig.axes) == 3
        assert len(fig.axes[0].lines) == 3 + 6 + 1  # every y1 for n = 2 and 5, and the zero line
        np.testing.assert_allclose(fig.axes[1].lines[0].get_ydata(), g.log_alpha0[2][1, 0])


class TestPlotTheorem1Check:
    def test_main(self):
        c = theorem1_check(n_draws=3000)
        fig = plot_theorem1_check(c)
        assert len(fig.axes) == 2
        labels = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
        assert labels == list(c.scenarios)


class TestPlotDPEReliability:
    def test_main(self):
        hist = np.array([[1, 1], [2, 0], [1, 1], [0, 2]])
        raw = statistic_calibration([0.5, 0.45, 0.1, 0.4], hist, n_bins=5)
        alpha = statistic_calibration([0.3, 0.1, 0.35, 0.05], hist, n_bins=5)
        ax = plot_dpe_reliability({"Raw": raw, "Raw+α": alpha})
        assert [line.get_linestyle() for line in ax.lines[:2]] == [":", "-"]
        assert ax.lines[0].get_color() == ax.lines[1].get_color()  # one colour per base predictor
        np.testing.assert_allclose(ax.lines[1].get_xdata(), alpha.mean_predicted[alpha.counts > 0])


class TestPlotCalibrationDispersionMap:
    def test_main(self):
        metrics = {
            "Raw": {"CL": 0.004, "DL": 0.035},
            "Raw+ts": {"CL": 0.002, "DL": 0.036},
            "MCDO": {"CL": 0.003, "DL": 0.034},
        }
        ax = plot_calibration_dispersion_map(metrics)
        assert [t.get_text() for t in ax.texts] == list(metrics)
        offsets = np.concatenate([c.get_offsets() for c in ax.collections])
        np.testing.assert_allclose(offsets, [[0.035, 0.004], [0.036, 0.002], [0.034, 0.003]])


class TestPlotTsShifts:
    def test_main(self):
        rng = np.random.default_rng(0)
        p = rng.uniform(0.5, 1, 50)
        s = dict(max_cpe=p, max_cpe_ts=p - 0.05, dpe=1 - p, dpe_ts=1.05 - p, mean_delta=0.05)
        fig = plot_ts_shifts(s)
        assert len(fig.axes) == 2 and "0.050" in fig.axes[1].get_title()
        np.testing.assert_allclose(fig.axes[0].collections[0].get_offsets(), np.c_[p, p - 0.05])
