"""Resampling in seeded chunks through joblib (credalbook._parallel): results independent of n_jobs, dask."""

import numpy as np
import pytest

from credalbook._parallel import chunk_sizes, root_seed, run_chunks
from credalbook._random import draw_labels
from credalbook.stats import (
    bootstrap_calibration_test,
    calibration_test,
    hosmer_lemeshow,
    NULL_CHUNK,
    set_calibration_test,
)
from credalbook.stats.measures import as_measure
from credalbook.stats.null_distribution import null_statistics


def _data(n=200, k=3, seed=0):
    rng = np.random.default_rng(seed)
    p = rng.dirichlet(np.ones(k), size=n)
    return p, draw_labels(p, rng)


def _draws(size, rng, scale):
    return scale * rng.random(size)


class TestRunChunks:
    def test_main(self):
        """Chunk c draws from default_rng(root.spawn(C)[c]): a closed form of the stream, for any n_jobs."""
        a = run_chunks(_draws, 25, seed=4, chunk_size=10, n_jobs=1, args=(2.0,))
        b = run_chunks(_draws, 25, seed=4, chunk_size=10, n_jobs=2, args=(2.0,))
        c = run_chunks(_draws, 25, seed=4, chunk_size=10, n_jobs=None, args=(2.0,))
        seeds = root_seed(4).spawn(3)
        expected = np.concatenate([2.0 * np.random.default_rng(s).random(m) for s, m in zip(seeds, (10, 10, 5))])
        for got in (a, b, c):
            np.testing.assert_array_equal(got, expected)
        assert chunk_sizes(25, 10) == [10, 10, 5]
        assert not np.array_equal(a, run_chunks(_draws, 25, seed=5, chunk_size=10, args=(2.0,)))

    def test_errors(self):
        for bad in (0, 1.5, True, "2"):
            with pytest.raises(ValueError, match="n_jobs"):
                run_chunks(_draws, 5, n_jobs=bad, args=(1.0,))
        with pytest.raises(ValueError, match="n_resamples"):
            run_chunks(_draws, 0, args=(1.0,))


class TestTests:
    def test_serial_stream_kept(self):
        """chunk_size=None: the one-stream null sample of earlier releases (null_statistics from default_rng(seed))."""
        p, y = _data()
        res = bootstrap_calibration_test(p, y, n_resamples=60, seed=9, chunk_size=None)
        g = as_measure("ece_confidence", n_bins=10)
        expected = null_statistics(p[:, None, :], g.func, 60, "uniform", "bootstrap", np.random.default_rng(9))
        np.testing.assert_array_equal(res.null_distribution, expected)

    @pytest.mark.parametrize("test", ["consistency", "set", "hosmer_lemeshow", "skce_quadratic"])
    def test_independent_of_n_jobs(self, test):
        p, y = _data(seed=1)
        ens = np.stack([p, 0.5 * p + 0.5 / 3], axis=1)
        run = {
            "consistency": lambda j: bootstrap_calibration_test(p, y, n_resamples=2 * NULL_CHUNK + 7, seed=2, n_jobs=j),
            "set": lambda j: set_calibration_test(ens, y, n_resamples=2 * NULL_CHUNK + 7, seed=2, n_jobs=j),
            "hosmer_lemeshow": lambda j: hosmer_lemeshow(p, y, n_resamples=120, seed=2, n_jobs=j),
            "skce_quadratic": lambda j: calibration_test(
                p, y, method="skce_quadratic", n_resamples=250, seed=2, n_jobs=j
            ),
        }[test]
        one, two, default = run(1), run(2), run(None)  # None: joblib's default, the same chunks
        for res in (two, default):
            np.testing.assert_array_equal(one.null_distribution, res.null_distribution)
            assert one.pvalue == res.pvalue and one.statistic == res.statistic


def test_dask_local_cluster():
    """One calibration test on a dask LocalCluster (2 workers) gives the p-value of the serial run."""
    distributed = pytest.importorskip("distributed")
    from joblib import parallel_config

    p, y = _data(n=300, k=4, seed=3)
    serial = calibration_test(p, y, method="consistency", n_resamples=199, seed=5, n_jobs=1)
    with (
        distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None) as cluster,
        distributed.Client(cluster) as client,
    ):
        with parallel_config(backend="dask"):
            on_cluster = calibration_test(p, y, method="consistency", n_resamples=199, seed=5, n_jobs=-1)
        assert len(client.scheduler_info()["workers"]) == 2
        prefixes = client.run_on_scheduler(lambda dask_scheduler: list(dask_scheduler.task_prefixes))
    assert on_cluster.pvalue == serial.pvalue
    np.testing.assert_array_equal(on_cluster.null_distribution, serial.null_distribution)
    assert any("_call" in name for name in prefixes), prefixes  # joblib's batches of chunks ran on the cluster
