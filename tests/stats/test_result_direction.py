"""The direction on a test result: TestResult.with_direction, decision_line and the summary's "direction"."""

import dataclasses
import json

import numpy as np
import pytest
from scipy import special, stats

from credalbook.book.records import decode, encode
from credalbook.metrics import describe_direction, Estimate, signed_calibration_error
from credalbook.stats import hosmer_lemeshow, HosmerLemeshowResult, TestResult

OVER = Estimate(0.031, 0.027, 0.035, 0.95, 1000, "percentile")
UNCLEAR = Estimate(0.001, -0.002, 0.004, 0.95, 1000, "percentile")


def _result(pvalue=0.001, rejected=True, **details):
    return TestResult(
        statistic=2.0,
        pvalue=pvalue,
        alpha=0.05,
        rejected=rejected,
        method="z",
        null_model=stats.norm(),
        threshold=float(stats.norm.isf(0.05)),
        details={"n": 100, **details},
    )


def _tempered(temperature, n=2000, k=4, seed=0):
    rng = np.random.default_rng(seed)
    z = rng.normal(0.0, 2.0, size=(n, k))
    y = np.minimum((rng.random(n)[:, None] > special.softmax(z, axis=1).cumsum(axis=1)).sum(axis=1), k - 1)
    return special.softmax(z / temperature, axis=1), y


class TestDecisionLine:
    def test_main(self):
        assert _result().decision_line() == "reject H0 at α = 0.05 (p = 0.001)"
        assert _result(0.41, False).decision_line() == "keep H0 at α = 0.05 (p = 0.41)"
        assert _result(direction=OVER).decision_line() == (
            "reject H0 at α = 0.05 (p = 0.001): over-confident (confidence exceeds accuracy by 0.031 [0.027, 0.035])"
        )
        assert (
            _result(direction=UNCLEAR)
            .decision_line()
            .endswith(": no clear direction (confidence \u2212 accuracy 0.001 [\u22120.002, 0.004])")
        )
        # a kept H0 states no direction, whatever the estimate
        assert _result(0.41, False, direction=OVER).decision_line() == "keep H0 at α = 0.05 (p = 0.41)"
        # a direction given as a number (no interval)
        assert (
            _result(direction=-0.02)
            .decision_line()
            .endswith(": under-confident (accuracy exceeds confidence by 0.020)")
        )

    def test_pvalues(self):
        assert _result(1 / 1001).decision_line() == "reject H0 at α = 0.05 (p < 0.001)"
        assert _result(0.0004).decision_line() == "reject H0 at α = 0.05 (p < 0.001)"
        assert _result(0.0123).decision_line() == "reject H0 at α = 0.05 (p = 0.012)"
        assert _result(1.0, False).decision_line() == "keep H0 at α = 0.05 (p = 1)"


class TestSummaryDirection:
    def test_main(self):
        plain = _result().summary()
        assert "direction" not in plain
        with_dir = _result(direction=OVER).summary()
        assert with_dir.pop("direction") == describe_direction(OVER)
        assert with_dir == plain and list(with_dir) == list(plain)  # the other keys, in their order
        json.dumps(_result(direction=OVER).summary())
        assert _result(direction=0.5).summary()["direction"] == describe_direction(0.5)
        assert _result(direction="over-confident").summary()["direction"] == "over-confident"  # a text is kept
        # a None in details is kept as None, as any scalar entry, and states no direction
        assert _result(direction=None).summary()["direction"] is None
        assert _result(direction=None).decision_line() == "reject H0 at α = 0.05 (p = 0.001)"


