"""The authors' binary generator (mkjuergens/EnsembleCalibration@8dff2b5, src/data/synthetic/gp_binary.py)."""

import numpy as np
import pytest

from credalbook.papers.juergens import authors_binary_scenario, authors_multiclass_scenario, instance_test_error_rates
from credalbook.papers.juergens.authors_settings import AUTHORS_BOUNDS, AUTHORS_H1_DEGREES


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

    def test_multiclass_uses_their_generator(self):
        kw = dict(
            n_datasets=2,
            n_instances=60,
            n_resamples=5,
            learner_options={"max_epochs": 1},
            progress=False,
            estimators=(("lp", {"bandwidth": 0.01}),),
            mortier=False,
        )
        st = instance_test_error_rates("multiclass", "H0-const", simulator="authors", **kw)
        book = instance_test_error_rates("multiclass", "H0-const", **kw)
        assert st.config["simulator"] == "authors" and not np.array_equal(st.statistics, book.statistics)


class TestAuthorsMulticlassScenario:
    """Their ``syn_exp_multiclass`` (src/data/synthetic/multiclass_dirichlet_new.py, src/utils/helpers.py)."""

    def test_members_constant_in_x(self):
        sc = authors_multiclass_scenario("H0-inst", n_datasets=3, n_instances=50, seed=0)
        assert sc.ens_probs.shape == (3, 50, 10, 10) and sc.config["generator"] == "authors"
        assert np.ptp(sc.ens_probs, axis=1).max() == 0.0  # one draw per member, repeated (l. 71-72)
        assert np.ptp(sc.ens_probs[:, 0], axis=1).min() > 0  # members differ from each other
        np.testing.assert_allclose(np.einsum("rnmk,rnm->rnk", sc.ens_probs, sc.weights), sc.truth, atol=1e-12)

    def test_h0_const_weights_are_dirichlet_one_per_instance(self):
        # x_dep=False: Dir(1_M) per instance: mean 1/M, variance (M - 1) / (M^2 (M + 1)) (closed form)
        m = 4
        sc = authors_multiclass_scenario("H0-const", n_datasets=2, n_instances=20000, n_members=m, n_classes=3, seed=1)
        w = sc.weights.reshape(-1, m)
        np.testing.assert_allclose(w.mean(0), 1 / m, atol=0.005)
        np.testing.assert_allclose(w.var(0), (m - 1) / (m**2 * (m + 1)), rtol=0.03)
        assert abs(np.corrcoef(w[:-1, 0], w[1:, 0])[0, 1]) < 0.02  # independent between instances

    def test_h0_inst_weights_softmax_of_scaled_quadratics(self):
        sc = authors_multiclass_scenario("H0-inst", n_datasets=2, n_instances=400, seed=2)
        x = sc.features[..., 0]
        logw = np.log(sc.weights)
        for r in range(2):
            s = logw[r] - logw[r, :, :1]  # differences of scores: each a quadratic in x
            for j in range(1, 10):
                coef = np.polyfit(x[r], s[:, j], 2)
                np.testing.assert_allclose(np.polyval(coef, x[r]), s[:, j], atol=1e-8)
            spread = np.ptp(logw[r] - logw[r].mean(-1, keepdims=True), axis=0)
            assert (spread < 2 * 5.0).all()  # each score spans an interval inside [0, 5]

    def test_alternatives_match_their_grid_boundary(self):
        """Truth = deg e_c + (1 - deg) p_b, p_b by their get_boundary: 100 grid points, linprog feasibility."""
        from scipy.optimize import linprog

        from credalbook._random import dirichlet

        def is_calibrated(members, p):  # their src/utils/polytope.py, l. 8-29
            m = len(members)
            return linprog(np.zeros(m), A_eq=np.r_[members.T, np.ones((1, m))], b_eq=np.r_[p, 1.0]).success

        r, n, k = 4, 30, 10
        for h, deg in zip(("H1-1", "H1-3"), (AUTHORS_H1_DEGREES[0], AUTHORS_H1_DEGREES[2])):
            sc = authors_multiclass_scenario(h, n_datasets=r, n_instances=n, seed=3)
            assert sc.weights is None and np.ptp(sc.truth, axis=1).max() == 0.0
            rng = np.random.default_rng(3)  # the generator's draws, in its order
            rng.uniform(size=(r, n))
            a0 = dirichlet(np.ones(k), rng, (r,))
            members = dirichlet(np.broadcast_to(a0[:, None, :] * k / 0.1, (r, 10, k)), rng)
            c = rng.integers(0, k, size=r)
            np.testing.assert_array_equal(members, sc.ens_probs[:, 0])
            for i in range(r):
                pc = np.eye(k)[c[i]]
                grid = [l * pc + (1 - l) * a0[i] for l in np.linspace(0, 1, 100)]
                inside = np.array([is_calibrated(members[i], p) for p in grid])
                pb = grid[max(int(np.argmax(~inside)) - 1, 0)]
                np.testing.assert_allclose(sc.truth[i, 0], deg * pc + (1 - deg) * pb, atol=1e-9)
