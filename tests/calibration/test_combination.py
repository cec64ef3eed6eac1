"""Tests for credalbook.calibration.combination (Wu & Gales 2021, Sec. 4 and App. A.1).

Averaging against explicit sums, maximum-likelihood weights recovering the mixture that generated
the labels (and satisfying the KKT conditions, agreeing with an independent SLSQP solve), AUCs
against scikit-learn, Eq. 23 / Eq. 18 on random ensembles, Propositions 1, 2 and 4 as identities
and inequalities, and the under-confidence of an ensemble of calibrated members (Alg. 1).
"""

import numpy as np
import pytest
from scipy.optimize import minimize
from sklearn.metrics import roc_auc_score

from credalbook.calibration import (
    auc_weights,
    average_members,
    ensemble_calibration,
    ensemble_confidence_gap,
    EnsembleCalibration,
    ml_weights,
    multiclass_auc,
    perturb_non_top_label,
    regional_confidence,
    RegionalConfidence,
)
from credalbook.metrics import global_calibration_gap, global_top_label_gap, nll
from credalbook.papers.wu_gales import calibrated_members_ensemble
from credalbook.synthetic import sample_labels


def _ens(n=300, m=4, k=5, seed=0, concentration=0.5):
    rng = np.random.default_rng(seed)
    return rng.dirichlet(np.full(k, concentration), size=(n, m)), rng.integers(0, k, size=n)


def _mixture_data(w_true, n=20_000, k=5, seed=0):
    """Members with random predictions; labels drawn from the w_true-mixture of the members."""
    rng = np.random.default_rng(seed)
    ens = rng.dirichlet(np.full(k, 0.3), size=(n, len(w_true)))
    labels = sample_labels(np.einsum("nmk,m->nk", ens, w_true), rng)
    return ens, labels


# ----------------------------------------------------------------------------------------------
class TestAverageMembers:
    def test_main(self):
        ens, _ = _ens(n=20, m=3, k=4)
        assert average_members(ens) == pytest.approx(ens.mean(axis=1), abs=1e-15)
        w = np.array([0.5, 0.3, 0.2])
        expected = 0.5 * ens[:, 0] + 0.3 * ens[:, 1] + 0.2 * ens[:, 2]
        assert average_members(ens, weights=w) == pytest.approx(expected, abs=1e-15)
        per_instance = np.tile(w, (20, 1))
        assert average_members(ens, weights=per_instance) == pytest.approx(expected, abs=1e-15)
        assert average_members(ens).sum(axis=1) == pytest.approx(np.ones(20), abs=1e-12)

    def test_errors(self):
        ens, _ = _ens(n=5, m=3, k=4)
        with pytest.raises(ValueError, match="weights"):
            average_members(ens, weights=[0.5, 0.5])
        with pytest.raises(ValueError, match="weights"):
            average_members(ens, weights=[0.5, 0.5, 0.5])
        with pytest.raises(ValueError, match="weights"):
            average_members(ens, weights=[1.5, -0.5, 0.0])
        with pytest.raises(ValueError, match="ens_probs"):
            average_members(ens[:, 0])
        with pytest.raises(ValueError, match="ens_probs"):
            average_members(ens[None])


