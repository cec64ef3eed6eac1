"""Tests for credalbook.papers.criteria: judges that can fail, the five verdicts, and the refused kinds."""

import math

import numpy as np
import pytest
from scipy import stats

from credalbook.papers.criteria import (
    AGREES,
    at_least,
    CannotFail,
    close_to,
    combine,
    DIFFERS,
    INCONCLUSIVE,
    Judgement,
    mean_se,
    ordered,
    rate_ci,
    rate_claim,
    sign_claim,
    VERDICTS,
)


class TestRateCI:
    @pytest.mark.parametrize("k,n", [(0, 10), (3, 60), (30, 60), (60, 60), (150, 3000)])
    def test_clopper_pearson_closed_form(self, k, n):
        lo, hi = rate_ci(k, n)
        # Clopper-Pearson from beta quantiles (an independent computation)
        exp_lo = 0.0 if k == 0 else stats.beta.ppf(0.025, k, n - k + 1)
        exp_hi = 1.0 if k == n else stats.beta.ppf(0.975, k + 1, n - k)
        assert lo == pytest.approx(exp_lo, abs=1e-10) and hi == pytest.approx(exp_hi, abs=1e-10)

    def test_errors(self):
        with pytest.raises(CannotFail):
            rate_ci(0, 0)
        with pytest.raises(ValueError, match="k must be in"):
            rate_ci(5, 4)
        with pytest.raises(TypeError):
            rate_ci(0.5, 4)


class TestRateClaim:
    def test_bradley_band_decides_only_with_enough_replicates(self):
        accept = (0.025, 0.075)
        assert rate_claim(3, 60, accept=accept).verdict == INCONCLUSIVE
        assert rate_claim(150, 3000, accept=accept).verdict == AGREES
        assert rate_claim(8, 60, accept=accept).verdict == INCONCLUSIVE  # 0.133, the old band's upper end
        assert rate_claim(400, 3000, accept=accept).verdict == DIFFERS
        j = rate_claim(150, 3000, accept=accept, name="Type I at α = 0.05")
        assert j.replicates == 3000 and "Type I at α = 0.05 in [0.025, 0.075]: 150/3000 = 0.050" in j.criterion
        assert "R = 3000" in j.tolerance_source

    def test_one_sided_regions(self):
        assert rate_claim(58, 60, accept=(0.8, 1.0)).verdict == AGREES
        assert "≥ 0.8" in rate_claim(58, 60, accept=(0.8, 1.0)).criterion
        assert rate_claim(0, 30, accept=(0.0, 0.075)).verdict == INCONCLUSIVE  # exact upper end 0.116
        assert rate_claim(0, 60, accept=(0.0, 0.075)).verdict == AGREES  # exact upper end 0.0596

    def test_monte_carlo_type_i_of_the_judge(self):
        """A test that holds α exactly is never judged to differ at R = 1000; most runs agree."""
        rng = np.random.default_rng(0)
        ks = rng.binomial(1000, 0.05, size=400)
        verdicts = [rate_claim(int(k), 1000, accept=(0.025, 0.075)).verdict for k in ks]
        assert verdicts.count(DIFFERS) == 0
        assert verdicts.count(AGREES) >= 320  # the rest inconclusive: R = 1000 resolves ±0.014


class TestOrdered:
    def test_verdicts(self):
        assert ordered(0.1, 0.2, relation="<", se_a=0.01, se_b=0.02).verdict == AGREES
        assert ordered(0.1, 0.12, relation="<", se_a=0.01, se_b=0.02).verdict == INCONCLUSIVE
        assert ordered(0.3, 0.1, relation="<", se_a=0.01, se_b=0.02).verdict == DIFFERS
        assert ordered(0.3, 0.1, relation=">").verdict == AGREES
        j = ordered(0.1, 0.2, relation="<", se_a=0.03, se_b=0.04, names=("new", "Mortier"), replicates=60)
        assert j.tolerance == pytest.approx(2 * 0.05) and j.replicates == 60
        assert j.criterion == "new < Mortier by more than 0.1: 0.1 vs 0.2"

    def test_sign_claim(self):
        assert sign_claim(0.00125, relation=">", se=0.001).verdict == INCONCLUSIVE
        assert sign_claim(0.01, relation=">", se=0.001).verdict == AGREES
        assert sign_claim(-0.01, relation=">", se=0.001).verdict == DIFFERS
        assert sign_claim(-0.01, relation="<").criterion == "the difference < 0 strictly: -0.01"


class TestCloseTo:
    def test_absolute_and_relative(self):
        assert close_to(0.0695, 0.0697, tol=5e-4, tolerance_source="rounding").verdict == AGREES
        assert close_to(0.08, 0.0697, tol=5e-4, tolerance_source="rounding").verdict == DIFFERS
        assert close_to(1.08, 1.0, tol=0.1, relative=True, tolerance_source="10%").verdict == AGREES
        assert close_to(1.12, 1.0, tol=0.1, relative=True, tolerance_source="10%").tolerance == pytest.approx(0.1)


