"""Tests for the Wu & Gales plot functions of credalbook.papers.wu_gales.figures (Figs. 1-3 and App. Fig. 4)."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from scipy.special import softmax  # noqa: E402

from credalbook.metrics import reliability_curve  # noqa: E402
from credalbook.papers.wu_gales import (
    appendix_toys,
    CalibrationStudy,
    plot_combination_reliability,
    plot_epsilon_curves,
    plot_region_study,
    plot_temperature_study,
    temperature_study,
    TopologyCombination,
    TopologyEnsemble,  # noqa: E402
)


def _study(n_members=3):
    rng = np.random.default_rng(0)
    z = 3 * rng.normal(size=(400, n_members, 4))
    y = np.array([rng.choice(4, p=p) for p in softmax(z.mean(1) / 3, axis=1)])
    ens = TopologyEnsemble(z, y, z, y, "DSN121", tuple(range(n_members)), ([],) * n_members, np.zeros(n_members), 0, {})
    return temperature_study(ens, temperatures=[0.5, 1.0, 2.0, 4.0])


class TestPlotTemperatureStudy:
    def test_main(self):
        st = _study()
        fig = plot_temperature_study(st)
        ax_acc, ax_ece, ax_rel = fig.axes
        # accuracy: 3 members + the ensemble; ECE: 3 members + ensemble + post (+ optimal-t verticals)
        assert len(ax_acc.lines) == 4
        ydata = [line.get_ydata() for line in ax_ece.lines]
        assert any(np.allclose(d, st.sweep.ensemble_ece) for d in ydata if len(d) == 4)
        assert any(np.allclose(d, st.sweep.post_ece) for d in ydata if len(d) == 4)
        # reliability: 3 members, 2 ensembles and the diagonal
        assert len(ax_rel.lines) == 6 and ax_rel.get_xlim() == (0.0, 1.0)
        assert ax_acc.get_title() == "DSN121" and ax_acc.get_xscale() == "log"

    def test_given_axes(self):
        fig, axes = plt.subplots(3, 2)
        out = plot_temperature_study(_study(), axes=axes[:, 1], legend=False)
        assert out is fig and axes[0, 1].get_title() == "DSN121" and not axes[0, 0].lines
        assert axes[0, 1].get_legend() is None

    def test_errors(self):
        with pytest.raises(ValueError, match="study must be a TemperatureStudy"):
            plot_temperature_study({"sweep": None})
        with pytest.raises(ValueError, match="axes must hold 3 axes; got 2"):
            plot_temperature_study(_study(), axes=plt.subplots(1, 2)[1])


def _regions(topology, ece_values):
    values = np.asarray(ece_values, dtype=float)[:, :, None]  # (runs, R, 1)
    r = tuple(range(1, values.shape[1] + 1))
    return CalibrationStudy(topology, tuple(f"R={i}" for i in r), ("ece",), values, ((0,), (1,)), [], r)


class TestPlotRegionStudy:
    def test_main(self):
        st = _regions("RSN", [[0.03, 0.02, 0.01], [0.05, 0.02, 0.01]])
        ax = plot_region_study([st, _regions("DSN121", [[0.02, 0.02, 0.02], [0.02, 0.02, 0.02]])])
        line = ax.containers[0].lines[0]  # the data line of the first errorbar
        np.testing.assert_allclose(np.asarray(line.get_xdata(), dtype=float), [1, 2, 3])
        np.testing.assert_allclose(np.asarray(line.get_ydata(), dtype=float), [4.0, 2.0, 1.0])  # units of 1e-2
        assert [t.get_text() for t in ax.get_legend().get_texts()] == ["RSN", "DSN121"]
        assert "ECE" in ax.get_ylabel()

    def test_errors(self):
        with pytest.raises(ValueError, match="non-empty sequence of CalibrationStudy"):
            plot_region_study([])
        with pytest.raises(ValueError, match="metric must be one of"):
            plot_region_study([_regions("RSN", [[0.1], [0.2]])], metric="skce")


class TestPlotCombinationReliability:
    def test_main(self):
        curve = reliability_curve([[0.9, 0.1], [0.3, 0.7], [0.6, 0.4]], [0, 0, 1], n_bins=5)
        combos = [
            TopologyCombination(("DSN121", "RSN"), "ml", "post", e, np.array([0.4, 0.6]), {"ece": 0.1}, curve)
            for e in (None, "post")
        ]
        ax = plot_combination_reliability(combos, labels=["uncalibrated", "calibrated"])
        assert len(ax.lines) == 3  # two curves and the diagonal
        np.testing.assert_allclose(ax.lines[0].get_xdata(), curve.mean_predicted[curve.counts > 0])
        assert [t.get_text() for t in ax.get_legend().get_texts()] == ["uncalibrated", "calibrated"]

    def test_errors(self):
        with pytest.raises(ValueError, match="non-empty sequence of TopologyCombination"):
            plot_combination_reliability([1])
        curve = reliability_curve([[0.9, 0.1]], [0], n_bins=5)
        c = TopologyCombination(("RSN",), "ml", None, None, np.ones(1), {"ece": 0.0}, curve)
        with pytest.raises(ValueError, match="labels must have one entry per combination"):
            plot_combination_reliability([c], labels=["a", "b"])


class TestPlotEpsilonCurves:
    def test_main(self, tmp_cache):
        toy = appendix_toys(2000, 2000, n_members=3, epsilons=(0.01, 0.1, 0.5))
        fig = plot_epsilon_curves(toy)
        ax_ace, ax_ece = fig.axes
        np.testing.assert_allclose(ax_ace.lines[0].get_ydata(), toy.ensemble_ace)
        np.testing.assert_allclose(ax_ece.lines[1].get_ydata(), toy.member_ece)
        assert ax_ace.get_xscale() == "log" and ax_ace.get_title() == "(a) ACE"

    def test_errors(self):
        with pytest.raises(ValueError, match="toy must be a ToyStudy"):
            plot_epsilon_curves(None)