class TestMlWeights:
    def test_main(self):
        """Labels generated from a known mixture of the members: the ML weights recover it."""
        w_true = np.array([0.6, 0.3, 0.1])
        ens, labels = _mixture_data(w_true)
        w = ml_weights(ens, labels)
        assert w.shape == (3,)
        assert w.sum() == pytest.approx(1.0, abs=1e-12)
        assert w == pytest.approx(w_true, abs=0.03)
        assert nll(average_members(ens, weights=w), labels) < nll(average_members(ens), labels)

    def test_optimality(self):
        """KKT conditions, and agreement with SLSQP on the simplex (an independent optimiser)."""
        ens, labels = _ens(n=2000, m=4, k=5, seed=3)
        ens[:, 1] = 0.5 * ens[:, 1] + 0.5 / 5  # a blurred member
        w = ml_weights(ens, labels)
        a = ens[np.arange(len(labels)), :, labels]
        ratio = (a / (a @ w)[:, None]).mean(axis=0)
        assert ratio[w > 1e-4] == pytest.approx(np.ones((w > 1e-4).sum()), abs=1e-6)
        assert (ratio <= 1 + 1e-6).all()

        def objective(v):
            return -np.log(a @ v).mean()

        ref = minimize(
            objective,
            np.full(4, 0.25),
            method="SLSQP",
            bounds=[(0, 1)] * 4,
            constraints=[{"type": "eq", "fun": lambda v: v.sum() - 1}],
            options={"ftol": 1e-14},
        )
        assert objective(w) <= objective(ref.x) + 1e-10
        assert w == pytest.approx(ref.x, abs=1e-3)

    def test_boundary_and_single_member(self):
        # the docstring case: member 1 predicts every label perfectly
        ens = [[[0.6, 0.4], [1.0, 0.0]], [[0.5, 0.5], [0.0, 1.0]]]
        assert ml_weights(ens, [0, 1]) == pytest.approx([0.0, 1.0], abs=1e-8)
        assert ml_weights(np.array(ens)[:, :1], [0, 1]).tolist() == [1.0]
        # a member that gives a label probability 0 does not break the likelihood
        assert np.isfinite(ml_weights([[[1.0, 0.0], [0.5, 0.5]]], [1])).all()

    def test_member_permutation(self):
        ens, labels = _mixture_data(np.array([0.5, 0.2, 0.3]), n=3000, seed=4)
        perm = [2, 0, 1]
        assert ml_weights(ens[:, perm], labels) == pytest.approx(ml_weights(ens, labels)[perm], abs=1e-6)

    def test_errors(self):
        ens, labels = _ens(n=10, m=2, k=3)
        with pytest.raises(ValueError, match="labels"):
            ml_weights(ens, labels[:5])
        with pytest.raises(ValueError, match="labels"):
            ml_weights(ens, np.full(10, 3))
        with pytest.raises(ValueError, match="max_iter"):
            ml_weights(ens, labels, max_iter=0)
        with pytest.raises(ValueError, match="ens_probs"):
            ml_weights(ens[:, 0], labels)
        for tol in (-1e-3, np.nan, np.inf, True, "1e-6", 1j, None):  # were passed to L-BFGS unchecked
            with pytest.raises(ValueError, match="tol must be a non-negative number"):
                ml_weights(ens, labels, tol=tol)
        for floor in (0.0, -1e-12, np.nan, "a"):  # floor 0 or NaN: log(0) or NaN weights
            with pytest.raises(ValueError, match="floor must be a positive number"):
                ml_weights(ens, labels, floor=floor)

    def test_tol_zero(self):
        """tol = 0 runs all max_iter EM steps and lands on the same weights as the default."""
        ens, labels = _ens(n=200, m=3, k=4, seed=5)
        np.testing.assert_allclose(ml_weights(ens, labels, tol=0.0, max_iter=200), ml_weights(ens, labels), atol=1e-6)


