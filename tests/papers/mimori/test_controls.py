"""The controls of the Mimori et al. chapter: closed forms against simulations and direct minimisations."""

import numpy as np
import pytest
from scipy.optimize import minimize_scalar
from scipy.special import softmax

from credalbook.calibration import dirichlet_multinomial_nll, TemperatureScaling
from credalbook.metrics import epistemic_loss, statistic_squared_loss
from credalbook.papers.mimori import (
    alpha_control_rows,
    best_constant_alpha0,
    compare,
    constant_alpha0,
    constant_alpha0_posterior_el,
    constant_dpe_shrinkage,
    ensemble_temperature_scan,
    evaluate_predictors,
    MimoriPredictions,
    optimal_log_alpha0,
    PredictorOutputs,
    SharedTemperatureEnsembleScaling,
)
from tests.papers.mimori.test_compare import _boot, _metrics, _results


def _world(n=200_000, seed=0):
    """Q on the 3-simplex, a noisy CPE Z, one label Y ~ Cat(Q)."""
    rng = np.random.default_rng(seed)
    q = rng.dirichlet([0.7, 0.7, 0.7], size=n)
    z = 0.6 * q + 0.4 * rng.dirichlet([1.0, 1.0, 1.0], size=n)
    y = np.eye(3)[(rng.random(n)[:, None] > np.cumsum(q, axis=1)).sum(axis=1)]
    return q, z, y


class TestConstantAlpha0:
    def test_main(self):
        """EL' = γ²·EL + (1 − γ)²·ū_Q against the simulated posterior (Eq. 19) of a constant α0."""
        q, z, y = _world()
        el, u = ((q - z) ** 2).sum(axis=1).mean(), (1 - (q**2).sum(axis=1)).mean()
        for a0 in (0.3, 1.0, 4.0):
            post = (a0 * z + y) / (a0 + 1)
            sq = ((q - post) ** 2).sum(axis=1)
            assert abs(constant_alpha0_posterior_el(el, u, a0) - sq.mean()) < 4 * sq.std() / np.sqrt(len(sq))
        assert constant_alpha0_posterior_el(el, u, np.inf) == pytest.approx(el)

    def test_best(self):
        """The closed-form optimum against a bounded search over α0."""
        for el, u in ((0.1258, 0.0998), (0.0388, 0.0998), (0.2, 0.01)):
            a0, best = best_constant_alpha0(el, u)
            res = minimize_scalar(
                lambda t: constant_alpha0_posterior_el(el, u, np.exp(t)), bounds=(-10, 10), method="bounded"
            )
            assert float(best) == pytest.approx(res.fun, rel=1e-7) and float(a0) == pytest.approx(
                np.exp(res.x), rel=1e-3
            )
        assert float(best_constant_alpha0(0.1258, 0.0998)[1]) == pytest.approx(0.1258 * 0.0998 / (0.1258 + 0.0998))
        assert np.isinf(best_constant_alpha0(0.0, 0.1)[0])

    def test_errors(self):
        with pytest.raises(ValueError, match="el"):
            constant_alpha0_posterior_el(-0.1, 0.1, 1.0)
        with pytest.raises(ValueError, match="u_q"):
            best_constant_alpha0(0.1, np.nan)
        with pytest.raises(TypeError, match="alpha0"):
            constant_alpha0_posterior_el(0.1, 0.1, "one")


