"""Tests for credalbook.papers.eu.experiments (the EU paper's Secs. 5.2-5.4 at tiny sizes)."""

import dataclasses
import hashlib
import math

import numpy as np
import pytest

from credalbook.gp import fit_gp_classifier
from credalbook.metrics import eu_reliability, evaluate_eu, fit_eu_calibration, interval_cuts
from credalbook.papers.eu import (
    assemble_eu_run,
    EU_ESTIMATORS,
    EU_METRICS,
    EU_PAPER_TABLE1,
    EU_PAPER_TABLE2,
    EU_ROLES,
    EUFit,
    EUIntervalCurves,
    EURun,
    EUStudy,
    run_eu_experiment,
    toy_eu_experiment,
    toy_eu_splits,
    toy_eu_study,
    toy_noise_summary,
)
from credalbook.papers.report import Table

GP = dict(n_inducing=16, epochs=2, batch_size=512, lr=0.05, natural_gradient=True)
DISCS = dict(shape=(2, 1), radius=1.6, p_train=(0.0, 0.6), q_test=0.15)
TOY = dict(window=(8, 8), evaluation=DISCS, calibration=DISCS, gp=GP, n_samples=200, device="cpu")


@pytest.fixture(scope="module")
def toy():
    return toy_eu_splits(seed=0, window=(8, 8), evaluation=DISCS, calibration=DISCS)


@pytest.fixture(scope="module")
def run(toy):
    return run_eu_experiment(
        toy.x, toy.y, toy.evaluation, toy.calibration, gp=GP, n_samples=200, seed=0, cache=False, device="cpu"
    )


