"""Tests for credalbook.papers.wu_gales.toys (Wu & Gales 2021, App. A.3: Example 1, Algs. 1-2, Fig. 4).

The toys must reproduce the paper's numbers: Example 1 is all-label but not top-label calibrated
(Eqs. 44-45); Alg. 1's members are exactly calibrated while their ensemble has ACE ≈ 0.0697 (also at
the paper's scale, N = 10⁶); Alg. 2 has finite-sample ACE 0 and ACE 9/32 against the true
distribution (Eqs. 46-50), whose closed form is checked against brute-force enumeration.
"""

import dataclasses
import itertools

import numpy as np
import pytest

from credalbook.metrics import acce, all_label_ece, ecce, ece, global_calibration_gap, global_top_label_gap
from credalbook.papers.wu_gales import (
    all_vs_top_label_example,
    calibrated_members_ensemble,
    paired_label_predictions,
    paired_label_theoretical_ace,
    ToySample,
)
from credalbook.papers.wu_gales.toys import PAPER_ALG1

CRITERIA = [all_label_ece, acce, ece, ecce]


class TestToySample:
    def test_main(self):
        toy = paired_label_predictions(8, seed=0)
        assert isinstance(toy, ToySample) and toy.ens_probs is None
        with pytest.raises(dataclasses.FrozenInstanceError):
            toy.labels = None

    def test_errors(self):
        with pytest.raises(TypeError):
            ToySample(probs=np.ones((1, 2)) / 2)  # true_probs is required


class TestAllVsTopLabelExample:
    @pytest.mark.parametrize("tau", [0.01, 0.03, 0.05])
    def test_main(self, tau):
        ex = all_vs_top_label_example(tau)
        assert ex.probs.shape == ex.true_probs.shape == (3, 4) and ex.labels is None
        assert ex.true_probs.sum(axis=1) == pytest.approx(np.ones(3), abs=1e-15)
        assert ex.true_probs.min() >= 0
        for eps in (0.0, 1 / 30):  # exact values, and the paper's 15 bins
            assert all_label_ece(ex.probs, ex.true_probs, epsilon=eps) == pytest.approx(0.0, abs=1e-15)
            assert acce(ex.probs, ex.true_probs, epsilon=eps) == pytest.approx(0.0, abs=1e-15)
            assert ece(ex.probs, ex.true_probs, epsilon=eps) == pytest.approx(tau / 3, abs=1e-15)
            assert ecce(ex.probs, ex.true_probs, epsilon=eps) == pytest.approx(tau / 3, abs=1e-15)

    def test_equations_44_45(self):
        ex = all_vs_top_label_example(0.02)
        # Eq. 44: for every class and predicted value, predicted and true mass agree
        for j in range(4):
            for value in np.unique(ex.probs[:, j]):
                rows = ex.probs[:, j] == value
                assert ex.probs[rows, j].sum() == pytest.approx(ex.true_probs[rows, j].sum(), abs=1e-15)
        # Eq. 45: the top-label region p = 0.4, j = 2 (0-based class 1) holds region 2 only
        top = (ex.probs.argmax(1) == 1) & (ex.probs[:, 1] == 0.4)
        assert top.tolist() == [False, True, False]
        assert ex.probs[top, 1].sum() - ex.true_probs[top, 1].sum() == pytest.approx(-0.02, abs=1e-15)
        # globally all-label calibrated, not globally top-label calibrated (Sec. 4.1)
        assert global_calibration_gap(ex.probs, ex.true_probs) == pytest.approx(np.zeros(4), abs=1e-15)
        assert global_top_label_gap(ex.probs, ex.true_probs) == pytest.approx(-0.02 / 3, abs=1e-15)

    def test_errors(self):
        for bad in (0, -0.01, 0.06, "x", None):
            with pytest.raises(ValueError, match="tau"):
                all_vs_top_label_example(bad)