class TestWithDirection:
    def test_main(self):
        p, y = _tempered(0.5)
        res = _result()
        out = res.with_direction(p, y, ci=0.9, n_resamples=200, seed=3)
        ref = signed_calibration_error(p, y, ci=0.9, n_resamples=200, seed=3)
        est = out.details["direction"]
        assert (est.value, est.low, est.high, est.level) == (ref.value, ref.low, ref.high, 0.9)
        assert est.replicates is None and est.low > 0
        assert "direction" not in res.details and out.details["n"] == 100  # the input is not changed
        assert type(out) is TestResult and out.statistic == res.statistic and out.pvalue == res.pvalue
        assert out.decision_line() == f"reject H0 at α = 0.05 (p = 0.001): {describe_direction(ref)}"
        assert out.decision_line().split(": ")[1].startswith("over-confident")
        p, y = _tempered(2.0)
        assert res.with_direction(p, y, n_resamples=200, seed=0).summary()["direction"].startswith("under-confident")
        plain = res.with_direction(p, y, ci=None)
        assert plain.details["direction"] == signed_calibration_error(p, y)

    def test_subclass(self):
        """A subclass with its own __init__ keeps its class and every field but details."""
        p, y = _tempered(0.5, n=500)
        hl = hosmer_lemeshow(p, y, null="chi2", n_bins=5)
        out = hl.with_direction(p, y, n_resamples=100, seed=0)
        assert type(out) is HosmerLemeshowResult
        for f in dataclasses.fields(hl):
            if f.name != "details":
                assert getattr(out, f.name) is getattr(hl, f.name)
        assert out.details == {**hl.details, "direction": out.details["direction"]}

    def test_records(self):
        """A result with a direction round-trips through the records' encoding (the fields unchanged)."""
        p, y = _tempered(0.5, n=500)
        res = dataclasses.replace(_result(), null_model=None, null_distribution=np.linspace(0.0, 1.0, 99))
        out = res.with_direction(p, y, n_resamples=100, seed=0)
        back = decode(json.loads(json.dumps(encode(out))))
        assert type(back) is TestResult and [f.name for f in dataclasses.fields(back)] == [
            f.name for f in dataclasses.fields(res)
        ]
        assert back.details["direction"] == out.details["direction"]
        assert back.decision_line() == out.decision_line() and back.summary() == out.summary()

    def test_errors(self):
        p, y = _tempered(0.5, n=50)
        with pytest.raises(ValueError, match="ci"):
            _result().with_direction(p, y, ci=2.0)
        with pytest.raises(ValueError, match="probs"):
            _result().with_direction(p * 2, y)


class TestCalibrationTestDirection:
    """calibration_test attaches the direction of every method's result (the same seed: the same interval)."""

    @pytest.mark.parametrize("method", ["consistency", "skce_linear", "hosmer_lemeshow"])
    def test_over_and_under(self, method):
        from credalbook.stats import calibration_test

        for temperature, word in ((0.5, "over-confident"), (2.0, "under-confident")):
            p, y = _tempered(temperature)
            res = calibration_test(p, y, method=method, n_resamples=199, seed=3)
            d = res.details["direction"]
            want = signed_calibration_error(p, y, ci=0.95, n_resamples=199, seed=3)
            assert (d.value, d.low, d.high) == (want.value, want.low, want.high)
            assert (f"): {word} (" in res.decision_line()) == res.rejected
            assert res.rejected or method == "skce_linear"  # the linear estimator has little power at N = 2000
            assert res.summary()["direction"].startswith(word)

    def test_binary_scores(self):
        from credalbook.stats import calibration_test

        p, y = _tempered(0.5, k=2)
        res = calibration_test(p[:, 1], y.astype(bool), method="spiegelhalter", n_resamples=99, seed=0)
        assert res.details["direction"].value == signed_calibration_error(p, y)
        assert "over-confident" in res.decision_line()


def test_decision_line_when_quantile_rule_rejects_above_alpha():
    """Rejected by the quantile rule with p > α (R resamples): the line says why."""
    res = TestResult(statistic=0.98, pvalue=0.06, alpha=0.05, rejected=True, threshold=0.8949)
    assert res.decision_line() == "reject H0 at α = 0.05 (p = 0.06; the statistic exceeds the critical value 0.8949)"
    assert TestResult(statistic=0.5, pvalue=0.06, alpha=0.05, rejected=False).decision_line().endswith("(p = 0.06)")


def test_direction_leaves_the_callers_generator_alone():
    """With a Generator seed, the direction's bootstrap does not advance it: a sequence of tests draws what it
    drew without the direction."""
    from credalbook.stats import calibration_test

    p, y = _tempered(0.7, n=500)
    with_dir, without = np.random.default_rng(5), np.random.default_rng(5)
    for _ in range(2):
        a = calibration_test(p, y, method="consistency", n_resamples=50, seed=with_dir)
        b = calibration_test(p, y, method="consistency", n_resamples=50, seed=without, direction=False)
        assert a.pvalue == b.pvalue and np.array_equal(a.null_distribution, b.null_distribution)
        assert "direction" in a.details and "direction" not in b.details
    assert with_dir.random() == without.random()
