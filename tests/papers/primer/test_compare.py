"""The primer's rows: verdicts that follow from the inputs, the Widmann tolerance in closed form, bad input."""

from types import SimpleNamespace

import numpy as np
import pytest

from credalbook.papers.primer import compare, HL_CHI2, HL_RESAMPLING, overconfidence
from credalbook.papers.report import reported

WIDMANN = reported("widmann")["figure_2_pvalues_comparison"]
LEVELS = np.round(np.arange(1, 21) * 0.01, 2)


def _network(confidence: float, accuracy: float, n: int = 2000, seed: int = 0):
    rng = np.random.default_rng(seed)
    probs = np.full((n, 10), (1 - confidence) / 9)
    probs[:, 0] = confidence
    labels = np.where(rng.random(n) < accuracy, 0, rng.integers(1, 10, n))
    return SimpleNamespace(probs_test=probs, y_test=labels)


def _run(kind: str, errors_at_05: float, n_datasets: int = 1000):
    errors = np.full(LEVELS.size, np.nan)
    errors[4] = errors_at_05
    return SimpleNamespace(kind=kind, n_datasets=n_datasets, errors=errors)


def _rows(network, pvalue, rates, runs, levels=LEVELS):
    cmp = compare(network, SimpleNamespace(pvalue=pvalue), rates, runs, levels=levels, hl_datasets=1000,
                  hl_resamples=200, dataset="digits", widmann_reported=WIDMANN)  # fmt: skip
    return cmp.rows


class TestCompare:
    def test_main(self):
        published = WIDMANN["test_error"]["A_l"]["M1"][5]  # α = 0.05 (the paper's α start at 0)
        rows = _rows(
            _network(0.9, 0.6), 0.001, {HL_CHI2: 0.20, HL_RESAMPLING: 0.05}, {("A_l", "M1"): _run("type_i", published)}
        )
        assert [r.verdict for r in rows] == ["agrees", "differs — cause shown", "agrees", "agrees"]
        assert rows[3].paper == published and rows[3].book == published
        # two binomial standard errors of the difference, 10⁴ data sets against 1000
        assert rows[3].tolerance == pytest.approx(2 * np.sqrt(published * (1 - published) * (1e-4 + 1e-3)), rel=1e-12)

    def test_calibrated_network_is_not_a_miscalibrated_one(self):
        rows = _rows(_network(0.6, 0.6), 0.5, {HL_CHI2: 0.05, HL_RESAMPLING: 0.05}, {})
        assert rows[0].verdict != "agrees" and rows[1].verdict == "agrees"

    def test_widmann_row_far_from_the_paper_differs(self):
        published = WIDMANN["test_error"]["A_l"]["M1"][5]
        rows = _rows(_network(0.9, 0.6), 0.001, {HL_CHI2: 0.05, HL_RESAMPLING: 0.05},
                     {("A_l", "M1"): _run("type_i", published + 0.05)})  # fmt: skip
        assert rows[3].verdict == "differs — cause unknown"

    def test_levels_without_alpha(self):
        with pytest.raises(ValueError, match="levels must include"):
            _rows(_network(0.9, 0.6), 0.001, {HL_CHI2: 0.05, HL_RESAMPLING: 0.05}, {("A_l", "M1"): _run("type_i", 0.05)},
                  levels=LEVELS + 0.001)  # fmt: skip


class TestOverconfidence:
    def test_main(self):
        gap, se, n = overconfidence(*vars(_network(0.9, 0.6, n=4000)).values())
        assert n == 4000 and abs(gap - 0.3) < 4 * se and se == pytest.approx(np.sqrt(0.6 * 0.4 / 4000), rel=0.05)

    def test_shapes(self):
        with pytest.raises(ValueError, match="probs must have shape"):
            overconfidence(np.ones(3) / 3, np.zeros(3, int))