class TestAtLeastAndCombine:
    def test_at_least(self):
        assert at_least(4, 4, 4).verdict == AGREES and at_least(3, 4, 4).verdict == DIFFERS
        with pytest.raises(ValueError):
            at_least(5, 4, 3)

    def test_combine(self):
        a, d, i = (Judgement(v, v) for v in (AGREES, DIFFERS, INCONCLUSIVE))
        assert combine([a, a]).verdict == AGREES
        assert combine([a, i]).verdict == INCONCLUSIVE
        assert combine([a, d]).verdict == DIFFERS
        assert combine([d, a], rule="any").verdict == AGREES
        assert combine([d, d], rule="any").verdict == DIFFERS
        assert "[all of 2: 1 agrees, 1 inconclusive]" in combine([a, i]).criterion
        with pytest.raises(ValueError):
            combine([])

    def test_combine_need(self):
        a, d, i = (Judgement(v, v) for v in (AGREES, DIFFERS, INCONCLUSIVE))
        assert combine([a, a, d], need=2).verdict == AGREES
        assert combine([a, i, d], need=2).verdict == INCONCLUSIVE
        assert combine([a, d, d], need=2).verdict == DIFFERS
        assert "[at least 2 of 3: 1 agrees, 1 differs, 1 inconclusive]" in combine([a, i, d], need=2).criterion
        # need = n is "all", need = 1 is "any", for every mix of three verdicts
        for mix in ([a, a, a], [a, a, i], [a, i, d], [i, i, d], [d, d, d], [i, i, i]):
            assert combine(mix, need=3).verdict == combine(mix).verdict
            assert combine(mix, need=1).verdict == combine(mix, rule="any").verdict
        for bad in (0, 4):
            with pytest.raises(ValueError):
                combine([a, a, d], need=bad)


# The kinds of criteria a row may not use: each holds whatever the data, so it is a test, not a row.
REFUSED_KINDS = {
    "a '≥' claim met on a tie of zeros": lambda: _agrees(ordered(0.0, 0.0, relation="<")),
    "a '≤'/'≥' relation (ties would agree)": lambda: ordered(0.0, 0.0, relation="<="),
    "a tie of equal non-zero numbers": lambda: _agrees(ordered(0.3, 0.3, relation=">")),
    "a sign claim on an exact zero": lambda: _agrees(sign_claim(0.0, relation=">")),
    "a tolerance covering every value of a rate": lambda: close_to(
        0.4, 0.5, tol=0.5, tolerance_source="x", bounds=(0, 1)
    ),
    "a relative tolerance covering every value": lambda: close_to(
        0.4, 0.5, tol=1.0, relative=True, tolerance_source="x", bounds=(0, 1)
    ),
    "a rate region covering [0, 1]": lambda: rate_claim(3, 60, accept=(0.0, 1.0)),
    "a rate from no replicates": lambda: rate_claim(0, 0, accept=(0.0, 0.1)),
    "'at least 0 of n'": lambda: at_least(0, 12, 0),
    "a count over no cases": lambda: at_least(0, 0, 1),
    "a NaN number": lambda: ordered(float("nan"), 0.1, relation="<"),
    "an infinite number": lambda: close_to(math.inf, 0.1, tol=0.1, tolerance_source="x"),
    "an infinite tolerance": lambda: close_to(0.1, 0.1, tol=math.inf, tolerance_source="x"),
    "an empty criterion": lambda: Judgement(AGREES, " "),
    "an unknown verdict": lambda: Judgement("agrees mostly", "x"),
}


def _agrees(j):
    if j.verdict == AGREES:
        return j
    raise CannotFail(f"refused: verdict {j.verdict}")


@pytest.mark.parametrize("kind", sorted(REFUSED_KINDS))
def test_refused_kinds(kind):
    """Each kind either raises or, for strict order claims, never returns 'agrees'."""
    with pytest.raises(ValueError):
        REFUSED_KINDS[kind]()


def test_verdicts_are_five():
    assert VERDICTS == ("agrees", "differs — cause shown", "differs — cause unknown", "inconclusive", "not run here")
    assert DIFFERS not in VERDICTS


def test_mean_se():
    m, se, n = mean_se([0.1, 0.2, 0.3, 0.4])
    assert m == pytest.approx(0.25) and n == 4
    assert se == pytest.approx(np.std([0.1, 0.2, 0.3, 0.4], ddof=1) / 2)
    assert math.isnan(mean_se([1.0])[1])
    with pytest.raises(ValueError):
        mean_se([])
    with pytest.raises(ValueError):
        mean_se([1.0, float("nan")])