class TestMulticlassAuc:
    def test_main(self):
        assert multiclass_auc([[0.9, 0.1], [0.4, 0.6], [0.6, 0.4], [0.2, 0.8]], [0, 1, 1, 1]) == 1.0
        rng = np.random.default_rng(0)
        p = rng.dirichlet(np.ones(4), size=400)
        y = sample_labels(p, rng)
        expected = roc_auc_score(y, p, multi_class="ovr", average="macro")
        assert multiclass_auc(p, y) == pytest.approx(expected, abs=1e-12)
        correct = p.argmax(1) == y
        assert multiclass_auc(p, y, kind="confidence") == pytest.approx(roc_auc_score(correct, p.max(1)), abs=1e-12)

    def test_binary_and_ties(self):
        rng = np.random.default_rng(1)
        p1 = rng.integers(0, 5, size=200) / 4.0  # many ties
        p = np.stack([1 - p1, p1], axis=1)
        y = rng.integers(0, 2, size=200)
        assert multiclass_auc(p, y) == pytest.approx(roc_auc_score(y, p1), abs=1e-12)

    def test_absent_class_is_skipped(self):
        p = np.array([[0.7, 0.2, 0.1], [0.2, 0.7, 0.1], [0.6, 0.3, 0.1], [0.3, 0.6, 0.1]])
        y = np.array([0, 1, 0, 1])  # class 2 never occurs
        assert multiclass_auc(p, y) == pytest.approx(1.0)

    def test_errors(self):
        p = [[0.7, 0.3], [0.2, 0.8]]
        with pytest.raises(ValueError, match="kind"):
            multiclass_auc(p, [0, 1], kind="roc")
        with pytest.raises(ValueError, match="labels"):
            multiclass_auc(p, [0, 0])  # a single class
        with pytest.raises(ValueError, match="labels"):
            multiclass_auc(p, [0, 1], kind="confidence")  # all predictions correct
        with pytest.raises(ValueError, match="labels"):
            multiclass_auc(p, p)  # probabilities instead of labels


class TestAucWeights:
    def test_main(self):
        ens, labels = _mixture_data(np.array([0.7, 0.2, 0.1]), n=3000, seed=2)
        aucs = np.array([multiclass_auc(ens[:, m], labels) for m in range(3)])
        w = auc_weights(ens, labels)
        assert w == pytest.approx(aucs / aucs.sum(), abs=1e-14)
        assert w.argmax() == 0 and w.argmin() == 2  # the member that generated most labels ranks first
        wc = auc_weights(ens, labels, chance_corrected=True)
        assert wc == pytest.approx((aucs - 0.5) / (aucs - 0.5).sum(), abs=1e-14)
        assert wc.max() / wc.min() > w.max() / w.min()  # chance correction spreads the weights
        wconf = auc_weights(ens, labels, kind="confidence")
        assert wconf.sum() == pytest.approx(1.0)

    def test_errors(self):
        ens = np.full((4, 2, 2), 0.5)  # uninformative members: AUC 0.5
        with pytest.raises(ValueError, match="chance"):
            auc_weights(ens, [0, 1, 0, 1], chance_corrected=True)
        assert auc_weights(ens, [0, 1, 0, 1]) == pytest.approx([0.5, 0.5])
        with pytest.raises(ValueError, match="kind"):
            auc_weights(ens, [0, 1, 0, 1], kind="pr")


class TestEnsembleConfidenceGap:
    def test_main(self):
        assert ensemble_confidence_gap([[[0.9, 0.1], [0.3, 0.7]]]) == pytest.approx([0.2], abs=1e-12)
        # members that agree on the class: no gap
        assert ensemble_confidence_gap([[[0.9, 0.1], [0.6, 0.4]]]) == pytest.approx([0.0], abs=1e-15)

    def test_never_negative_on_random_ensembles(self):
        """Eq. 23: the ensemble confidence never exceeds the mean member confidence."""
        rng = np.random.default_rng(0)
        for seed in range(20):
            ens, _ = _ens(
                n=500,
                m=int(rng.integers(2, 8)),
                k=int(rng.integers(2, 11)),
                seed=seed,
                concentration=float(rng.uniform(0.05, 3)),
            )
            w = rng.dirichlet(np.ones(ens.shape[1]))
            for weights in (None, w):
                assert ensemble_confidence_gap(ens, weights=weights).min() >= -1e-12

    def test_errors(self):
        with pytest.raises(ValueError, match="weights"):
            ensemble_confidence_gap(_ens(n=3, m=2)[0], weights=np.full((3, 2), 0.5))
        with pytest.raises(ValueError, match="ens_probs"):
            ensemble_confidence_gap([[0.5, 0.5]])