class TestConstantAlpha0Fit:
    """constant_alpha0: one α0 for every instance, fitted by α-calibration's objective (Eq. 50)."""

    def test_one_instance_is_the_newton_optimum(self):
        """For one instance the constant is the per-instance optimum: Brent on Eq. 50 against Newton on Eq. 51."""
        rng = np.random.default_rng(1)
        for n_labels in (2, 5, 9):
            p = rng.dirichlet(np.ones(4), size=1)
            y = rng.multinomial(n_labels, p[0])[None]
            for reg in (0.005, 0.05):
                t = optimal_log_alpha0(p, y, reg=reg)[0]
                assert np.log(constant_alpha0(p, y, reg=reg)) == pytest.approx(t, abs=1e-6)

    def test_recovers_the_generating_concentration(self):
        """Labels from DirMult(α0* f) with α0* = 3: the unpenalised fit recovers α0* (N = 20 000, five labels each)."""
        rng = np.random.default_rng(0)
        f = rng.dirichlet(np.full(3, 2.0), size=20_000)
        y = np.stack([rng.multinomial(5, rng.dirichlet(3.0 * fi)) for fi in f])
        assert constant_alpha0(f, y, reg=0.0) == pytest.approx(3.0, rel=0.08)

    def test_minimises_the_objective(self):
        """The returned t is below every point of a grid of the objective (variable label counts)."""
        rng = np.random.default_rng(2)
        f = rng.dirichlet(np.ones(3), size=300)
        y = np.stack([rng.multinomial(1 + rng.poisson(2), rng.dirichlet(2.0 * fi)) for fi in f])
        t = np.log(constant_alpha0(f, y))
        grid = np.linspace(t - 2, t + 2, 81)
        values = [dirichlet_multinomial_nll(f, y, g) for g in grid]
        assert dirichlet_multinomial_nll(f, y, t) <= min(values) + 1e-12

    def test_errors(self):
        with pytest.raises(ValueError, match="reg"):
            constant_alpha0([[0.5, 0.5]], [[1, 1]], reg=-1.0)
        with pytest.raises(ValueError, match="two labels or more"):
            constant_alpha0([[0.5, 0.5]], [[1, 0]], reg=0.0)
        with pytest.raises(ValueError, match="same number of instances"):
            constant_alpha0([[0.5, 0.5]], [[1, 1], [2, 0]])
        with pytest.raises(ValueError, match="xatol"):
            constant_alpha0([[0.5, 0.5]], [[1, 1]], xatol=0.0)


class TestConstantDpeShrinkage:
    def test_main(self):
        """The least-squares factor minimises L̂φ (Eq. 40) of γ·φ: against a scalar search."""
        rng = np.random.default_rng(1)
        q = rng.dirichlet([0.5, 0.5, 0.5], size=3000)
        hist = np.stack([rng.multinomial(rng.integers(1, 6), p) for p in q])
        dpe = np.clip(1 - (q**2).sum(axis=1) + 0.2, 0, 1)
        g = constant_dpe_shrinkage(dpe, hist)
        res = minimize_scalar(lambda t: statistic_squared_loss(t * dpe, hist), bounds=(0, 1), method="bounded")
        assert g == pytest.approx(res.x, abs=1e-4) and 0 < g < 1

    def test_errors(self):
        with pytest.raises(ValueError, match="dpe"):
            constant_dpe_shrinkage([1.5, 0.2], [[2, 0], [1, 1]])
        with pytest.raises(ValueError, match="label_hist"):
            constant_dpe_shrinkage([0.5, 0.2], [[2, 0]])
        with pytest.raises(ValueError, match="zero"):
            constant_dpe_shrinkage([0.0, 0.0], [[2, 0], [1, 1]])


class TestSharedTemperatureEnsembleScaling:
    def test_main(self):
        """One member: the temperature of TemperatureScaling; identical members: the same temperature."""
        rng = np.random.default_rng(2)
        s = 2 * rng.normal(size=(2000, 3))
        y = np.array([rng.choice(3, p=p) for p in softmax(s, axis=1)])
        z = 2.5 * s
        t_one = TemperatureScaling().fit(z, y).temperature
        assert SharedTemperatureEnsembleScaling().fit(z[:, None], y).temperature == pytest.approx(t_one, rel=1e-5)
        assert SharedTemperatureEnsembleScaling().fit(np.repeat(z[:, None], 3, axis=1), y).temperature == pytest.approx(
            t_one, rel=1e-5
        )

    def test_softer_than_member_wise(self):
        """Members spread around a calibrated mean: the mean is softer, so its temperature is below the members'."""
        rng = np.random.default_rng(3)
        s = 2 * rng.normal(size=(3000, 3))
        y = np.array([rng.choice(3, p=p) for p in softmax(s, axis=1)])
        members = 2 * s[:, None, :] + 1.5 * rng.normal(size=(3000, 10, 3))
        t_members = TemperatureScaling().fit(members.reshape(-1, 3), np.repeat(y, 10)).temperature
        assert SharedTemperatureEnsembleScaling().fit(members, y).temperature < t_members


