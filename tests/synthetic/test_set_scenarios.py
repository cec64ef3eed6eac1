"""Tests for credalbook.synthetic.set_scenarios: S1 truths lie in the credal set, S2/S3 truths outside it,
boundary points on the hull, corners as specified, labels drawn from the truth."""

import numpy as np
import pytest

from credalbook.credal import hull_distance
from credalbook.synthetic import credal_scenario, SCENARIOS


class TestCredalScenario:
    @pytest.mark.parametrize("scenario", SCENARIOS)
    def test_main(self, scenario):
        sc = credal_scenario(scenario, n_datasets=3, n_instances=40, n_members=5, n_classes=4, u=0.2, seed=0)
        assert sc.ens_probs.shape == (3, 40, 5, 4) and sc.labels.shape == (3, 40) and sc.truth.shape == (3, 40, 4)
        np.testing.assert_allclose(sc.ens_probs.sum(-1), 1.0)
        np.testing.assert_allclose(sc.truth.sum(-1), 1.0)
        dist = hull_distance(sc.ens_probs, sc.truth)
        if scenario == "S1":
            assert sc.is_null and (dist < 1e-7).all()
            np.testing.assert_allclose(sc.truth, np.einsum("rnmk,rm->rnk", sc.ens_probs, sc.weights))
        else:
            assert not sc.is_null
            assert (hull_distance(sc.ens_probs, sc.boundary) < 1e-6).all()
            assert (dist > 1e-9).mean() > 0.95  # outside unless l ~ U(0, 1) is ~0
            corners = np.eye(4)[sc.corner]
            # truth lies on the segment boundary → corner
            d = corners - sc.boundary
            norm2 = (d * d).sum(-1)
            ok = norm2 > 1e-20  # the corner itself can lie in the hull: then truth = boundary = corner
            np.testing.assert_allclose(sc.truth[~ok], corners[~ok], atol=1e-9)
            step = np.where(ok, ((sc.truth - sc.boundary) * d).sum(-1) / np.where(ok, norm2, 1.0), 0.0)
            assert ((step >= 0) & (step <= 1)).all()
            np.testing.assert_allclose(
                sc.truth, step[..., None] * corners + (1 - step[..., None]) * sc.boundary, atol=1e-9
            )

    def test_corners(self):
        s2 = credal_scenario("S2", n_datasets=2, n_instances=200, n_members=5, n_classes=4, u=0.2, seed=1)
        np.testing.assert_array_equal(s2.corner, s2.ens_probs.mean(axis=2).argmax(axis=-1))
        s3 = credal_scenario("S3", n_datasets=2, n_instances=200, n_members=5, n_classes=4, u=0.2, seed=1)
        counts = np.bincount(s3.corner.ravel(), minlength=4)
        assert counts.min() > 60  # uniform over 4 classes, 400 draws

    def test_labels_follow_truth(self):
        sc = credal_scenario("S1", n_datasets=50, n_instances=200, n_members=3, n_classes=3, u=0.5, seed=2)
        freq = np.eye(3)[sc.labels].mean(axis=(0, 1))
        np.testing.assert_allclose(freq, sc.truth.mean(axis=(0, 1)), atol=0.01)

    def test_paper_settings_stay_finite(self):
        for kwargs in (dict(n_members=100), dict(n_classes=100)):
            sc = credal_scenario("S3", n_datasets=2, seed=3, **kwargs)
            assert np.isfinite(sc.ens_probs).all() and np.isfinite(sc.truth).all()
            np.testing.assert_allclose(sc.ens_probs.sum(-1), 1.0)

    def test_centre_start(self):
        # With M = K the Dirichlet centre is outside the members' hull almost surely (Wendel), and
        # Alg. 2 then returns the start itself.
        sc = credal_scenario("S2", n_datasets=2, n_instances=30, segment_start="centre", seed=4)
        assert np.mean(np.all(np.isclose(sc.boundary, sc.centre), axis=-1)) > 0.9

    def test_centre_start_authors_fallback(self):
        # The authors' getBoundary returns the corner e_c (its L[-1]) when p_e is outside the hull: the truth is
        # then the corner and the label its class; inside the hull nothing changes (same draws as "start").
        from credalbook.credal import in_credal_set

        kw = dict(n_datasets=2, n_instances=30, segment_start="centre", seed=4)
        book = credal_scenario("S2", **kw)
        code = credal_scenario("S2", outside_start="end", **kw)
        outside = ~in_credal_set(code.ens_probs, code.centre)
        assert outside.mean() > 0.9 and code.config["outside_start"] == "end"
        corner = np.eye(code.truth.shape[-1])[code.corner]
        np.testing.assert_allclose(code.boundary[outside], corner[outside])
        np.testing.assert_allclose(code.truth[outside], corner[outside])
        np.testing.assert_array_equal(code.labels[outside], code.corner[outside])
        np.testing.assert_array_equal(code.boundary[~outside], book.boundary[~outside])
        np.testing.assert_array_equal(code.ens_probs, book.ens_probs)
        # with the members' mean as start (always inside) the option changes nothing
        a = credal_scenario("S3", n_datasets=1, n_instances=20, seed=1)
        b = credal_scenario("S3", n_datasets=1, n_instances=20, seed=1, outside_start="end")
        np.testing.assert_array_equal(a.truth, b.truth)
        with pytest.raises(ValueError, match="outside_start"):
            credal_scenario("S2", outside_start="corner")

    def test_reproducible(self):
        a = credal_scenario("S3", n_datasets=2, n_instances=20, seed=5)
        b = credal_scenario("S3", n_datasets=2, n_instances=20, seed=5)
        np.testing.assert_array_equal(a.labels, b.labels)
        np.testing.assert_array_equal(a.truth, b.truth)

    def test_sparse_prior(self):
        sc = credal_scenario("S1", n_datasets=400, n_instances=5, n_members=10, weight_prior="sparse", seed=6)
        assert (sc.weights**2).sum(axis=1).mean() == pytest.approx(0.55, rel=0.1)  # E Σλ² = M·0.055

    def test_errors(self):
        with pytest.raises(ValueError, match="scenario"):
            credal_scenario("S4")
        with pytest.raises(ValueError, match="u must be a positive number"):
            credal_scenario("S1", u=0)
        with pytest.raises(ValueError, match="n_classes"):
            credal_scenario("S1", n_classes=1)
        with pytest.raises(ValueError, match="segment_start"):
            credal_scenario("S2", segment_start="median")
        # S1 never finds a boundary point, but a wrong method is still reported
        with pytest.raises(ValueError, match="boundary_method must be one of"):
            credal_scenario("S1", boundary_method="simplex")
        for bad in (-1, 1.5, "a", True):
            with pytest.raises(ValueError, match="seed must be None, a non-negative integer"):
                credal_scenario("S1", seed=bad)
        with pytest.raises(ValueError, match="u must be a positive number"):
            credal_scenario("S1", u=True)