class TestRegionalConfidence:
    def test_main(self):
        ens, labels = _ens(n=2000, m=5, k=4, seed=1)
        r = regional_confidence(ens, labels, epsilon=1 / 30)
        assert isinstance(r, RegionalConfidence)
        assert r.counts.sum() == 2000 and (r.counts > 0).all()
        assert (np.diff(r.ensemble_confidence) > 0).all()  # increasing regions
        assert (r.ensemble_confidence <= r.member_confidence + 1e-12).all()  # Eq. 18
        # one region: the global averages
        g = regional_confidence(ens, labels, epsilon=1.0)
        probs = average_members(ens)
        assert g.ensemble_confidence == pytest.approx([probs.max(1).mean()], abs=1e-12)
        assert g.ensemble_accuracy == pytest.approx([(probs.argmax(1) == labels).mean()], abs=1e-12)
        assert g.member_accuracy == pytest.approx([(ens.argmax(2) == labels[:, None]).mean()], abs=1e-12)
        none = regional_confidence(ens, epsilon=0.1)
        assert none.ensemble_accuracy is None and none.member_accuracy is None

    def test_calibrated_members_make_underconfident_ensemble(self):
        """Alg. 1 members are calibrated, the ensemble is more accurate than they are, so in its
        regions the accuracy exceeds the confidence (the reliability curve lies above the diagonal)."""
        toy = calibrated_members_ensemble(50_000, seed=0)
        r = regional_confidence(toy.ens_probs, toy.true_probs, epsilon=0.05)
        big = r.counts > 500
        assert (r.ensemble_accuracy[big] > r.ensemble_confidence[big]).all()
        assert (r.ensemble_confidence <= r.member_confidence + 1e-12).all()

    def test_errors(self):
        ens, labels = _ens(n=10, m=2, k=3)
        with pytest.raises(ValueError, match="epsilon"):
            regional_confidence(ens, labels, epsilon=-1)
        with pytest.raises(ValueError, match="labels"):
            regional_confidence(ens, labels[:3])


class TestEnsembleCalibration:
    def test_main(self):
        ens = [[[0.9, 0.1], [0.3, 0.7]], [[0.8, 0.2], [0.6, 0.4]]]
        c = ensemble_calibration(ens, [0, 0])
        assert isinstance(c, EnsembleCalibration)
        assert c.member_accuracy == pytest.approx([1.0, 0.5])
        assert c.member_confidence == pytest.approx([0.85, 0.65])
        assert c.ensemble_accuracy == 1.0 and c.ensemble_confidence == pytest.approx(0.65)
        assert c.accuracy_gain == pytest.approx(0.25) and c.accuracy_gain_bound == pytest.approx(0.35)

    def test_propositions_on_random_ensembles(self):
        rng = np.random.default_rng(5)
        for seed in range(10):
            ens, labels = _ens(n=400, m=4, k=6, seed=seed, concentration=float(rng.uniform(0.1, 2)))
            w = rng.dirichlet(np.ones(4))
            c = ensemble_calibration(ens, labels, weights=w)
            # Proposition 2 (Eqs. 25-26): class gaps are linear in the members
            assert c.ensemble_class_gaps == pytest.approx(w @ c.member_class_gaps, abs=1e-14)
            assert c.ensemble_class_gaps == pytest.approx(
                global_calibration_gap(average_members(ens, weights=w), labels), abs=1e-14
            )
            assert c.member_top_label_gaps[0] == pytest.approx(global_top_label_gap(ens[:, 0], labels), abs=1e-14)
            # Proposition 1 in its general form (Eq. 23 averaged)
            assert c.accuracy_gain <= c.accuracy_gain_bound + 1e-12

    def test_calibrated_members(self):
        """Alg. 1: members exactly calibrated, the ensemble gains accuracy and is under-confident."""
        toy = calibrated_members_ensemble(50_000, seed=1)
        c = ensemble_calibration(toy.ens_probs, toy.true_probs)
        assert c.member_top_label_gaps == pytest.approx(np.zeros(10), abs=1e-10)
        assert c.member_class_gaps == pytest.approx(np.zeros((10, 4)), abs=1e-10)
        assert c.ensemble_class_gaps == pytest.approx(np.zeros(4), abs=1e-10)  # Proposition 2
        assert c.accuracy_gain > 0.05
        assert c.ensemble_top_label_gap < -0.1  # under-confident (Prop. 1: it must be ≤ -gain)
        assert c.ensemble_top_label_gap <= -c.accuracy_gain

    def test_errors(self):
        ens, labels = _ens(n=10, m=3, k=3)
        with pytest.raises(ValueError, match="weights"):
            ensemble_calibration(ens, labels, weights=[1.0, 0.0])
        with pytest.raises(ValueError, match="labels"):
            ensemble_calibration(ens, labels + 5)


