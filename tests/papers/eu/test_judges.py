"""The EU chapter's one-sided judges (credalbook/papers/eu/judges.py)."""

import math

import pytest
from scipy.stats import t

from credalbook.papers.eu.judges import (
    decides_text,
    moved_onto,
    one_sided,
    paper_decides,
    t_one_sided,
    unless_paper_undecided,
    welch_one_sided,
    within_bounds,
)


class TestTOneSided:
    def test_main(self):
        assert t_one_sided(5) == pytest.approx(2.015048, abs=1e-6)  # the table value
        assert t_one_sided(2) == pytest.approx(2.919986, abs=1e-6)
        assert t_one_sided(math.inf) == pytest.approx(t.ppf(0.95, 1e9), abs=1e-6)

    def test_errors(self):
        with pytest.raises(ValueError, match="df must be > 0"):
            t_one_sided(0)


class TestOneSided:
    def test_main(self):
        # mean 2, se 1/sqrt(3) = 0.577: one-sided margin 2.920 × 0.577 = 1.686 < 2 (two-sided 4.303 × 0.577 = 2.48)
        j = one_sided([1.0, 2.0, 3.0], relation=">", name="d")
        assert j.verdict == "agrees" and j.tolerance == pytest.approx(2.919986 / math.sqrt(3), rel=1e-6)
        assert one_sided([-1.0, -2.0, -3.0], relation=">", name="d").verdict == "differs"
        assert one_sided([1.0, 2.0, 3.0], relation="<", threshold=5.0, name="d").verdict == "agrees"  # 5 - 2 > 1.686
        assert one_sided([1.0, 2.0, 3.0], relation="<", threshold=3.0, name="d").verdict == "inconclusive"

    def test_errors(self):
        with pytest.raises(ValueError, match="relation"):
            one_sided([1.0, 2.0], relation="=", name="d")
        with pytest.raises(ValueError, match="finite"):
            one_sided([], relation=">", name="d")


class TestPaperDecides:
    def test_main(self):
        # Table 1's ρ_epi: difference 0.013 against a margin of t × sqrt(0.028²/6 + 0.023²/6) = 0.027
        j = paper_decides((0.121, 0.028), (0.108, 0.023), relation=">")
        se = math.hypot(0.028, 0.023) / math.sqrt(6)
        assert j.verdict == "inconclusive" and 0.013 < j.tolerance and j.tolerance == pytest.approx(1.83 * se, rel=0.02)
        assert "do not decide it" in decides_text(j)
        # Table 2's K-49: 0.101 ± 0.014 vs 0.065 ± 0.015 decides
        assert paper_decides((0.101, 0.014), (0.065, 0.015), relation=">").verdict == "agrees"
        assert "contradict it" in decides_text(paper_decides((0.065, 0.015), (0.088, 0.02), relation=">"))


class TestUnlessPaperUndecided:
    def test_main(self):
        """The book's verdict stands only when every one of the paper's judgements decides the claim."""
        book = one_sided([0.01, 0.02, 0.015], relation=">", name="ρ_E − ρ_M")
        decided = paper_decides((0.101, 0.014), (0.065, 0.015), relation=">")
        undecided = paper_decides((0.121, 0.028), (0.108, 0.023), relation=">")
        assert unless_paper_undecided(book, decided) is book
        assert unless_paper_undecided(book, [decided, decided]) is book
        j = unless_paper_undecided(book, [decided, undecided])
        assert j.verdict == "inconclusive" and f"the book: {book.criterion} ({book.verdict})" in j.criterion
        assert undecided.criterion in j.criterion and decided.criterion not in j.criterion

    def test_errors(self):
        book = one_sided([0.01, 0.02], relation=">", name="d")
        with pytest.raises(ValueError, match="paper"):
            unless_paper_undecided(book, [])
        with pytest.raises(ValueError, match="paper"):
            unless_paper_undecided(book, ["agrees"])


class TestWelchOneSided:
    def test_main(self):
        a, b = [0.10, 0.11, 0.12, 0.10], [0.20, 0.21, 0.19, 0.22]
        assert welch_one_sided(a, b, relation="<").verdict == "agrees"
        assert welch_one_sided(a, b, relation=">").verdict == "differs"
        assert welch_one_sided([0.1], b, relation="<").verdict == "inconclusive"


class TestWithinBounds:
    def test_main(self):
        vals = [0.040, 0.041, 0.039]  # mean 0.04, se 0.000577, two-sided t(2) 4.303: tolerance 0.00248
        assert within_bounds(vals, 0.0243, 0.0425).verdict == "agrees"
        assert within_bounds(vals, 0.0243, 0.0374).verdict == "differs"  # 0.04 - 0.0374 = 0.0026 > 0.00248
        assert within_bounds(vals, 0.0243, 0.0376).verdict == "agrees"
        assert within_bounds(vals, 0.0243, 0.0374, paper_se=0.002).verdict == "agrees"
        assert within_bounds([0.04], 0.0, 0.01).verdict == "inconclusive"


class TestMovedOnto:
    def test_main(self):
        assert moved_onto([0.10, 0.11, 0.12], (0.108, 0.023)).verdict == "agrees"
        assert moved_onto([0.20, 0.21, 0.22], (0.108, 0.023)).verdict == "differs"
