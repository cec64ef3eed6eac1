"""Tests for credalbook.metrics.reliability beyond tests/metrics/test_classification.py: the renamed options."""

import numpy as np
import pytest

from credalbook.metrics import reliability_curve, RELIABILITY_KINDS
from credalbook.synthetic import calibrated_predictions


def _same(a, b):
    for field in ("bin_edges", "counts", "mean_predicted", "observed"):
        np.testing.assert_array_equal(getattr(a, field), getattr(b, field))
    assert (a.kind, a.class_index) == (b.kind, b.class_index)


def test_kinds():
    assert RELIABILITY_KINDS == ("confidence", "classwise")


def test_top_label_is_confidence():
    p, y = calibrated_predictions(300, 4, seed=0)
    with pytest.warns(FutureWarning, match="kind='top_label' was renamed to kind='confidence'"):
        old = reliability_curve(p, y, kind="top_label")
    _same(old, reliability_curve(p, y, kind="confidence"))


def test_binning_keyword():
    p, y = calibrated_predictions(300, 4, seed=1)
    with pytest.warns(FutureWarning, match="'binning' was renamed to 'strategy'"):
        old = reliability_curve(p, y, n_bins=7, binning="quantile")
    _same(old, reliability_curve(p, y, n_bins=7, strategy="quantile"))