class TestRunEUExperiment:
    def test_main(self, toy, run):
        assert isinstance(run, EURun) and run.seed == 0
        t, t2 = len(toy.evaluation.test), len(toy.calibration.test)
        np.testing.assert_array_equal(run.test_index, toy.evaluation.test)
        np.testing.assert_array_equal(run.calibration_test_index, toy.calibration.test)
        assert run.sizes == {
            "train": len(toy.evaluation.train),
            "test": t,
            "aug": len(toy.evaluation.aug),
            "train_2": len(toy.calibration.train),
            "test_2": t2,
            "aug_2": len(toy.calibration.aug),
        }
        for k in EU_ESTIMATORS:
            assert run.eu[k].shape == (t,) and run.calibration_eu[k].shape == (t2,)
            assert run.evaluations[k].reliability.counts.sum() == t and len(run.evaluations[k].reliability.counts) == 20
            for m in EU_METRICS:
                assert math.isfinite(run.metric(k, m))
        assert set(np.unique(run.gain)) <= {-1, 0, 1} and set(np.unique(run.calibration_gain)) <= {-1, 0, 1}
        assert (run.eu["M"] >= 0).all() and (run.eu["M"] <= run.eu["E"] + 1e-12).all()
        assert (run.eu["E"] <= math.log(2) + 1e-12).all()
        assert all(0.0 <= a <= 1.0 for a in run.accuracy.values()) and run.fit_seconds > 0

    def test_agrees_with_direct_calls(self, toy, run):
        x, y, ev, cal = toy.x, toy.y, toy.evaluation, toy.calibration
        fits = {
            name: fit_gp_classifier(x[idx], y[idx], **GP, seed=0, device="cpu")
            for name, idx in (("tr", ev.train), ("aug", ev.aug), ("tr2", cal.train), ("aug2", cal.aug))
        }
        est = fits["tr"].eu_estimates(x[ev.test], n_samples=200, seed=0, device="cpu")
        est2 = fits["tr2"].eu_estimates(x[cal.test], n_samples=200, seed=0, device="cpu")
        np.testing.assert_array_equal(run.eu["M"], est.mutual_information)  # bit for bit
        np.testing.assert_array_equal(run.eu["E"], est.entropy)
        gain = (fits["aug"].predict(x[ev.test], device="cpu") == y[ev.test]).astype(int) - (est.pred == y[ev.test])
        gain2 = (fits["aug2"].predict(x[cal.test], device="cpu") == y[cal.test]).astype(int) - (
            est2.pred == y[cal.test]
        )
        np.testing.assert_array_equal(run.gain, gain)
        np.testing.assert_array_equal(run.calibration_gain, gain2)
        for k, raw, raw2 in (("M", est.mutual_information, est2.mutual_information), ("E", est.entropy, est2.entropy)):
            edges = interval_cuts(raw, n_bins=20)
            gamma = fit_eu_calibration(raw2, gain2, cuts=edges)
            ev_direct = evaluate_eu(raw, gain, cuts=edges, calibration=gamma)
            for m in EU_METRICS:
                assert run.metric(k, m) == getattr(ev_direct, m)
            np.testing.assert_array_equal(run.maps[k].bin_gain, gamma.bin_gain)
            bits = eu_reliability(raw / math.log(2), gain, bin_by=raw, cuts=edges).eece
            assert run.eece_bits[k] == pytest.approx(bits, abs=1e-12)
            # entropies in bits change only the raw EECE: the same intervals and ranks
            assert run.evaluations[k].rho_epi == pytest.approx(evaluate_eu(raw / math.log(2), gain).rho_epi, abs=1e-12)

    def test_reproducible(self, toy, run):
        again = run_eu_experiment(
            toy.x, toy.y, toy.evaluation, toy.calibration, gp=GP, n_samples=200, seed=0, cache=False, device="cpu"
        )
        for k in EU_ESTIMATORS:
            np.testing.assert_array_equal(again.eu[k], run.eu[k])
            assert [again.metric(k, m) for m in EU_METRICS] == [run.metric(k, m) for m in EU_METRICS]
        np.testing.assert_array_equal(again.gain, run.gain)
        other = run_eu_experiment(
            toy.x, toy.y, toy.evaluation, toy.calibration, gp=GP, n_samples=200, seed=1, cache=False, device="cpu"
        )
        assert not np.array_equal(other.eu["E"], run.eu["E"])

    def test_calibration_on_the_evaluation_data(self, toy):
        """With D_test,2 = D_test, γ is fitted on the evaluation gains themselves; then γ(Ê) must be at
        least as close to the interval gains as Ê in weighted L2 (the isotonic fit is the L2 projection
        of the interval gains onto non-decreasing sequences in [0, 1], and the interval means of the
        raw estimates are such a sequence)."""
        same = run_eu_experiment(
            toy.x, toy.y, toy.evaluation, toy.evaluation, gp=GP, n_samples=200, seed=0, cache=False, device="cpu"
        )
        np.testing.assert_array_equal(same.calibration_gain, same.gain)
        for k in EU_ESTIMATORS:
            ev = same.evaluations[k]
            rel, cal = ev.reliability, ev.calibrated_reliability
            np.testing.assert_allclose(same.maps[k].bin_gain, rel.mean_gain)
            w = rel.counts / rel.counts.sum()
            l2_raw = np.sum(w * (rel.mean_gain - rel.mean_eu) ** 2)
            l2_cal = np.sum(w * (cal.mean_gain - cal.mean_eu) ** 2)
            assert l2_cal <= l2_raw + 1e-12
            # γ is constant on each interval (isotonic regression of interval-constant targets)
            idx = np.searchsorted(rel.cuts, same.eu[k], side="right")
            gam = same.maps[k](same.eu[k])
            for m in range(20):
                assert np.ptp(gam[idx == m]) < 1e-9
        # the raw entropy is far above the gains, the calibrated one is not
        assert same.metric("E", "calibrated_eece") < same.metric("E", "eece")

    def test_test_keep(self, toy, run):
        keep = np.arange(len(toy.evaluation.test)) % 3 != 0
        sub = run_eu_experiment(
            toy.x,
            toy.y,
            toy.evaluation,
            toy.calibration,
            gp=GP,
            n_samples=200,
            seed=0,
            test_keep=keep,
            cache=False,
            device="cpu",
        )
        np.testing.assert_array_equal(sub.test_index, toy.evaluation.test[keep])
        np.testing.assert_array_equal(sub.gain, run.gain[keep])  # the same four GPs
        np.testing.assert_array_equal(sub.calibration_eu["E"], run.calibration_eu["E"])
        assert sub.sizes["test"] == keep.sum()

    def test_cached_fits(self, toy, run, tmp_cache):
        a = run_eu_experiment(toy.x, toy.y, toy.evaluation, toy.calibration, gp=GP, n_samples=200, seed=0, device="cpu")
        assert any(tmp_cache.rglob("output.pkl"))
        b = run_eu_experiment(toy.x, toy.y, toy.evaluation, toy.calibration, gp=GP, n_samples=200, seed=0, device="cpu")
        for k in EU_ESTIMATORS:
            np.testing.assert_array_equal(a.eu[k], run.eu[k])
            np.testing.assert_array_equal(b.eu[k], run.eu[k])
        assert b.fit_seconds == a.fit_seconds  # the recorded training time of the stored fits

    def test_eece_floor(self, run):
        """A calibrated estimator (gain ~ Bernoulli(Ê)) has an average EECE close to the floor."""
        rng = np.random.default_rng(0)
        eu = rng.uniform(0.0, 0.3, size=4000)  # 200 points per interval: the normal approximation holds
        eeces, floors = [], []
        for _ in range(200):
            gain = (rng.random(eu.shape[0]) < eu).astype(np.int64)
            ev = evaluate_eu(eu, gain)
            fake = dataclasses.replace(run, eu={"M": eu, "E": eu}, gain=gain, evaluations={"M": ev, "E": ev})
            eeces.append(ev.eece)
            floors.append(fake.eece_floor("M"))
        assert np.mean(eeces) == pytest.approx(np.mean(floors), rel=0.1)

    def test_fits_of_other_rows_are_refused(self, toy):
        """A fit trained on other rows than the splits' is refused, even when every size matches (each latent
        would be paired with another point's label)."""
        from credalbook.papers.eu.experiments import _role_rows

        rng = np.random.default_rng(0)
        ev, cal, n = toy.evaluation, toy.calibration, len(toy.y)

        def fits(evaluation):
            out = {}
            for role in EU_ROLES:
                train, test = _role_rows(evaluation, cal, role, n)
                key = hashlib.sha1(np.asarray(train, dtype=np.int64).tobytes()).hexdigest()  # as recorded parts hold
                out[role] = EUFit(role, rng.normal(size=len(test)), rng.uniform(0.1, 2, len(test)), key, 1.0)
            return out

        good = fits(ev)
        assert set(assemble_eu_run(toy.y, ev, cal, good, n_bins=2, n_samples=50).evaluations) == set(EU_ESTIMATORS)
        # the same sizes, one training row swapped for a carved-out one (test rows unchanged)
        other = dataclasses.replace(ev, train=np.sort(np.r_[ev.train[1:], ev.aug_only[:1]]))
        assert len(other.train) == len(ev.train) and len(ev.aug_only) > 0
        with pytest.raises(ValueError, match=r"fits\['train'\] was trained on other rows than the 'train' rows"):
            assemble_eu_run(toy.y, other, cal, good, n_bins=2, n_samples=50)
        assemble_eu_run(toy.y, other, cal, {**good, "train": fits(other)["train"]}, n_bins=2, n_samples=50)

    def test_errors(self, toy, run):
        args = (toy.x, toy.y, toy.evaluation, toy.calibration)
        with pytest.raises(ValueError, match="calibration must be a BallSplit"):
            run_eu_experiment(toy.x, toy.y, toy.evaluation, "nope", gp=GP, cache=False)
        with pytest.raises(ValueError, match=r"gp must not set \['seed'\]"):
            run_eu_experiment(*args, gp=dict(GP, seed=3), cache=False)
        with pytest.raises(ValueError, match="test_keep must be a boolean mask"):
            run_eu_experiment(*args, gp=GP, test_keep=np.ones(3, dtype=bool), cache=False)
        with pytest.raises(ValueError, match="at least n_bins = 100000"):
            run_eu_experiment(*args, gp=GP, n_bins=100000, cache=False)
        with pytest.raises(ValueError, match="y shape"):
            run_eu_experiment(toy.x, toy.y[:-1], toy.evaluation, toy.calibration, gp=GP, cache=False)
        with pytest.raises(ValueError, match="estimator must be one of"):
            run.metric("X", "eece")


