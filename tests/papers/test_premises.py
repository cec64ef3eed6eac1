"""Tests for credalbook.papers.premises: whether a test split can show over-confidence, and rows the paper's own numbers do not decide."""

import numpy as np
import pytest

from credalbook.papers.criteria import AGREES, at_least, DIFFERS, INCONCLUSIVE, Judgement
from credalbook.papers.premises import largest_shown, not_decided_by_paper, premise_undecided, Z95


def test_closed_form_and_simulation():
    """1 − a and z·sqrt(a(1 − a)/n); the SE is that of confidence − accuracy with every confidence 1, simulated."""
    most, half = largest_shown(0.95, 400, z=2)
    assert most == pytest.approx(0.05) and half == pytest.approx(2 * np.sqrt(0.95 * 0.05 / 400))
    rng = np.random.default_rng(0)
    gaps = 1 - (rng.random((20000, 400)) < 0.95).mean(axis=1)  # confidence 1 everywhere: gap = 1 − accuracy
    assert gaps.std() == pytest.approx(half / 2, rel=0.02)
    assert largest_shown(0.95, 400)[1] == pytest.approx(Z95 * half / 2)
    assert largest_shown(np.float32(0.5), np.int64(100))[0] == pytest.approx(0.5)


def test_premise_undecided():
    """Inconclusive only when it fails and fewer than a majority of the cells could show over-confidence at all."""
    fails = at_least(0, 3, 2, what="cells over-confident")
    j = premise_undecided(fails, [(0.99, 269)] * 3, z=2)  # 1 − a = 0.010 within 2 SE 0.012: no cell could show it
    assert j.verdict == INCONCLUSIVE and "only 0 of 3 cells could show over-confidence at all" in j.criterion
    assert "within its own 2 SE 0.012–0.012 (test instances: 269, 269, 269)" in j.criterion
    assert j.tolerance_source.endswith("exceeds 2·sqrt(a(1 − a)/n)")
    two = premise_undecided(fails, [(0.99, 269), (0.99, 5000), (0.8, 100)], z=2)  # 2 of 3 could: it stands
    assert two.verdict == fails.verdict == DIFFERS
    one = premise_undecided(fails, [(0.99, 269), (0.99, 269), (0.8, 100)])  # 1 of 3 at the 95% half-width
    assert (
        one.verdict == INCONCLUSIVE
        and "95% half-width" in one.criterion
        and "exceeds 1.96·sqrt" in (one.tolerance_source)
    )
    holds = at_least(3, 3, 2, what="cells over-confident")
    assert holds.verdict == AGREES and premise_undecided(holds, [(0.99, 269)] * 3) is holds
    assert premise_undecided(fails, []) is fails and premise_undecided(fails, [(0.99, 0)] * 3) is fails  # not recorded


@pytest.mark.parametrize(
    "args, match",
    [
        ((1.5, 10), "accuracy"),
        ((True, 10), "accuracy"),
        ((0.5, 0), "n must"),
        ((0.5, 2.5), "n must"),
        ((0.5, 10, -1), "z"),
    ],
)
def test_errors(args, match):
    a, n, *z = args
    with pytest.raises(ValueError, match=match):
        largest_shown(a, n, **({"z": z[0]} if z else {}))


class TestNotDecidedByPaper:
    def test_main(self):
        """Inconclusive whatever the book's verdict; the book's criterion, verdict, margin and replicates are kept."""
        for verdict in ("agrees", "differs", "inconclusive"):
            book = Judgement(verdict, "gain > 0 by 2 SE: 0.01", 0.004, "2 × SE over 24 rows", 24)
            j = not_decided_by_paper(book, "its mean gain is within 2 SE of 0")
            assert j.verdict == "inconclusive"
            assert j.criterion == (
                "the paper's own numbers do not decide this claim: its mean gain is within 2 SE of 0; "
                f"the book: gain > 0 by 2 SE: 0.01 ({verdict})"
            )
            assert (j.tolerance, j.tolerance_source, j.replicates) == (0.004, "2 × SE over 24 rows", 24)
        j = not_decided_by_paper(book, "why", tolerance_source="the paper's ±2σ")
        assert j.tolerance_source == "the paper's ±2σ"

    def test_errors(self):
        with pytest.raises(TypeError, match="book"):
            not_decided_by_paper("agrees", "why")
        with pytest.raises(ValueError, match="why"):
            not_decided_by_paper(Judgement("agrees", "x"), "  ")