class TestPerturbNonTopLabel:
    def test_main(self):
        """Proposition 4: same member top-label calibration, different ensemble confidence."""
        ens, labels = _ens(n=200, m=3, k=5, seed=2)
        w = np.array([0.5, 0.3, 0.2])
        y_e = average_members(ens, weights=w).argmax(1)
        n, m = next(
            (i, j)
            for i in range(200)
            for j in range(3)
            if ens[i, j].argmax() != y_e[i]
            and ens[i, j].max() - ens[i, j, y_e[i]] > 0.05
            and np.delete(ens[i, j], [y_e[i], ens[i, j].argmax()]).max() > 0.05
        )
        tau = 0.04
        new = perturb_non_top_label(ens, instance=n, member=m, tau=tau, weights=w)
        assert new.sum(axis=2) == pytest.approx(np.ones((200, 3)), abs=1e-12)
        assert (new.argmax(2) == ens.argmax(2)).all() and new.max(2) == pytest.approx(ens.max(2))
        assert (np.delete(new, n, axis=0) == np.delete(ens, n, axis=0)).all()
        before = ensemble_calibration(ens, labels, weights=w)
        after = ensemble_calibration(new, labels, weights=w)
        assert after.member_top_label_gaps == pytest.approx(before.member_top_label_gaps, abs=1e-15)
        assert after.ensemble_accuracy == before.ensemble_accuracy  # Eq. 38
        assert after.ensemble_top_label_gap - before.ensemble_top_label_gap == pytest.approx(w[m] * tau / 200)

    def test_errors(self):
        ens = np.array([[[0.5, 0.1, 0.4], [0.0, 0.6, 0.4], [0.1, 0.6, 0.3]]])
        with pytest.raises(ValueError, match="K > 2"):
            perturb_non_top_label(ens[:, :, :2] / ens[:, :, :2].sum(2, keepdims=True), instance=0, member=0, tau=0.1)
        with pytest.raises(ValueError, match="predicts the ensemble's class"):
            perturb_non_top_label(ens, instance=0, member=1, tau=0.1)
        with pytest.raises(ValueError, match="tau"):
            perturb_non_top_label(ens, instance=0, member=0, tau=0.45)  # more than the donor holds
        with pytest.raises(ValueError, match="tau"):
            perturb_non_top_label(ens, instance=0, member=0, tau=0.4)  # member's top label would change
        with pytest.raises(ValueError, match="tau"):
            perturb_non_top_label(ens, instance=0, member=0, tau=-0.1)
        for tau in ("0.1", 0.1j, None, True, np.nan, 0.0):  # "0.1" once went through float()
            with pytest.raises(ValueError, match="tau must be a positive number"):
                perturb_non_top_label(ens, instance=0, member=0, tau=tau)
        with pytest.raises(ValueError, match="instance"):
            perturb_non_top_label(ens, instance=1, member=0, tau=0.1)
        with pytest.raises(ValueError, match="member"):
            perturb_non_top_label(ens, instance=0, member=3, tau=0.1)
