"""Tests for credalbook.papers.wu_gales.temperature (Fig. 1 of Wu & Gales 2021)."""

import numpy as np
import pytest
from scipy.special import softmax

from credalbook.metrics import ece
from credalbook.papers.wu_gales import temperature_sweep, TemperatureSweep
from tests.helpers import overconfident_members, tempered_members


class TestTemperatureSweep:
    def test_main(self):
        z, y = overconfident_members(m=3, sharpen=1.0, noise=1.5, seed=9)
        temps = 2.0 ** np.linspace(-1, 2, 25)
        sweep = temperature_sweep(z, y, temperatures=temps)
        assert isinstance(sweep, TemperatureSweep)
        assert sweep.member_ece.shape == (25, 3) and sweep.ensemble_ece.shape == (25,)
        # values against direct computations
        i = 8
        np.testing.assert_allclose(sweep.member_ece[i, 2], ece(softmax(z[:, 2] / temps[i], 1), y))
        p_ens = softmax(z / temps[i], axis=2).mean(1)
        assert sweep.ensemble_ece[i] == pytest.approx(ece(p_ens, y))
        assert sweep.ensemble_accuracy[i] == pytest.approx((p_ens.argmax(1) == y).mean())
        np.testing.assert_allclose(sweep.member_accuracy, (z.argmax(2) == y[:, None]).mean(0)[None].repeat(25, 0))
        # at t = 1 the "pre" and "post" ensembles are both the uncalibrated ensemble
        j = int(np.argmin(abs(temps - 1.0)))
        assert sweep.post_ece[j] == pytest.approx(sweep.ensemble_ece[j], abs=1e-12)
        # optimal temperatures are the arg-mins; the paper's finding (Fig. 1): the ensemble
        # of diverse members needs a lower temperature than its members
        np.testing.assert_array_equal(sweep.member_optimal_temperature, temps[sweep.member_ece.argmin(0)])
        assert sweep.ensemble_optimal_temperature < sweep.member_optimal_temperature.min()
        assert sweep.ensemble_accuracy.max() > sweep.member_accuracy.max()
        # default grid: 41 points from 1/4 to 4 including 1
        default = temperature_sweep(z[:200], y[:200])
        assert len(default.temperatures) == 41 and 1.0 in default.temperatures

    def test_errors(self):
        z, y = tempered_members(n=30, scales=(1.0, 2.0))
        with pytest.raises(ValueError, match="temperatures must be a non-empty sequence"):
            temperature_sweep(z, y, temperatures=[1.0, 0.0])
        with pytest.raises(ValueError, match="temperatures must be a non-empty sequence"):
            temperature_sweep(z, y, temperatures=[])
        with pytest.raises(ValueError, match=r"labels must have shape \(30,\)"):
            temperature_sweep(z, y[:-1])
        with pytest.raises(ValueError, match="weights must have last dimension"):
            temperature_sweep(z, y, weights=[1.0])
        with pytest.raises(ValueError, match=r"logits must have shape \(N, M, K\)"):
            temperature_sweep(z[:, 0], y)