def _predictions(seed=0):
    """A small MimoriPredictions with MCDO member logits."""
    rng = np.random.default_rng(seed)
    q = rng.dirichlet(np.ones(3), size=300)
    hist = np.stack([rng.multinomial(5, p) for p in q])
    lg = np.log(q)[:, None, :] * 2 + 0.3 * rng.normal(size=(300, 4, 3))
    ens = softmax(lg, axis=2)
    out = PredictorOutputs(ens.mean(axis=1), 1 - (ens**2).sum(axis=2).mean(axis=1))
    return MimoriPredictions(
        "demo", (5,), q, {5: hist}, hist[:, :1], {(5, "MCDO"): out}, {}, None, member_logits={"MCDO": lg}
    )


class TestEnsembleTemperatureScan:
    def test_main(self):
        """At T = 1 the scan gives the ensemble's own ÊL; at T = 2 that of the members divided by 2."""
        pred = _predictions()
        scan = ensemble_temperature_scan(pred, 5, base="MCDO", temperatures=(1.0, 2.0))
        assert scan[1.0]["EL"] == pytest.approx(evaluate_predictors(pred, 5)["MCDO"]["EL"], rel=1e-12)
        probs = softmax(pred.member_logits["MCDO"] / 2, axis=2).mean(axis=1)
        assert scan[2.0]["EL"] == pytest.approx(epistemic_loss(probs, pred.test_hist[5]), rel=1e-12)

    def test_errors(self):
        pred = _predictions()
        with pytest.raises(ValueError, match="base"):
            ensemble_temperature_scan(pred, 5, base="TTA", temperatures=(1.0,))
        with pytest.raises(ValueError, match="temperatures"):
            ensemble_temperature_scan(pred, 5, base="MCDO", temperatures=(0.0,))


def _with_controls(ens_el, gamma_phi=None, alpha0_phi=None, conv_phi=None, level_phi=None, mass_phi=None, det_phi=None):
    """Results with the controls: MCDO+ts(ens) / TTA+ts(ens) at ÊL `ens_el` (ĈL as the base's), X+γ at L̂φ, ĈEφ
    `gamma_phi` (None: the base's) and, when `alpha0_phi` is given, X+α0 at those L̂φ, ĈEφ; `mass_phi`: ĈEφ with
    equal-mass bins, ``{family: (X+α's, X+γ's)}`` for the bases of each family (Raw..., MCDO..., TTA...); `det_phi`:
    X+α(det.) at those L̂φ, ĈEφ for the ensembles' bases (MCDO..., TTA...)."""
    metrics = {c: _metrics() for c in (2, 5, "variable")}
    for m in metrics.values():
        for n in m:
            m[n]["U_Q"] = 0.1
            if mass_phi is not None:
                m[n]["CE_phi mass"] = mass_phi[n.split("+")[0]][0] if n.endswith("+α") else 0.5
    controls = {}
    for c, m in metrics.items():
        controls[c] = {
            f"{b}+ts(ens)": dict(m[b], EL=ens_el, CL=m[b]["CL"] * 0.5, **{"EL post": ens_el}) for b in ("MCDO", "TTA")
        }
        for n in [n for n in m if not n.endswith("+α")]:
            lp, cp = gamma_phi if gamma_phi is not None else (m[n]["L_phi"], m[n]["CE_phi"])
            controls[c][n + "+γ"] = dict(m[n], L_phi=lp, CE_phi=cp)
            if mass_phi is not None:
                controls[c][n + "+γ"]["CE_phi mass"] = mass_phi[n.split("+")[0]][1]
            for suffix, phi in (
                ("+α0", alpha0_phi),
                ("+α(conv.)", conv_phi),
                ("+α+γ", level_phi),
                ("+α(det.)", det_phi),
            ):
                if phi is not None and (suffix != "+α(det.)" or not n.startswith("Raw")):
                    controls[c][n + suffix] = dict(m[n], L_phi=phi[0], CE_phi=phi[1])
    return _results(metrics=metrics, boot=_boot(metrics), controls=controls, controls_boot=_boot(controls))


