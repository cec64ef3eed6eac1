"""Tests for credalbook.stats.measures: the registry agrees with the public metric functions, batched
and looped evaluation agree, and bad names/inputs raise clear errors."""

import numpy as np
import pytest

from credalbook.metrics import brier_score, ece_classwise, ece_confidence, skce_ul, skce_uq
from credalbook.stats import (
    as_measure,
    calibration_measure,
    calibration_test,
    CalibrationMeasure,
    hosmer_lemeshow_statistic,
)
from credalbook.synthetic import sample_labels


@pytest.fixture()
def data():
    rng = np.random.default_rng(0)
    p = rng.dirichlet(np.ones(4), size=(3, 50))
    return p, sample_labels(p, rng)


class TestCalibrationMeasure:
    @pytest.mark.parametrize(
        "name, reference",
        [
            ("ece_confidence", lambda p, y: ece_confidence(p, y, n_bins=5)),
            ("ece_classwise", lambda p, y: ece_classwise(p, y, n_bins=5)),
            ("hosmer_lemeshow", lambda p, y: hosmer_lemeshow_statistic(p, y, n_bins=5)),
            ("hl_authors", lambda p, y: hosmer_lemeshow_statistic(p, y, n_bins=5, variant="authors")),
            ("skce_ul", skce_ul),
            ("skce_uq", skce_uq),
        ],
    )
    def test_main(self, data, name, reference):
        p, y = data
        g = (
            calibration_measure("hosmer_lemeshow", n_bins=5, variant="authors")
            if name == "hl_authors"
            else calibration_measure(name, n_bins=5)
        )
        np.testing.assert_allclose(g(p, y), reference(p, y), rtol=1e-12)
        np.testing.assert_allclose(g.func(p, y), reference(p, y), rtol=1e-12)
        assert g(p[0], y[0]) == pytest.approx(reference(p[0], y[0]))

    def test_names(self):
        assert calibration_measure("hosmer_lemeshow", n_bins=5).name == "HL (B=5)"
        assert calibration_measure("hosmer_lemeshow", grouping="single").name == "HL (B=10, single grouping)"
        assert calibration_measure("hosmer_lemeshow", n_bins=5, variant="authors").name == "HL authors (B=5)"
        assert calibration_measure("skce_ul").smooth and not calibration_measure("ece_confidence").smooth

    def test_errors(self):
        with pytest.raises(ValueError, match="name must be one of"):
            calibration_measure("mce")
        with pytest.raises(ValueError, match="n_bins"):
            calibration_measure("ece_confidence", n_bins=0)
        with pytest.raises(ValueError, match="variant must be one of"):
            calibration_measure("hosmer_lemeshow", variant="paper")
        with pytest.raises(ValueError, match="probs must sum to 1"):
            calibration_measure("ece_confidence")([[0.5, 0.6]], [0])
        with pytest.raises(ValueError, match="at least 10 instances"):
            calibration_measure("hosmer_lemeshow")([[0.5, 0.5]] * 3, [0, 1, 0])


class TestAsMeasure:
    def test_main(self, data):
        p, y = data
        looped = as_measure(brier_score)
        batched = as_measure(brier_score, batched=True)
        np.testing.assert_allclose(looped(p, y), batched(p, y))
        np.testing.assert_allclose(looped.func(p, y), brier_score(p, y))
        g = calibration_measure("ece_confidence")
        assert as_measure(g) is g
        assert isinstance(as_measure("ece_classwise", n_bins=3), CalibrationMeasure)

    def test_errors(self):
        with pytest.raises(ValueError, match="measure must be"):
            as_measure(42)

    @pytest.mark.parametrize(
        "old, new", [("ece_conf", "ece_confidence"), ("ece_cwise", "ece_classwise"), ("hl", "hosmer_lemeshow")]
    )
    def test_old_names(self, data, old, new):
        """The measure names of earlier releases give the same measure, with a FutureWarning naming the new one."""
        p, y = data
        with pytest.warns(FutureWarning, match=f"measure='{old}' was renamed to measure='{new}'"):
            g = as_measure(old, n_bins=5)
        with pytest.warns(FutureWarning, match=f"name='{old}' was renamed to name='{new}'"):
            h = calibration_measure(old, n_bins=5)
        ref = calibration_measure(new, n_bins=5)
        assert g.name == h.name == ref.name
        np.testing.assert_array_equal(g(p, y), ref(p, y))
        np.testing.assert_array_equal(h(p, y), ref(p, y))
        with pytest.warns(FutureWarning, match="renamed"):
            a = calibration_test(p[0], y[0], measure=old, n_bins=5, n_resamples=30, seed=0)
        b = calibration_test(p[0], y[0], measure=new, n_bins=5, n_resamples=30, seed=0)
        assert (a.statistic, a.pvalue) == (b.statistic, b.pvalue)
