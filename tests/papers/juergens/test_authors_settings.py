"""The authors' binary generator (mkjuergens/EnsembleCalibration@8dff2b5, src/data/synthetic/gp_binary.py)."""

import numpy as np
import pytest

from credalbook.papers.juergens import authors_binary_scenario, instance_test_error_rates
from credalbook.papers.juergens.authors_settings import AUTHORS_BOUNDS


class TestAuthorsBinaryScenario:
    def test_main(self):
        for h in ("H0-const", "H0-inst"):
            sc = authors_binary_scenario(h, n_datasets=3, n_instances=300, seed=0)
            assert sc.is_null and sc.config["generator"] == "authors"
            np.testing.assert_allclose(np.einsum("rnmk,rnm->rnk", sc.ens_probs, sc.weights), sc.truth, atol=1e-12)
            np.testing.assert_allclose(sc.ens_probs.sum(-1), 1.0)
        lam = authors_binary_scenario("H0-inst", n_datasets=2, n_instances=300, seed=1).weights[..., 0]
        assert np.allclose(lam.min(-1), 0.0) and np.allclose(lam.max(-1), 1.0)  # min-max rescaled, as sample_function

    def test_members_span_their_intervals(self):
        sc = authors_binary_scenario("H0-const", n_datasets=2, n_instances=400, seed=2)
        p0 = sc.ens_probs[..., 0]  # (R, N, M)
        for m, (lo, hi) in enumerate(AUTHORS_BOUNDS):
            np.testing.assert_allclose(p0[:, :, m].min(-1), lo, atol=1e-12)
            np.testing.assert_allclose(p0[:, :, m].max(-1), hi, atol=1e-12)

    def test_alternatives(self):
        far = authors_binary_scenario("H1-3", n_datasets=4, n_instances=500, seed=0)
        p0, t0 = far.ens_probs[..., 0], far.truth[..., 0]
        # setting=None: a GP in [0, p_min] (the members lie further from 0 than from 1)
        assert (t0 <= p0.min(axis=(1, 2))[:, None] + 1e-12).all() and np.allclose(t0.min(-1), 0.0)
        near = authors_binary_scenario("H1-1", n_datasets=20, n_instances=500, seed=0)
        p0, t0 = near.ens_probs[..., 0], near.truth[..., 0]
        np.testing.assert_allclose((p0[..., 0] - t0).std(-1), 0.0, atol=1e-12)  # member 0 minus one ε per dataset
        eps = (p0[..., 0] - t0)[:, 0]
        assert ((eps >= 0) & (eps <= 0.05)).all()
        inside = (t0 >= p0.min(-1)) & (t0 <= p0.max(-1))
        assert 0 < inside.mean() < 1  # "setting 1" is partly inside the hull

    def test_errors(self):
        with pytest.raises(ValueError, match="hypothesis"):
            authors_binary_scenario("H2")
        with pytest.raises(ValueError, match="n_datasets"):
            authors_binary_scenario("H0-const", n_datasets=0)


class TestGeneratorOption:
    def test_default_is_the_book_generator(self):
        kw = dict(
            n_datasets=2,
            n_instances=120,
            n_resamples=10,
            learner_options={"max_epochs": 2},
            progress=False,
            estimators=(("lp", {"bandwidth": 0.01}),),
            mortier=False,
        )
        a = instance_test_error_rates("binary", "H0-const", **kw)
        b = instance_test_error_rates("binary", "H0-const", simulator="book", **kw)
        c = instance_test_error_rates("binary", "H0-const", simulator="authors", **kw)
        np.testing.assert_array_equal(a.statistics, b.statistics)
        assert "simulator" not in a.config and c.config["simulator"] == "authors"
        assert not np.array_equal(a.statistics, c.statistics)

    def test_errors(self):
        with pytest.raises(ValueError, match="simulator"):
            instance_test_error_rates("binary", "H0-const", n_datasets=1, simulator="theirs")
        with pytest.raises(ValueError, match="binary"):
            instance_test_error_rates("multiclass", "H0-const", n_datasets=1, simulator="authors")