class TestCompareWithControls:
    def test_ensemble_aware_cause(self):
        """Table 6's ts row: the ensembles' failure is shown caused when the ensemble-aware T lowers their ÊL."""
        row = compare(_with_controls(0.02)).rows[3]
        assert row.verdict == "differs — cause shown" and "ensembles and temperature" in row.cause
        row = compare(_with_controls(0.05)).rows[3]  # the ensemble-aware T raises ÊL too: no cause computed
        assert row.verdict == "differs — cause unknown" and row.cause == ""

    def test_alpha_against_constant_shrinkage(self):
        """α halves the DPE losses; a constant shrinkage that does better makes the α rows differ."""
        rows = compare(_with_controls(0.02)).rows[5:7]
        assert all(r.verdict == "agrees" and "constant shrinkage" in r.book for r in rows)
        rows = compare(_with_controls(0.02, gamma_phi=(0.01, 0.01))).rows[5:7]
        assert all(r.verdict == "differs — cause unknown" for r in rows)

    def test_alpha_against_a_constant_of_its_own_objective(self):
        """The α rows differ against γ: the cause is shown when the constant fitted by α's objective (X+α0) does not
        beat α, and stays unknown when it does."""
        rows = compare(_with_controls(0.02, gamma_phi=(0.01, 0.01), alpha0_phi=(0.5, 0.5))).rows[5:7]
        assert all(r.verdict == "differs — cause shown" and "α against a constant" in r.cause for r in rows)
        assert all("one α0 fitted by α's own objective (Eq. 50): 36 of 36 lower" in r.book for r in rows)
        rows = compare(_with_controls(0.02, gamma_phi=(0.01, 0.01), alpha0_phi=(0.01, 0.01))).rows[5:7]
        assert all(r.verdict == "differs — cause unknown" and r.cause == "" for r in rows)
        rows = compare(_with_controls(0.02, alpha0_phi=(0.01, 0.01))).rows[5:7]  # α beats γ: no cause to show
        assert all(r.verdict == "agrees" and r.cause == "" for r in rows)

    def test_alpha_candidate_causes(self):
        """α loses to γ; of the three candidates only those that stop differing are named: the head fitted to
        convergence (below γ), or α's DPEs at γ's level (equal to γ: inconclusive, not a difference)."""
        base = dict(gamma_phi=(0.01, 0.01), alpha0_phi=(0.005, 0.005))  # the objective candidate fails
        rows = compare(_with_controls(0.02, conv_phi=(0.005, 0.005), level_phi=(0.5, 0.5), **base)).rows[5:7]
        for r in rows:
            assert r.verdict == "differs — cause shown" and "fitting schedule" in r.cause
            assert "objective" not in r.cause and "overall level" not in r.cause
            assert "α's head fitted to convergence against γ: 36 of 36 lower" in r.book
        rows = compare(_with_controls(0.02, conv_phi=(0.5, 0.5), level_phi=(0.01, 0.01), **base)).rows[5:7]
        assert all("overall level" in r.cause and "fitting schedule" not in r.cause for r in rows)
        rows = compare(_with_controls(0.02, conv_phi=(0.5, 0.5), level_phi=(0.5, 0.5), **base)).rows[5:7]
        assert all(r.verdict == "differs — cause unknown" and r.cause == "" for r in rows)

    def test_alpha_binning_candidate(self):
        """The equal-mass candidate is judged on ĈEφ only, pair by pair, with a count per base family; it is named
        as the cause only when no pair of any family still differs."""
        base = dict(gamma_phi=(0.01, 0.01), alpha0_phi=(0.005, 0.005))  # the other candidates fail
        turned = {"Raw": (0.01, 0.02), "MCDO": (0.01, 0.02), "TTA": (0.01, 0.02)}
        lp, ce = compare(_with_controls(0.02, mass_phi=turned, **base)).rows[5:7]
        assert "equal-mass" not in lp.book and "binning" not in lp.cause  # L̂φ has no bins
        assert ce.verdict == "differs — cause shown" and "the binning of ĈEφ" in ce.cause
        assert "α against γ: 36 of 36 lower (36 agree" in ce.book and "Raw 12 of 12, MCDO 12 of 12" in ce.book
        half = dict(turned, MCDO=(0.03, 0.02))  # MC dropout's pairs still lose to γ
        ce = compare(_with_controls(0.02, mass_phi=half, **base)).rows[6]
        assert ce.verdict == "differs — cause unknown" and ce.cause == ""
        assert "24 of 36 lower" in ce.book and "Raw 12 of 12, MCDO 0 of 12, TTA 12 of 12" in ce.book
        ce = compare(_with_controls(0.02, **base)).rows[6]  # metrics without the equal-mass ĈEφ: no candidate
        assert "equal-mass" not in ce.book

    def test_alpha_causes_per_family(self):
        """Each base family with a pair that differs against γ must be covered by a candidate that holds on every pair
        of that family: the binning for the single network's pairs, the deterministic features for the ensembles'."""
        base = dict(gamma_phi=(0.01, 0.01), alpha0_phi=(0.005, 0.005))  # the objective candidate fails everywhere
        mass = {"Raw": (0.01, 0.02), "MCDO": (0.03, 0.02), "TTA": (0.03, 0.02)}  # the binning turns Raw only
        lp, ce = compare(_with_controls(0.02, mass_phi=mass, det_phi=(0.005, 0.005), **base)).rows[5:7]
        assert ce.verdict == "differs — cause shown"
        assert "Raw pairs: the binning of ĈEφ" in ce.cause and "MCDO pairs: the head's input" in ce.cause
        assert "TTA pairs: the head's input" in ce.cause and "Raw pairs: the head's input" not in ce.cause
        # MCDO+α(det.) − MCDO+γ = 0.005 − 0.01 for every pair; MCDO+α − MCDO+γ = 0.07 / 2 − 0.01
        assert "the mean difference over the family's pairs -0.0050, against +0.0250 for X+α − X+γ" in ce.cause
        assert "α0 from the deterministic features against γ: 24 of 24 lower" in ce.book
        assert lp.verdict == "differs — cause unknown"  # L̂φ: no candidate for the Raw pairs
        ce = compare(_with_controls(0.02, mass_phi=mass, det_phi=(0.5, 0.5), **base)).rows[6]
        assert ce.verdict == "differs — cause unknown" and ce.cause == ""  # the ensembles are left uncovered

    def test_posterior_against_best_constant(self):
        """Raw+α: ÊL 0.04 → 0.03; the best constant α0 gives 0.04·0.1/0.14 = 0.0286 < 0.03: differs."""
        row = compare(_with_controls(0.02)).rows[8]
        assert row.verdict == "differs — cause unknown" and "best constant α0: 0.0286" in row.book


