"""The common result of the calibration tests: fields, decision, summary, plot, subclasses."""

import dataclasses
import json

import numpy as np
import pytest
from scipy import stats

import credalbook.plotting
from credalbook.stats import (
    bootstrap_calibration_test,
    CalibrationTestResult,
    hosmer_lemeshow,
    HosmerLemeshowResult,
    InstanceTestResult,
    TestResult,
)


def _result(**kw):
    base = dict(
        statistic=1.9,
        pvalue=float(stats.norm.sf(1.9)),
        alpha=0.05,
        rejected=True,
        method="z",
        null_model=stats.norm(),
        threshold=float(stats.norm.isf(0.05)),
        details={"n": np.int64(100), "K": 3, "kernel": "k", "array": np.zeros(2), "estimate": np.float64(0.2)},
    )
    return TestResult(**{**base, **kw})


class TestTestResult:
    def test_main(self):
        res = _result()
        assert res.decision() is True and res.decision(0.01) is False and res.decision(0.03) is True
        with pytest.raises(dataclasses.FrozenInstanceError):
            res.pvalue = 0.5
        assert res.null_distribution is None

    def test_summary(self):
        """Plain Python numbers and strings only (JSON-serialisable); arrays in details are left out."""
        s = _result(null_distribution=np.arange(7.0)).summary()
        assert s == {
            "method": "z",
            "statistic": 1.9,
            "pvalue": pytest.approx(0.0287166, abs=1e-7),
            "alpha": 0.05,
            "rejected": True,
            "threshold": pytest.approx(1.6448536),
            "n_null": 7,
            "n": 100,
            "K": 3,
            "kernel": "k",
            "estimate": 0.2,
        }
        assert type(s["n"]) is int and type(s["estimate"]) is float
        json.dumps(s)

    def test_plot(self, monkeypatch):
        """plot() hands the result and ax to credalbook.plotting.plot_test_result."""
        seen = []
        monkeypatch.setattr(
            credalbook.plotting, "plot_test_result", lambda r, *, ax=None: seen.append((r, ax)) or "ax", raising=False
        )
        res = _result()
        assert res.plot(ax="my-ax") == "ax" and seen == [(res, "my-ax")]

    def test_errors(self):
        for bad in (0, 1, "x", None, float("nan")):
            with pytest.raises(ValueError, match="alpha"):
                _result().decision(bad)


class TestSubclasses:
    def test_calibration_test_result(self):
        rng = np.random.default_rng(0)
        p = rng.dirichlet(np.ones(3), size=200)
        y = np.minimum((rng.random(200)[:, None] >= p.cumsum(1)).sum(1), 2)
        res = bootstrap_calibration_test(p, y, n_resamples=99, seed=0)
        assert isinstance(res, TestResult) and isinstance(res, CalibrationTestResult)
        assert res.method == "consistency" and res.measure == "ECE_conf (B=10)" and res.null_model is None
        assert res.details["n"] == 200 and res.details["n_resamples"] == 99
        # existing semantics: the decision of Alg. 1 line 8 at another level
        assert res.decision(0.2) == bool(res.statistic > np.quantile(res.null_distribution, 0.8))
        assert res.decision() == res.rejected
        assert issubclass(InstanceTestResult, TestResult)

    def test_hosmer_lemeshow_result(self):
        """The positional constructor of earlier releases still works; TestResult fields are filled in."""
        res = HosmerLemeshowResult(1.0, 2.0, 0.04, "chi2", "per_class", 10, 8)
        assert isinstance(res, TestResult) and res.method == "hosmer_lemeshow" and res.alpha == 0.05
        assert res.rejected is True and res.dof == 8 and res.count_statistic == 2.0 and res.null_distribution is None
        rng = np.random.default_rng(1)
        p = rng.dirichlet(np.ones(3), size=300)
        y = np.minimum((rng.random(300)[:, None] >= p.cumsum(1)).sum(1), 2)
        r = hosmer_lemeshow(p, y, n_resamples=99, seed=0, alpha=0.1)
        assert r.alpha == 0.1 and r.rejected == (r.statistic > r.threshold)
        assert r.threshold == pytest.approx(np.quantile(r.null_distribution, 0.9))
        assert r.summary()["count_statistic"] == pytest.approx(r.count_statistic)
        assert r.details["n_resamples"] == 99 and r.summary()["dof"] is None


