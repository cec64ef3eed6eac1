"""The common result of the calibration tests: fields, decision, summary, plot, subclasses."""

import dataclasses
import json

import numpy as np
import pytest
from scipy import stats

import credalbook.plotting
from credalbook.stats import (
    CalibrationTestResult,
    HosmerLemeshowResult,
    InstanceTestResult,
    TestResult,
    bootstrap_calibration_test,
    hosmer_lemeshow,
)


def _result(**kw):
    base = dict(statistic=1.5, p_value=0.03, alpha=0.05, rejected=True, method="z", null_model=stats.norm(),
                threshold=float(stats.norm.isf(0.05)), details={"n": np.int64(100), "K": 3, "kernel": "k",
                                                                "array": np.zeros(2), "estimate": np.float64(0.2)})
    return TestResult(**{**base, **kw})


class TestTestResult:
    def test_main(self):
        res = _result()
        assert res.decision() is True and res.decision(0.01) is False and res.decision(0.03) is True
        with pytest.raises(dataclasses.FrozenInstanceError):
            res.p_value = 0.5
        assert res.null_distribution is None

    def test_summary(self):
        """Plain Python numbers and strings only (JSON-serialisable); arrays in details are left out."""
        s = _result(null_distribution=np.arange(7.0)).summary()
        assert s == {"method": "z", "statistic": 1.5, "p_value": 0.03, "alpha": 0.05, "rejected": True,
                     "threshold": pytest.approx(1.6448536), "n_null": 7, "n": 100, "K": 3, "kernel": "k",
                     "estimate": 0.2}
        assert type(s["n"]) is int and type(s["estimate"]) is float
        json.dumps(s)

    def test_plot(self, monkeypatch):
        """plot() hands the result and ax to credalbook.plotting.plot_test_result."""
        seen = []
        monkeypatch.setattr(credalbook.plotting, "plot_test_result", lambda r, *, ax=None: seen.append((r, ax)) or "ax",
                            raising=False)
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
        res = bootstrap_calibration_test(p, y, n_bootstrap=99, seed=0)
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
        assert r.alpha == 0.1 and r.rejected == (r.p_value <= 0.1)
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