class TestCalibratedMembersEnsemble:
    def test_main(self):
        toy = calibrated_members_ensemble(200_000, seed=0)
        n, m, k = toy.ens_probs.shape
        assert (n, m, k) == (200_000, 10, 4)
        # (np.abs on large arrays: pytest.approx is slow on millions of elements)
        assert np.abs(toy.probs - toy.ens_probs.mean(axis=1)).max() <= 1e-15
        assert np.abs(toy.ens_probs.sum(axis=2) - 1).max() <= 1e-12
        # the ensemble is not calibrated: ACE ≈ 0.0697 (Example 2); Monte-Carlo sd at this N is ≈ 3e-4
        assert all_label_ece(toy.probs, toy.true_probs) == pytest.approx(0.0697, abs=1.5e-3)
        assert all_label_ece(toy.probs, toy.true_probs, epsilon=0.005) == pytest.approx(0.0697, abs=1.5e-3)
        assert all_label_ece(toy.probs, toy.labels) == pytest.approx(0.0697, abs=2.5e-3)

    def test_members_are_calibrated(self):
        """Every member is exactly calibrated against the true distribution, for any ε."""
        toy = calibrated_members_ensemble(20_000, seed=5)
        for j in (0, 9):
            for fn in CRITERIA:
                for eps in (0.0, 1 / 30, 0.3, 1.0):
                    assert fn(toy.ens_probs[:, j], toy.true_probs, epsilon=eps) < 1e-12

    def test_figure4_global_limit(self):
        """Fig. 4: the ensemble's ACE vanishes at ε = 1 (Prop. 2) but its ECE does not (Prop. 4)."""
        toy = calibrated_members_ensemble(50_000, seed=1)
        assert all_label_ece(toy.probs, toy.true_probs, epsilon=1.0) == pytest.approx(0.0, abs=1e-14)
        assert ece(toy.probs, toy.true_probs, epsilon=1.0) > 0.1
        assert global_top_label_gap(toy.probs, toy.true_probs) < -0.1  # under-confident
        for j in range(10):
            assert ece(toy.ens_probs[:, j], toy.true_probs, epsilon=1.0) < 1e-12
        # ACE decreases from fine regions to the global one
        values = [all_label_ece(toy.probs, toy.true_probs, epsilon=e) for e in (0.005, 0.05, 0.25, 1.0)]
        assert values[0] > 0.06 and all(a >= b for a, b in zip(values, values[1:]))

    def test_global_ace_zero_for_every_predictor(self):
        """Fig. 4's "ACE → 0 at ε = 1/2" is true of any predictor (so it is a test, not a comparison row):
        with one region, ACE = |Σ_i Σ_j (p_ij − y_ij)| / (NK) and both rows sum to one."""
        rng = np.random.default_rng(7)
        p = rng.dirichlet(np.ones(5) * 0.3, size=1000)
        y = rng.integers(0, 5, 1000)
        assert all_label_ece(p, y, epsilon=0.5) == pytest.approx(0.0, abs=1e-12)
        assert ece(p, y, epsilon=0.5) > 0  # while the top-label error need not vanish

    def test_paper_scale(self):
        toy = calibrated_members_ensemble(**PAPER_ALG1, seed=2)
        assert toy.probs.shape == (1_000_000, 4)
        assert all_label_ece(toy.probs, toy.true_probs, epsilon=0.005) == pytest.approx(0.0697, abs=5e-4)
        assert all_label_ece(toy.probs, toy.labels, epsilon=0.005) == pytest.approx(0.0697, abs=1e-3)

    def test_shared_regions_and_seeding(self):
        """Proposition 3: members calibrated on the same regions give a calibrated ensemble."""
        toy = calibrated_members_ensemble(20_000, n_members=4, shared_regions=True, seed=3)
        assert (toy.ens_probs == toy.ens_probs[:, :1]).all()
        assert all_label_ece(toy.probs, toy.true_probs) < 1e-12
        a = calibrated_members_ensemble(1000, n_members=3, seed=7)
        b = calibrated_members_ensemble(1000, n_members=3, seed=np.random.default_rng(7))
        assert (a.ens_probs == b.ens_probs).all() and (a.labels == b.labels).all()
        assert not (calibrated_members_ensemble(1000, n_members=3, seed=8).probs == a.probs).all()

    def test_other_sizes(self):
        # N not a multiple of b: the last bin is averaged over its own size, members stay calibrated
        toy = calibrated_members_ensemble(1001, n_classes=3, n_members=2, bin_size=4, concentration=0.5, seed=4)
        assert toy.ens_probs.sum(axis=2) == pytest.approx(np.ones((1001, 2)), abs=1e-12)
        assert all_label_ece(toy.ens_probs[:, 1], toy.true_probs, epsilon=0) < 1e-12
        assert np.bincount(toy.labels, minlength=3).sum() == 1001
        # b = 1: members are the truth
        exact = calibrated_members_ensemble(100, bin_size=1, n_members=2, seed=0)
        assert (exact.probs == exact.true_probs).all()

    def test_errors(self):
        for kwargs, name in [
            ({"n_samples": 1}, "n_samples"),
            ({"n_classes": 1}, "n_classes"),
            ({"n_members": 0}, "n_members"),
            ({"bin_size": 0}, "bin_size"),
            ({"concentration": 0}, "concentration"),
            ({"concentration": "a"}, "concentration"),
        ]:
            with pytest.raises(ValueError, match=name):
                calibrated_members_ensemble(**{"n_samples": 10, **kwargs})