class TestCompareSettings:
    def test_tta_setting(self):
        """The TTA row is judged on the named setting when the chapter gives one."""
        metrics = {c: {n: r for n, r in _metrics().items() if not n.startswith("TTA")} for c in (2, 5, "variable")}
        tta_m = {2: {n: r for n, r in _metrics().items() if n in ("Raw", "MCDO", "TTA")}}
        res = _results(
            metrics=metrics, boot=_boot(metrics), tta=dict(metrics=tta_m, boot=_boot(tta_m), setting="strong")
        )
        row = next(r for r in compare(res).rows if r.artifact == "Table 5 (Table 6)")
        assert row.verdict == "agrees" and "the TTA setting: strong" in row.note

    def test_mds_full(self):
        """Trained on every label: lower L̂sq, ÊL, L̂φ of Raw than the one-label network; α lowers the DPE losses."""
        one = _metrics()
        full = {n: dict(r, L_sq=r["L_sq"] - 0.01, EL=r["EL"] - 0.01, L_phi=r["L_phi"] - 0.01) for n, r in one.items()}
        mf = dict(
            metrics=full,
            boot=_boot({"v": full})["v"],
            base_metrics=one,
            base_boot=_boot({"v": one})["v"],
            train_labels=5.79,
        )
        rows = [r for r in compare(_results(mds_full=mf)).rows if r.artifact in ("Table 6 (MDS-full)", "Fig. 6")]
        assert [r.verdict for r in rows] == ["agrees", "agrees"] and "label replication" in rows[0].note
        mf["metrics"] = {n: dict(r, EL=r["EL"] + 0.01) for n, r in full.items()}
        mf["boot"] = _boot({"v": mf["metrics"]})["v"]
        assert compare(_results(mds_full=mf)).rows[-5].verdict == "differs — cause unknown"

    def test_seeds_in_the_note(self):
        assert "3 seeds pooled" in compare(_results(n_seeds=3)).rows[2].note
        assert "one seed" in compare(_results()).rows[2].note


