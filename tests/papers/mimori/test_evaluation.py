"""Pooling the rows of several training seeds."""

import numpy as np
import pytest

from credalbook.papers.mimori import pool_seeds


class TestPoolSeeds:
    def test_main(self):
        """Mean over seeds; the two-level bootstrap's spread holds the seeds' spread as well as the test split's."""
        rng = np.random.default_rng(0)
        values = (0.10, 0.14, 0.12)
        metrics = [{2: {"Raw": {"EL": v}}} for v in values]
        boot = [{2: {"Raw": {"EL": v + rng.normal(0, 0.001, 2000)}}} for v in values]
        m, b = pool_seeds(metrics, boot, seed=1)
        assert m[2]["Raw"]["EL"] == pytest.approx(0.12)
        # var of the mean of 3 seeds drawn with replacement from {.10, .14, .12}: (2·0.02²/3)/3, plus the test split's
        expected = np.sqrt(np.var(values) / 3 + 0.001**2 / 3)
        assert b[2]["Raw"]["EL"].std() == pytest.approx(expected, rel=0.1)
        assert pool_seeds(metrics[:1], boot[:1]) == (metrics[0], boot[0])

    def test_errors(self):
        with pytest.raises(ValueError, match="metrics and boot"):
            pool_seeds([], [])
        with pytest.raises(ValueError, match="metrics and boot"):
            pool_seeds([{}], [{}, {}])
