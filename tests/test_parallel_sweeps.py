"""The chapter sweeps of credalbook.papers give the same numbers with any ``n_jobs``, and on a dask cluster.

Every sweep is run at a tiny size with ``n_jobs=1`` (in this process, one item after another: the
code path of the committed results) and ``n_jobs=2`` (joblib's loky processes), and the results must
be *identical* (``assert_array_equal``, not a tolerance): the items carry their own seeds and torch
runs with one thread on both sides. One test sends a Mortier error-rate study through
``joblib.parallel_config(backend="dask")`` to a ``distributed.LocalCluster`` and gets the serial numbers.
"""

import functools

import numpy as np
import pytest
import torch
from joblib import parallel_config
from scipy.special import softmax

from credalbook._parallel import sweep
from credalbook.papers.eu import EU_ESTIMATORS, EU_METRICS, toy_eu_study
from credalbook.papers.juergens import instance_test_error_rates
from credalbook.papers.mimori import bootstrap_metrics, debiasing_study, MimoriPredictions, PredictorOutputs
from credalbook.papers.mortier import set_test_error_rates
from credalbook.papers.wu_gales import calibration_study, region_study, single_model_study, TopologyEnsemble


@pytest.fixture()
def one_torch_thread():
    """The serial side with one torch thread, as the workers (bit-identical torch reductions)."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def _same_study(a, b):
    assert a.measures == b.measures and a.scenario == b.scenario and a.config == b.config
    np.testing.assert_array_equal(a.statistics, b.statistics)
    np.testing.assert_array_equal(a.null, b.null)
    np.testing.assert_array_equal(a.n_evaluations, b.n_evaluations)


class TestSweep:
    def test_main(self):
        items = [(b, e) for b in (2, 3) for e in (1, 2, 3)]
        want = [b**e for b, e in items]
        assert (
            list(sweep(pow, items)) == want == list(sweep(pow, items, n_jobs=2)) == list(sweep(pow, items, n_jobs=None))
        )
        assert list(sweep(pow, [])) == [] and list(sweep(pow, [(5, 2)], n_jobs=-1)) == [25]

    def test_errors(self, tmp_cache):
        for bad in (0, 1.5, "2", True):
            with pytest.raises(ValueError, match="n_jobs must be None or a non-zero integer"):
                list(sweep(pow, [(2, 3)], n_jobs=bad))
        with pytest.raises(ValueError, match="n_jobs"):
            debiasing_study(n_instances=(100,), n_runs=1, n_jobs=0)
        with pytest.raises(ValueError, match="n_jobs"):
            instance_test_error_rates("binary", "H0-const", n_jobs=1.5, **JUERGENS)


LEARNER = {"max_epochs": 8, "patience": 3, "lr": 3e-3}
JUERGENS = dict(
    n_datasets=12,
    n_instances=300,
    estimators=(("kl", {"bandwidth": 0.01}), ("mmd", {"bandwidth": 0.1})),
    n_resamples=20,
    learner_options=LEARNER,
    progress=False,
    seed=1,
)


class TestJuergens:
    @pytest.mark.parametrize("solver", ["cobyla_powell", "search_descent"])  # draws no / some random numbers
    def test_workers_do_not_change_results(self, tmp_cache, one_torch_thread, solver):
        one = instance_test_error_rates("binary", "H0-const", mortier_solver=solver, n_jobs=1, **JUERGENS)
        instance_test_error_rates.clear()
        two = instance_test_error_rates("binary", "H0-const", mortier_solver=solver, n_jobs=2, **JUERGENS)
        _same_study(one, two)
        assert one.statistics.shape == (4, 12) and np.isfinite(one.statistics).all()
        # n_jobs is not part of the cache key: a call with another n_jobs loads the stored study
        again = instance_test_error_rates("binary", "H0-const", mortier_solver=solver, n_jobs=1, **JUERGENS)
        assert again.seconds == two.seconds
        _same_study(again, two)

    def test_without_mortier(self, tmp_cache, one_torch_thread):
        kw = dict(JUERGENS, n_datasets=6, estimators=(("kl", {"bandwidth": 0.01}),), mortier=False)
        one = instance_test_error_rates("binary", "H1-1", n_jobs=1, **kw)
        instance_test_error_rates.clear()
        _same_study(one, instance_test_error_rates("binary", "H1-1", n_jobs=2, **kw))
        assert one.measures == ("KL-CE · new",)


def _ensemble(n_members=4, n_val=200, n_test=200, k=4, seed=0):
    rng = np.random.default_rng(seed)
    signal = 1.5 * rng.normal(size=(n_val + n_test, k))
    y = np.array([rng.choice(k, p=p) for p in softmax(signal, axis=1)])
    z = (3.0 * (signal[:, None, :] + 0.8 * rng.normal(size=(n_val + n_test, n_members, k)))).astype(np.float32)
    return TopologyEnsemble(
        z[:n_val],
        y[:n_val],
        z[n_val:],
        y[n_val:],
        "LEN",
        tuple(range(n_members)),
        ([],) * n_members,
        np.zeros(n_members),
        0,
        {},
    )


class TestWuGales:
    @pytest.mark.parametrize(
        "study",
        [
            functools.partial(calibration_study, subset_size=2, n_runs=4, n_iter=30, n_resamples=40),
            functools.partial(single_model_study, n_iter=30, n_resamples=40),
            functools.partial(region_study, n_regions=(1, 3), subset_size=3, n_runs=3, n_iter=30, n_resamples=40),
        ],
        ids=["calibration", "single_model", "region"],
    )
    def test_workers_do_not_change_results(self, tmp_cache, one_torch_thread, study):
        ens = _ensemble()
        one = study(ens, n_jobs=1)
        from credalbook.papers.wu_gales.experiments import _calibration_runs

        _calibration_runs.clear()
        two = study(ens, n_jobs=2)
        assert one.methods == two.methods and one.metrics == two.metrics and one.subsets == two.subsets
        assert len(one.subsets) > 1
        np.testing.assert_array_equal(one.values, two.values)
        np.testing.assert_array_equal(one.boot, two.boot)
        for ta, tb in zip(one.temperatures, two.temperatures, strict=True):
            for u, v in zip(ta, tb, strict=True):
                np.testing.assert_array_equal(u, v)


class TestMimori:
    def test_debiasing_study(self):
        one = debiasing_study(n_instances=(100, 1000), n_runs=2, seed=0, n_jobs=1)
        two = debiasing_study(n_instances=(100, 1000), n_runs=2, seed=0, n_jobs=2)
        assert list(one.estimates) == list(two.estimates)
        for key, v in one.estimates.items():
            np.testing.assert_array_equal(v, two.estimates[key])
        # the numbers of the study before it took n_jobs (one shared stream per number of labels)
        np.testing.assert_allclose(
            one.estimates[("EL", "debiased", 2)],
            [[-0.014932091048826403, 0.003172188121334729], [-0.003909894974653357, -0.008364372313435835]],
            rtol=1e-12,
        )
        np.testing.assert_allclose(
            one.estimates[("CL", "plug-in", 5)],
            [[0.007952941374414744, 0.0009823169597750077], [0.008335640306271321, 0.0006901139980986211]],
            rtol=1e-12,
        )

    def test_bootstrap_metrics(self):
        rng = np.random.default_rng(0)
        q = rng.dirichlet(np.ones(3), size=300)
        hist = np.stack([rng.multinomial(5, p) for p in q])
        flat = np.full_like(q, 1 / 3)
        outs = {
            (5, "Q"): PredictorOutputs(q, 1 - (q**2).sum(axis=1)),
            (5, "U"): PredictorOutputs(flat, np.full(300, 0.6)),
        }
        pred = MimoriPredictions("demo", (5,), q, {5: hist}, hist[:, :1], outs, {}, None)
        one = bootstrap_metrics(pred, 5, n_resamples=60, seed=2, n_jobs=1)  # 60 resamples: three chunks of 25
        two = bootstrap_metrics(pred, 5, n_resamples=60, seed=2, n_jobs=2)
        assert list(one) == list(two) == ["Q", "U"]
        for name in one:
            assert list(one[name]) == list(two[name])
            for metric, v in one[name].items():
                assert v.shape == (60,)
                np.testing.assert_array_equal(v, two[name][metric])
        # resample 0 by hand: the metrics of the predictor on the drawn instances
        idx = np.random.default_rng(np.random.SeedSequence([2, 26])).integers(0, 300, size=(60, 300))
        from credalbook.papers.mimori.experiments import _metric_rows

        row = _metric_rows(hist, q, {"U": outs[(5, "U")]}, {"U": "U"}, 15, idx[59])["U"]
        assert {k: v for k, v in row.items() if k != "EL true"} == {k: v[59] for k, v in one["U"].items()}


GP = dict(n_inducing=16, epochs=2, batch_size=512, lr=0.05, natural_gradient=True)
DISCS = dict(shape=(2, 1), radius=1.6, p_train=(0.0, 0.6), q_test=0.15)
TOY = dict(window=(8, 8), evaluation=DISCS, calibration=DISCS, gp=GP, n_samples=200, device="cpu", cache=False)


class TestEU:
    def test_workers_do_not_change_results(self, tmp_cache, one_torch_thread):
        one = toy_eu_study([0, 1], progress=False, n_jobs=1, **TOY)
        two = toy_eu_study([0, 1], progress=False, n_jobs=2, **TOY)
        assert one.seeds == two.seeds == [0, 1] and one.config == two.config and "n_jobs" not in one.config
        for a, b in zip(one.runs, two.runs, strict=True):
            np.testing.assert_array_equal(a.gain, b.gain)
            for k in EU_ESTIMATORS:
                np.testing.assert_array_equal(a.eu[k], b.eu[k])
                np.testing.assert_array_equal(a.calibration_eu[k], b.calibration_eu[k])
                assert [a.metric(k, m) for m in EU_METRICS] == [b.metric(k, m) for m in EU_METRICS]
        assert one.runs[0].metric("M", "eece") != one.runs[1].metric("M", "eece")  # two seeds, two runs


MORTIER = dict(
    n_datasets=45,
    n_instances=40,
    n_members=3,
    n_classes=3,
    u=0.1,
    n_resamples=20,
    measures=(("ece_conf", 5), "skce_ul"),
    progress=False,
    seed=5,
)


class TestDask:
    def test_mortier_study_on_a_local_cluster(self, tmp_cache):
        """A Mortier error-rate study sent to a dask.distributed cluster equals the serial study."""
        distributed = pytest.importorskip("distributed")
        serial = set_test_error_rates("S2", n_jobs=1, **MORTIER)
        set_test_error_rates.clear()
        cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None)
        with cluster, distributed.Client(cluster) as client, parallel_config(backend="dask"):
            with distributed.get_task_stream(client) as tasks:
                on_cluster = set_test_error_rates("S2", n_jobs=-1, **MORTIER)
        assert len(tasks.data) >= 3  # the chunks of datasets (20 + 20 + 5) ran as tasks on the cluster
        _same_study(serial, on_cluster)
        assert serial.statistics.shape == (2, 45)