class TestAlphaControlRows:
    @staticmethod
    def _pred(seed, shrink):
        """Raw with its α variant (DPE × 0.5), X+γ (× shrink) and X+α0 (α0 = 1: × 1/2) on one setting."""
        rng = np.random.default_rng(seed)
        q = rng.dirichlet(np.ones(3), size=400)
        hist = np.stack([rng.multinomial(5, p) for p in q])
        dpe = 1 - (q**2).sum(axis=1)
        preds = {
            (5, "Raw"): PredictorOutputs(q, dpe),
            (5, "Raw+α"): PredictorOutputs(q, 0.5 * dpe, alpha0=np.full(400, 2.0)),
        }
        controls = {
            (5, "Raw+γ"): PredictorOutputs(q, shrink * dpe),
            (5, "Raw+α0"): PredictorOutputs(q, 0.5 * dpe, alpha0=np.full(400, 1.0)),
        }
        return MimoriPredictions("demo", (5,), q, {5: hist}, hist[:, :1], preds, {}, None, controls)

    def test_main(self):
        """Means over two seeds of ĈEφ and L̂φ, from evaluate_predictors of each seed; the α0 columns."""
        preds = [self._pred(0, 0.7), self._pred(1, 0.7)]
        rows = alpha_control_rows(preds, 5)
        assert list(rows) == ["Raw"]
        per = [{**evaluate_predictors(p, 5), **evaluate_predictors(p, 5, names=p.control_names(5))} for p in preds]
        for col, name, key in (
            ("ĈEφ X", "Raw", "CE_phi"),
            ("ĈEφ X+α", "Raw+α", "CE_phi"),
            ("ĈEφ X+γ", "Raw+γ", "CE_phi"),
            ("L̂φ X+α0", "Raw+α0", "L_phi"),
        ):
            assert rows["Raw"][col] == pytest.approx(np.mean([m[name][key] for m in per]), rel=1e-12)
        assert rows["Raw"]["ĈEφ X+α0"] == pytest.approx(rows["Raw"]["ĈEφ X+α"], rel=1e-12)  # the same DPEs
        assert rows["Raw"]["mean α0 (α)"] == 2.0 and rows["Raw"]["α0 (constant)"] == 1.0

    def test_errors(self):
        with pytest.raises(ValueError, match="non-empty list"):
            alpha_control_rows([], 5)
        pred = self._pred(0, 0.7)
        bare = MimoriPredictions("demo", (5,), pred.true_probs, pred.test_hist, None, pred.predictors, {}, None)
        with pytest.raises(ValueError, match="no X\\+α0 control"):
            alpha_control_rows([bare], 5)