@pytest.mark.parametrize("method", ["consistency", "skce_linear", "skce_distribution_free", "hosmer_lemeshow"])
def test_plot_real_results(method):
    """Each kind of result (null samples, null model, neither) draws with plot_test_result: one red line at T."""
    import matplotlib

    matplotlib.use("Agg")
    from credalbook.stats import calibration_test

    rng = np.random.default_rng(2)
    p = rng.dirichlet(np.ones(3), size=200)
    y = np.minimum((rng.random(200)[:, None] >= p.cumsum(1)).sum(1), 2)
    res = calibration_test(p, y, method=method, n_resamples=49, seed=0)
    ax = res.plot()
    assert method in ax.get_title() and any(np.allclose(line.get_xdata(), res.statistic) for line in ax.get_lines())


class TestOneDecisionRule:
    """Every test rejects when its statistic exceeds the critical value c_alpha (TestResult's docstring)."""

    NULL = np.arange(1.0, 101.0)  # R = 100 null values; c_0.05 = 95 + 0.05 (96 - 95) = 95.05

    def test_where_the_two_old_rules_disagreed(self):
        """T = 96: above c_0.05 = 95.05, but p = (1 + 5) / 101 > 0.05. The old TestResult rule (p <= alpha) kept
        H0, the old CalibrationTestResult rule (T > q) rejected: now every result rejects."""
        from credalbook.stats.bootstrap import _result
        from credalbook.stats.result import critical_value

        null, t = self.NULL, 96.0
        c = critical_value(null, 0.05)
        assert c == pytest.approx(95.05) and (1 + np.count_nonzero(null >= t)) / 101 == 6 / 101 > 0.05
        boot = _result(t, null, 0.05, "g", [1.0], None, 1, method="consistency")
        hl = HosmerLemeshowResult(t, 0.0, 6 / 101, "resampling", "per_class", 10, None, null, threshold=c)
        plain = TestResult(statistic=t, pvalue=6 / 101, alpha=0.05, rejected=True, null_distribution=null, threshold=c)
        for res in (boot, hl, plain):
            assert res.rejected is True and res.decision(0.05) is True and res.pvalue > 0.05
            assert res.decision(0.04) is False  # c_0.04 = 96.04
        # below the critical value, nobody rejects
        assert _result(95.0, null, 0.05, "g", [1.0], None, 1).rejected is False
        assert (
            HosmerLemeshowResult(95.0, 0.0, 7 / 101, "resampling", "per_class", 10, None, null, threshold=c).rejected
            is False
        )

    def test_p_le_alpha_implies_rejection(self):
        """Without ties and alpha <= 1/2, p <= alpha implies T > c_alpha: the only disagreement is the one above."""
        for r in (20, 99, 100, 999):
            null = np.arange(1.0, r + 1)
            for alpha in (0.01, 0.05, 0.1, 0.5):
                c = np.quantile(null, 1 - alpha)
                for t in np.arange(0.5, r + 1, 0.5):
                    if (1 + np.count_nonzero(null >= t)) / (r + 1) <= alpha:
                        assert t > c, (r, alpha, t)

    @pytest.mark.parametrize(
        "method",
        ["consistency", "hosmer_lemeshow", "skce_quadratic", "skce_linear", "skce_block", "skce_distribution_free"],
    )
    def test_every_test(self, method):
        from credalbook.stats import calibration_test

        rng = np.random.default_rng(5)
        p = rng.dirichlet(np.ones(3), size=150)
        y = np.minimum((rng.random(150)[:, None] >= (p**1.5 / (p**1.5).sum(1, keepdims=True)).cumsum(1)).sum(1), 2)
        res = calibration_test(p, y, method=method, n_resamples=99, seed=0)
        assert res.rejected == (res.statistic > res.threshold)
        for alpha in (0.01, 0.05, 0.2, 0.5):
            if res.null_distribution is not None:
                expected = res.statistic > np.quantile(res.null_distribution, 1 - alpha)
            elif res.null_model is not None:
                expected = res.statistic > res.null_model.isf(alpha)
            else:
                expected = res.pvalue < alpha
            assert res.decision(alpha) == expected


class TestRenamedFields:
    def test_p_value_alias(self):
        res = _result()
        with pytest.warns(FutureWarning, match="pvalue"):
            assert res.p_value == res.pvalue
        assert "pvalue" in res.summary() and "p_value" not in res.summary()

    def test_hosmer_lemeshow_result_old_names(self):
        new = HosmerLemeshowResult(1.0, 2.0, 0.04, "chi2", "per_class", 10, 8)
        with pytest.warns(FutureWarning, match="null"):
            old = HosmerLemeshowResult(1.0, 2.0, 0.04, reference="chi2", grouping="per_class", n_bins=10, dof=8)
        assert old == new and old.null == "chi2"
        with pytest.warns(FutureWarning, match="null"):
            assert new.reference == "chi2"
