"""Tests for credalbook.papers.premises: whether a test split can show over-confidence at all."""

import numpy as np
import pytest

from credalbook.papers.premises import cells_able, largest_shown, Z95


def test_closed_form_and_simulation():
    """1 − a and z·sqrt(a(1 − a)/n); the SE is that of confidence − accuracy with every confidence 1, simulated."""
    most, half = largest_shown(0.95, 400, z=2)
    assert most == pytest.approx(0.05) and half == pytest.approx(2 * np.sqrt(0.95 * 0.05 / 400))
    rng = np.random.default_rng(0)
    gaps = 1 - (rng.random((20000, 400)) < 0.95).mean(axis=1)  # confidence 1 everywhere: gap = 1 − accuracy
    assert gaps.std() == pytest.approx(half / 2, rel=0.02)
    assert largest_shown(0.95, 400)[1] == pytest.approx(Z95 * half / 2)
    assert largest_shown(np.float32(0.5), np.int64(100))[0] == pytest.approx(0.5)


def test_cells_able():
    assert cells_able([(0.99, 269)] * 3, z=2) == 0
    assert cells_able([(0.99, 269), (0.99, 5000), (0.8, 100)], z=2) == 2
    assert cells_able([]) == 0


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