class TestPairedLabelPredictions:
    def test_main(self):
        toy = paired_label_predictions(100_000, seed=0)
        assert set(np.unique(toy.probs)) == {0.0, 0.5, 1.0}
        assert np.bincount(toy.labels).tolist() == [25_000] * 4
        assert (toy.true_probs == 0.25).all()
        # finite-sample ACE is exactly zero, for any region width (Example 3)
        for eps in (0.0, 1 / 30, 0.2, 1.0):
            assert all_label_ece(toy.probs, toy.labels, epsilon=eps) == 0.0
        # against the true distribution: 9/32 up to Monte-Carlo error (sd ≈ 5e-4 here)
        assert all_label_ece(toy.probs, toy.true_probs, epsilon=0) == pytest.approx(9 / 32, abs=3e-3)

    def test_other_sizes(self):
        toy = paired_label_predictions(30_000, n_classes=3, bin_size=3, seed=1)
        assert all_label_ece(toy.probs, toy.labels, epsilon=0) == pytest.approx(0.0, abs=1e-15)  # thirds round
        theory = paired_label_theoretical_ace(3, 3)
        assert all_label_ece(toy.probs, toy.true_probs, epsilon=0) == pytest.approx(theory, abs=5e-3)

    def test_errors(self):
        with pytest.raises(ValueError, match="multiple of n_classes"):
            paired_label_predictions(10, n_classes=4)
        with pytest.raises(ValueError, match="bin_size"):
            paired_label_predictions(8, bin_size=0)


class TestPairedLabelTheoreticalAce:
    def test_main(self):
        assert paired_label_theoretical_ace() == pytest.approx(9 / 32, abs=1e-15)  # Eq. 50
        assert paired_label_theoretical_ace(5, 1) == pytest.approx(2 * 4 / 25, abs=1e-15)

    @pytest.mark.parametrize("k,b", [(2, 2), (3, 3), (4, 2), (4, 3)])
    def test_enumeration(self, k, b):
        """Eq. 49 by enumerating every label tuple of a bin (each has probability K^-b)."""
        # ACE = (1/K) Σ_p |Σ_j (p - 1/K) P(B_p)|, P(B_p) the same for every class j
        probs = {}
        for bin_labels in itertools.product(range(k), repeat=b):
            value = bin_labels.count(0) / b
            probs[value] = probs.get(value, 0.0) + k ** (-b)
        expected = sum(abs(k * (p - 1 / k) * q) for p, q in probs.items()) / k
        assert paired_label_theoretical_ace(k, b) == pytest.approx(expected, abs=1e-14)

    def test_errors(self):
        with pytest.raises(ValueError, match="n_classes"):
            paired_label_theoretical_ace(1)
        with pytest.raises(ValueError, match="bin_size"):
            paired_label_theoretical_ace(4, 0)


class TestAlg1SeedSpread:
    def test_main(self):
        """Seed k's draw is the App. A.3 toy of seed k: its truth ACE is appendix_toys' alg1_ace, its label ACE the
        all-label ECE of that toy against its sampled labels; a window of seeds starting later reuses the same draws."""
        from credalbook.papers.wu_gales import alg1_seed_spread, appendix_toys

        out = alg1_seed_spread(2000, n_seeds=3, seed=1)
        assert out["seeds"] == (1, 2, 3) and out["n_samples"] == 2000
        assert out["labels"].shape == out["truth"].shape == (3,)
        assert out["truth"][0] == pytest.approx(appendix_toys(2000, 200, seed=1).alg1_ace, abs=1e-12)
        toy = calibrated_members_ensemble(2000, seed=2)
        assert out["labels"][1] == pytest.approx(all_label_ece(toy.probs, toy.labels, epsilon=1 / 30), abs=1e-12)
        np.testing.assert_array_equal(alg1_seed_spread(2000, n_seeds=2, seed=2)["truth"], out["truth"][1:])
        assert np.all(out["labels"] != out["truth"])  # the sampled labels add their own noise

    def test_spread_shrinks(self):
        """The ACE against the truth concentrates as N grows (seed-to-seed spread about 1/√N)."""
        from credalbook.papers.wu_gales import alg1_seed_spread

        small, large = (alg1_seed_spread(n, n_seeds=5)["truth"].std(ddof=1) for n in (1000, 16000))
        assert large < small / 2

    def test_errors(self):
        from credalbook.papers.wu_gales import alg1_seed_spread

        for kwargs, name in (
            (dict(n_samples=1), "n_samples"),
            (dict(n_samples=100, n_seeds=1), "n_seeds"),
            (dict(n_samples=100, seed=-1), "seed"),
            (dict(n_samples=100, seed=1.5), "seed"),
        ):
            with pytest.raises(ValueError, match=name):
                alg1_seed_spread(**kwargs)