class TestToyExperiments:
    def test_splits(self, toy):
        assert (toy.x[:, 0] < 8.5).all() and (toy.x[:, 1] < 8.5).all()
        np.testing.assert_array_equal(toy.x, toy.data.x[toy.rows])
        assert len(toy.evaluation_layout.centres) == 2 and toy.evaluation_layout.radius == 1.6
        # evaluation discs in the lower half of the window, calibration discs carved from D_train above
        assert (toy.x[toy.evaluation.test, 1] < 4.5).all() and (toy.x[toy.calibration.test, 1] > 4.5).all()
        assert np.isin(toy.calibration.aug, toy.evaluation.train).all()
        p = toy.data.bayes_probability(toy.x)
        np.testing.assert_allclose(toy.aleatoric, np.minimum(p, 1 - p))

    def test_low_aleatoric_variant(self, toy):
        run = toy_eu_experiment(0, low_aleatoric_discs=[1], aleatoric_threshold=0.1, cache=False, **TOY)
        test = toy.evaluation.test
        drop = (toy.evaluation.test_ball == 1) & (toy.aleatoric[test] < 0.1)
        assert 0 < drop.sum() < (toy.evaluation.test_ball == 1).sum()
        np.testing.assert_array_equal(run.test_index, test[~drop])
        with pytest.raises(ValueError, match=r"disc indices in \[0, 2\)"):
            toy_eu_experiment(0, low_aleatoric_discs=[2], cache=False, **TOY)

    def test_study(self, tmp_cache):
        study = toy_eu_study(2, progress=False, **TOY)
        assert isinstance(study, EUStudy) and study.seeds == [0, 1] and study.config["seeds"] == [0, 1]
        direct = [toy_eu_experiment(s, **TOY) for s in (0, 1)]  # loads the cached fits
        s = study.summary()
        for k in EU_ESTIMATORS:
            for m in EU_METRICS:
                values = [r.metric(k, m) for r in direct]
                np.testing.assert_array_equal(study.values(k, m), values)
                assert s[k][m] == pytest.approx((np.mean(values), np.std(values, ddof=1)))
            curves = study.curves(k)
            assert isinstance(curves, EUIntervalCurves) and curves.raw.shape == curves.gain.shape == (2, 20)
            np.testing.assert_allclose(
                curves.mean("gain"), np.mean([r.evaluations[k].reliability.mean_gain for r in direct], axis=0)
            )
            np.testing.assert_allclose(curves.sd("calibrated"), np.std(curves.calibrated, axis=0, ddof=1))
        table = study.table()
        assert isinstance(table, Table) and list(table.rows) == ["Ê_M", "Ê_E"]
        assert table.columns == ["ρ_epi", "EECE", "Calib. EECE"] and " ± " in table.rows["Ê_M"]["EECE"]
        values = study.seed_values()
        for k in EU_ESTIMATORS:
            assert values[k]["eece_bits"] == [r.eece_bits[k] for r in direct]
            for m in EU_METRICS:
                assert values[k][m] == [r.metric(k, m) for r in direct]
        # judged with the standard errors of the two means (paper: sd / √paper_seeds)
        mirror = {k: {m: (s[k][m][0], 0.01) for m in EU_METRICS} for k in EU_ESTIMATORS}
        out = study.compare(mirror, paper_seeds=6)
        assert all(
            j.verdict in ("agrees", "inconclusive") and j.replicates == 2
            for row in out.values()
            for (_, _, j) in row.values()
        )
        far = {k: {m: (s[k][m][0] + 10.0, 0.001) for m in EU_METRICS} for k in EU_ESTIMATORS}
        assert all(j.verdict == "differs" for row in study.compare(far).values() for (_, _, j) in row.values())
        excess = study.curves("M").excess()
        np.testing.assert_allclose(
            excess,
            [
                np.nanmean(r.evaluations["M"].reliability.mean_eu - r.evaluations["M"].reliability.mean_gain)
                for r in direct
            ],
        )
        with pytest.raises(ValueError, match="which must be 'raw' or 'calibrated'"):
            study.curves("M").excess("gain")
        with pytest.raises(ValueError, match="seeds must name at least one seed"):
            toy_eu_study([], progress=False, **TOY)

    def test_variant1_leaves_the_evaluation_unchanged(self, tmp_cache):
        """By construction (same evaluation carving, the same f_tr and f_aug, the same Monte-Carlo seed), mismatch
        variant 1 changes only the calibration map: ρ_epi and the raw EECE are those of the Sec. 5.3 layout. The
        chapter's comparison therefore has no row for them (Sec. 5.3.2)."""
        base = toy_eu_experiment(0, **TOY)
        v1 = toy_eu_experiment(0, **{**TOY, "calibration": dict(DISCS, shape=(1, 1), radius=1.9)})
        np.testing.assert_array_equal(v1.test_index, base.test_index)
        for k in EU_ESTIMATORS:
            np.testing.assert_array_equal(v1.eu[k], base.eu[k])
            assert v1.metric(k, "rho_epi") == base.metric(k, "rho_epi") and v1.metric(k, "eece") == base.metric(
                k, "eece"
            )
        assert not np.array_equal(v1.calibration_test_index, base.calibration_test_index)

    def test_noise_summary(self):
        loud, quiet = toy_noise_summary(1.0, subsample=20000), toy_noise_summary(0.3, subsample=20000)
        assert 0.60 < loud["Bayes accuracy"] < 0.65 and 0.89 < quiet["Bayes accuracy"] < 0.93
        assert loud["Bayes accuracy"] + loud["mean aleatoric"] == pytest.approx(1.0)
        assert loud["mean Bayes entropy (bits)"] == pytest.approx(loud["mean Bayes entropy (nats)"] / math.log(2))
        assert quiet["mean Bayes entropy (nats)"] < 0.25 < 0.6 < loud["mean Bayes entropy (nats)"]

    def test_paper_tables(self):
        assert EU_PAPER_TABLE1["E"]["eece"] == (0.393, 0.014) and EU_PAPER_TABLE1["M"]["rho_epi"] == (0.108, 0.023)
        assert set(EU_PAPER_TABLE2) == {"EMNIST", "K-49"} and EU_PAPER_TABLE2["K-49"]["E"]["calibrated_eece"] == (
            0.0043,
            0.001,
        )
