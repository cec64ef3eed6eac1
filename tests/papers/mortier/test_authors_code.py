"""The authors' released S2 experiment, transcribed (credalbook.papers.mortier.authors_code), against the book's."""

import numpy as np
import pytest

from credalbook.metrics import ece_classwise, ece_confidence
from credalbook.papers.mortier.authors_code import (
    authors_code_type2,
    authors_h1_datasets,
    authors_npbe_test,
    merge_released,
    pycalib_classwise_ece,
    pycalib_conf_ece,
)


@pytest.mark.parametrize("n_bins", [5, 10])
def test_pycalib_estimators_equal_the_books(n_bins):
    """Two independent computations: pycalib's ECEs (its loops over bins) and the book's, on generic predictions
    with exact one-hot rows and exact zeros among them."""
    rng = np.random.default_rng(n_bins)
    for _ in range(20):
        p = rng.dirichlet(np.full(10, 0.2), 100)
        p[:5] = np.eye(10)[:5]
        y = rng.integers(0, 10, 100)
        assert pycalib_conf_ece(p, y, n_bins) == pytest.approx(float(ece_confidence(p, y, n_bins=n_bins)), abs=1e-12)
        assert pycalib_classwise_ece(p, y, n_bins) == pytest.approx(
            float(ece_classwise(p, y, n_bins=n_bins)), abs=1e-12
        )


def test_pycalib_conf_ece_closed_form():
    # every confidence 0.7 in one bin, accuracy 0.5: |0.5 - 0.7| = 0.2
    p = np.tile([0.7, 0.3], (4, 1))
    assert pycalib_conf_ece(p, np.array([0, 0, 1, 1]), 10) == pytest.approx(0.2)


def test_s2_truth_is_the_corner_where_p_e_is_outside():
    """Two members in K = 6: the hull is a segment, p_e is outside it, getBoundary returns the corner and every label is
    the class of p_e's largest probability (the members' mean's, with u this small)."""
    data, counts = authors_h1_datasets(
        n_datasets=3, n_instances=40, n_members=2, n_classes=6, u=1e-3, rs=np.random.RandomState(1)
    )
    assert counts == {"instances": 120, "inside": 0, "not_a_distribution": 0}
    for p, y in data:
        assert np.mean(y == p.mean(axis=1).argmax(axis=1)) >= 0.95


def test_carried_truth_is_not_a_distribution_where_p_e_is_inside():
    """One member (the hull is p_e itself, the released code's M = 1 branch): the first instance's truth is a
    distribution, the later ones combine it element-wise with the next corner and boundary (the carried `l`)."""
    _, counts = authors_h1_datasets(n_datasets=1, n_instances=30, n_members=1, n_classes=4, rs=np.random.RandomState(0))
    assert counts["inside"] == 30 and 10 <= counts["not_a_distribution"] <= 29


def test_npbe_test_rejects_an_obvious_alternative_and_reports_t():
    rs = np.random.RandomState(0)
    p = np.tile([[0.5, 0.5], [0.6, 0.4]], (200, 1, 1))  # (N, M, K): two members on every instance
    y = np.zeros(200, dtype=int)  # class 0 always: confidence ≤ 0.6, accuracy 1
    dec, t, w = authors_npbe_test(p, y, [0.05, 0.5], kind="conf", n_bins=10, rs=rs, n_resamples=50)
    assert dec.tolist() == [1, 1] and w.shape == (2,)
    # t is the ECE at COBYLA's weights as they are: 1 − (0.5 w1 + 0.6 w2)
    assert t == pytest.approx(pycalib_conf_ece(p.transpose(0, 2, 1) @ w, y, 10))
    assert t == pytest.approx(0.4, abs=2e-3)  # the minimum, at the second member


def test_type2_study_and_merge():
    kw = dict(tests=["ECE_conf (B=5)"], n_instances=30, n_members=3, n_classes=3, u=0.5, n_resamples=10)
    a = authors_code_type2(n_datasets=2, alphas=[0.05, 0.5], chunk=0, **kw)
    b = authors_code_type2(n_datasets=3, alphas=[0.05, 0.5], chunk=1, **kw)
    assert a["R"] == 2 and len(a["t"]["ECE_conf (B=5)"]) == 2 and a["instances"] == 60
    m = merge_released([a, b])
    assert m["R"] == 5 and m["instances"] == 150
    assert (
        m["counts"]["ECE_conf (B=5)"] == (np.add(a["counts"]["ECE_conf (B=5)"], b["counts"]["ECE_conf (B=5)"])).tolist()
    )
    again = authors_code_type2(n_datasets=2, alphas=[0.05, 0.5], chunk=0, **kw)
    assert again["counts"] == a["counts"] and np.array_equal(again["t"]["ECE_conf (B=5)"], a["t"]["ECE_conf (B=5)"])
    c = authors_code_type2(n_datasets=1, alphas=[0.05], **kw)
    with pytest.raises(ValueError, match="chunks of one study"):
        merge_released([a, c])


def test_bad_input():
    with pytest.raises(ValueError, match="tests"):
        authors_code_type2(n_datasets=1, tests=[])
    with pytest.raises(ValueError, match="tests"):
        authors_code_type2(n_datasets=1, tests=["HL (B=5)"])
    with pytest.raises(ValueError, match="alphas"):
        authors_code_type2(n_datasets=1, alphas=[1.5])
    with pytest.raises(ValueError, match="scenario"):
        authors_code_type2("S1", n_datasets=1)
    with pytest.raises(TypeError, match="rs"):
        authors_h1_datasets(n_datasets=1, rs=0)
    with pytest.raises(ValueError, match="kind"):
        authors_npbe_test(np.ones((2, 2, 2)) / 2, [0, 1], [0.05], kind="skce", n_bins=5, rs=np.random.RandomState(0))
    with pytest.raises(ValueError, match="values"):
        merge_released([])
