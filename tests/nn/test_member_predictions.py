"""Tests for credalbook.nn.member_predictions: stored predictions of a classifier set."""

import numpy as np
import pytest

from credalbook.nn import ClassifierSet, MemberPredictions


class TestMemberPredictions:
    def test_main(self):
        class Two(MemberPredictions):
            MEMBERS, SPLITS, REPR_FIELDS = "ens_probs_val", ("val",), ()
            ens_probs_val, y_val = np.array([[[0.2, 0.8], [0.6, 0.4]]]), np.array([1])

        two = Two()
        assert two.n_members == 2 and two.n_classes == 2
        np.testing.assert_allclose(two.average("val"), [[0.4, 0.6]])
        assert repr(two) == "Two(n_members=2, n_val=1, n_classes=2)"


class TestClassifierSet:
    def test_main(self):
        p = np.array([[[1.0, 0.0], [0.0, 1.0]], [[0.5, 0.5], [0.7, 0.3]], [[0.2, 0.8], [0.4, 0.6]]])
        cs = ClassifierSet(p, [0, 1, 1], p[:2], [1, 0], "dropout", "DN(0.1)")
        assert cs.n_members == 2 and cs.n_classes == 2
        np.testing.assert_allclose(cs.probs_cal, [[0.5, 0.5], [0.6, 0.4], [0.3, 0.7]])
        np.testing.assert_allclose(cs.probs_test, [[0.5, 0.5], [0.6, 0.4]])
        assert cs.y_cal.dtype == np.int64 and cs.ens_probs_test.dtype == np.float64
        assert repr(cs) == (
            "ClassifierSet(name='DN(0.1)', kind='dropout', n_members=2, n_cal=3, n_test=2, n_classes=2)"
        )
        with pytest.raises(AttributeError):
            cs.name = "DE"  # frozen

    def test_errors(self):
        p = np.full((3, 2, 2), 0.5)
        with pytest.raises(ValueError, match="kind must be one of"):
            ClassifierSet(p, [0, 1, 1], p, [0, 1, 1], "bagging", "B")
        with pytest.raises(ValueError, match="ens_probs_cal must sum to 1"):
            ClassifierSet(p * 1.5, [0, 1, 1], p, [0, 1, 1], "ensemble", "DE")
        with pytest.raises(ValueError, match=r"ens_probs_test must have shape \(N, M, K\)"):
            ClassifierSet(p, [0, 1, 1], p[:, 0], [0, 1, 1], "ensemble", "DE")
        with pytest.raises(ValueError, match="y_test must have shape"):
            ClassifierSet(p, [0, 1, 1], p, [0, 1], "ensemble", "DE")
        with pytest.raises(ValueError, match="y_cal must lie in"):
            ClassifierSet(p, [0, 1, 2], p, [0, 1, 1], "ensemble", "DE")
        with pytest.raises(ValueError, match="same"):
            ClassifierSet(p, [0, 1, 1], np.full((3, 4, 2), 0.5), [0, 1, 1], "ensemble", "DE")
