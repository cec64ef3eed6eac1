"""Tests for credalbook.plotting.plot_reliability_comparison and ModelComparison.plot (matplotlib's Agg backend)."""

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from matplotlib.collections import PolyCollection  # noqa: E402
from matplotlib.colors import to_rgba  # noqa: E402

from credalbook.metrics import consistency_bands, reliability_curve  # noqa: E402
from credalbook.plotting import plot_reliability_comparison  # noqa: E402
from credalbook.plotting.comparison import model_predictions  # noqa: E402
from credalbook.stats import compare_models  # noqa: E402
from credalbook.synthetic import calibrated_predictions  # noqa: E402


def _sharpen(p, power=3.0):
    q = p**power
    return q / q.sum(axis=1, keepdims=True)


def _curves(ax):
    """The models' curves (lines with markers; the diagonal has none)."""
    return [line for line in ax.get_lines() if line.get_marker() == "o"]


def _bands(ax):
    return [c for c in ax.collections if isinstance(c, PolyCollection)]


class TestPlotReliabilityComparison:
    @pytest.mark.parametrize("k", [3, 10])
    def test_main(self, k):
        """One curve per model at its reliability curve's points, a band in the model's colour, the legend
        naming each model with its ECE; top-label for K > 2."""
        p, y = calibrated_predictions(800, k, seed=0)
        models = {"calibrated": p, "sharp": _sharpen(p), "flat": _sharpen(p, 0.5)}
        ax = plot_reliability_comparison(models, y, n_bins=10, n_resamples=200, seed=3)
        curves, bands = _curves(ax), _bands(ax)
        assert len(curves) == 3 and len(bands) == 3
        legend = [t.get_text() for t in ax.get_legend().get_texts()]
        colours = set()
        for (name, probs), line, band, text in zip(models.items(), curves, bands, legend):
            curve = reliability_curve(probs, y, n_bins=10)
            shown = curve.counts > 0
            np.testing.assert_allclose(line.get_xdata(), curve.mean_predicted[shown])
            np.testing.assert_allclose(line.get_ydata(), curve.observed[shown])
            assert text == f"{name} (ECE = {curve.calibration_error:.3f})"
            assert to_rgba(band.get_facecolor()[0], alpha=1) == to_rgba(line.get_color(), alpha=1)
            colours.add(to_rgba(line.get_color()))
        assert len(colours) == 3
        assert ax.get_xlabel().startswith("confidence")

    def test_bands_follow_one_generator(self):
        """The bands are those of consistency_bands, drawn one model after the other from one generator."""
        p, y = calibrated_predictions(500, 3, seed=1)
        ax = plot_reliability_comparison({"a": p, "b": _sharpen(p)}, y, n_bins=8, n_resamples=300, seed=9)
        rng = np.random.default_rng(9)
        for probs, band in zip((p, _sharpen(p)), _bands(ax)):
            want = consistency_bands(probs, n_bins=8, n_resamples=300, seed=rng)
            ok = np.isfinite(want.low)
            outline = band.get_paths()[0].vertices
            for x, low, high in zip(want.mean_predicted[ok], want.low[ok], want.high[ok]):
                at = outline[np.isclose(outline[:, 0], x), 1]
                assert np.isclose(at, low).any() and np.isclose(at, high).any()

    def test_binary(self):
        """K = 2: the P(y = 1) curve (class 1), not the top-label one."""
        rng = np.random.default_rng(0)
        s = rng.random(600)
        y = (rng.random(600) < s).astype(int)
        p = np.column_stack([1 - s, s])
        ax = plot_reliability_comparison({"a": p, "b": _sharpen(p, 2.0)}, y, n_bins=10, band=False)
        curve = reliability_curve(p, y, n_bins=10, kind="classwise", class_index=1)
        line = _curves(ax)[0]
        np.testing.assert_allclose(line.get_xdata(), curve.mean_predicted[curve.counts > 0])
        assert line.get_xdata().min() < 0.5  # P(y = 1) spans [0, 1]; a confidence never goes below 0.5
        assert "P(y = 1)" in ax.get_xlabel() and not _bands(ax)
        top = plot_reliability_comparison({"a": p}, y, n_bins=10, band=False, kind="confidence")
        assert _curves(top)[0].get_xdata().min() >= 0.5
        scores = plot_reliability_comparison({"a": s, "b": p[:, 1] ** 2}, y.astype(bool), n_bins=10, band=False)
        np.testing.assert_array_equal(_curves(scores)[0].get_xydata(), line.get_xydata())

    def test_logits(self):
        p, y = calibrated_predictions(300, 3, seed=2)
        a = plot_reliability_comparison({"a": p, "b": np.log(p) + 1.0}, y, from_logits={"b"}, band=False)
        b = plot_reliability_comparison({"a": p, "b": p}, y, band=False)
        for la, lb in zip(_curves(a), _curves(b)):
            np.testing.assert_allclose(la.get_xydata(), lb.get_xydata(), atol=1e-12)

    def test_comparison_plot(self):
        """ModelComparison.plot draws the models of the comparison with its bins."""
        p, y = calibrated_predictions(400, 10, seed=4)
        c = compare_models({"a": p, "b": _sharpen(p)}, y, metrics="ece_confidence", n_bins=12, n_resamples=50, seed=0)
        ax = c.plot(n_resamples=100, seed=1)
        assert len(_curves(ax)) == 2 and len(_bands(ax)) == 2
        assert [t.get_text().split(" (")[0] for t in ax.get_legend().get_texts()] == ["a", "b"]
        curve = reliability_curve(p, y, n_bins=12)
        np.testing.assert_allclose(_curves(ax)[0].get_xdata(), curve.mean_predicted[curve.counts > 0])

    def test_many_models(self):
        p, y = calibrated_predictions(200, 3, seed=5)
        models = {f"m{i}": _sharpen(p, 1 + i / 10) for i in range(12)}
        ax = plot_reliability_comparison(models, y, band=False)
        assert len({to_rgba(line.get_color()) for line in _curves(ax)}) == 12

    def test_errors(self):
        p, y = calibrated_predictions(100, 3, seed=0)
        with pytest.raises(ValueError, match="kind"):
            plot_reliability_comparison({"a": p}, y, kind="other")
        with pytest.raises(ValueError, match="band"):
            plot_reliability_comparison({"a": p}, y, band="yes")
        with pytest.raises(ValueError, match="strategy"):
            plot_reliability_comparison({"a": p}, y, strategy="other")
        with pytest.raises(ValueError, match="n_bins"):
            plot_reliability_comparison({"a": p}, y, n_bins=0)
        with pytest.raises(ValueError, match="seed"):
            plot_reliability_comparison({"a": p}, y, seed=-1)
        with pytest.raises(ValueError, match=r"models\['b'\]"):
            plot_reliability_comparison({"a": p, "b": p[:50]}, y)
        with pytest.raises(TypeError, match="from_logits"):
            model_predictions({"a": p}, y, from_logits=3)
