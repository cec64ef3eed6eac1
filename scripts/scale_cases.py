"""One timed case of the "metrics and tests that scale" benchmark, run in a fresh process.

``python scripts/scale_cases.py CASE`` times CASE with whatever ``credalbook`` is first on
``PYTHONPATH`` and prints one JSON line: ``{"case", "seconds", "peak_mib", "value", "note"}``.
``scripts/benchmark.py --only-scale --before REF`` runs every case here under the code of REF (a git
worktree) and under this checkout, alternately, and prints the table side by side. The cases only
use names that exist in both trees or say ``"n/a"`` when the old code lacks the feature.

``seconds`` is the best of ``repeat`` calls (data generation excluded); ``peak_mib`` is the peak
resident memory of the process during the calls minus the resident memory before them (Linux
``ru_maxrss`` against ``/proc/self/statm``).
"""

from __future__ import annotations

import json
import os
import resource
import sys
import time
from pathlib import Path

import numpy as np

N_BIG, K = 10**6, 10


def _rss_mib() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def _peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def calibrated(n: int, k: int = K, seed: int = 0):
    """Dirichlet(1) probabilities and labels drawn from them (calibrated by construction)."""
    rng = np.random.default_rng(seed)
    p = rng.dirichlet(np.ones(k), size=n)
    y = (rng.random((n, 1)) > np.cumsum(p, axis=1)).sum(axis=1).clip(max=k - 1)
    return p, y


def ensemble(n: int, m: int, k: int = K, seed: int = 0):
    rng = np.random.default_rng(seed)
    ens = rng.dirichlet(np.ones(k), size=(n, m))
    y = (rng.random((n, 1)) > np.cumsum(ens.mean(axis=1), axis=1)).sum(axis=1).clip(max=k - 1)
    return ens, y


def _try(*names):
    """The first of the dotted names that exists, else None (the old tree may lack a feature)."""
    import importlib

    for dotted in names:
        mod, _, attr = dotted.rpartition(".")
        try:
            return getattr(importlib.import_module(mod), attr)
        except (ImportError, AttributeError):
            continue
    return None


def _binned(name, **options):
    def case():
        from credalbook import metrics

        fn = getattr(metrics, name)
        p, y = calibrated(N_BIG)
        opts = dict(options)
        if opts:
            import inspect

            params = set(inspect.signature(fn).parameters)
            if "strategy" in opts and "strategy" not in params and "binning" in params:  # before 0.6
                opts["binning"] = {"uniform": "equal_width", "quantile": "equal_mass"}[opts.pop("strategy")]
            if not set(opts) <= params:
                return None
        return lambda: fn(p, y, **opts)

    return case


def _validation():
    from credalbook._validation import check_probs_labels

    p, y = calibrated(N_BIG)
    return lambda: check_probs_labels(p, y) and None


def _all_label():
    fn = _try("credalbook.metrics.all_label_ece", "credalbook.metrics.ensemble.ace")
    p, y = calibrated(N_BIG)
    return lambda: fn(p, y)


def _new(dotted, n=N_BIG, requires=None, **options):
    def case():
        fn = _try(dotted)
        if fn is None or (requires and _try(requires) is None):
            return None
        p, y = calibrated(n)
        return lambda: fn(p, y, **options)

    return case


def _skce(estimator, n):
    def case():
        from credalbook.metrics import skce_ul, skce_uq

        p, y = calibrated(n)
        fn = skce_ul if estimator == "linear" else skce_uq
        return lambda: fn(p, y)

    return case


def _skce_laplacian(n):
    def case():
        from credalbook.metrics import skce_laplacian

        p, y = calibrated(n)
        return lambda: skce_laplacian(p, y)

    return case


def _hl(n_resamples):
    def case():
        from credalbook.stats import hosmer_lemeshow

        p, y = calibrated(N_BIG)
        return lambda: hosmer_lemeshow(p, y, n_resamples=n_resamples, seed=0).pvalue

    return case


def _set_test():
    from credalbook.stats import set_calibration_test

    ens, y = ensemble(N_BIG, 10)
    return lambda: set_calibration_test(ens, y, n_resamples=100, seed=0).pvalue


def _temperature():
    """Overconfident logits (3 x calibrated ones), N = 5000, K = 10: the NLL optimum is near T = 3."""
    from credalbook.calibration import TemperatureScaling

    rng = np.random.default_rng(0)
    logits = rng.normal(size=(5000, K)) * 1.5
    p = np.exp(logits - logits.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    y = (rng.random((5000, 1)) > np.cumsum(p, axis=1)).sum(axis=1).clip(max=K - 1)
    return lambda: float(TemperatureScaling().fit(3 * logits, y).temperature)


CASES = {
    # name: (factory, repeat, description)
    "validation": (_validation, 5, "check_probs_labels, N = 10^6, K = 10"),
    "ece_confidence": (_binned("ece_confidence"), 5, "ECE (confidence), equal width"),
    "ece_classwise": (_binned("ece_classwise"), 5, "ECE (classwise), equal width"),
    "ece_confidence_mass": (_binned("ece_confidence", strategy="quantile"), 5, "ECE (confidence), equal mass"),
    "ece_classwise_mass": (_binned("ece_classwise", strategy="quantile"), 5, "ECE (classwise), equal mass"),
    "ece_l2_debiased": (_binned("ece_confidence", norm=2, debiased=True), 5, "ℓ2 ECE debiased (Kumar et al.)"),
    "ace_nixon": (
        _new("credalbook.metrics.ace", requires="credalbook.metrics.all_label_ece"),
        5,
        "ACE (Nixon et al.), equal mass, classwise",
    ),
    "all_label_ece": (_all_label, 5, "Wu & Gales all-label ECE (old name `ace`)"),
    "smooth_ece": (_new("credalbook.metrics.smooth_ece"), 3, "smooth ECE (Błasiok & Nakkiran)"),
    "skce_linear": (_skce("linear", N_BIG), 3, "SKCE linear (TV kernel), N = 10^6"),
    "skce_quadratic_1e4": (_skce("quadratic", 10**4), 1, "SKCE quadratic (TV kernel), N = 10^4"),
    "skce_quadratic_1e5": (_skce("quadratic", 10**5), 1, "SKCE quadratic (TV kernel), N = 10^5"),
    "skce_laplacian_1e4": (_skce_laplacian(10**4), 1, "Laplacian SKCE default, N = 10^4"),
    "skce_laplacian_1e6": (_skce_laplacian(N_BIG), 1, "Laplacian SKCE default, N = 10^6"),
    "hosmer_lemeshow_99": (_hl(99), 1, "HL test, 99 resamples"),
    "hosmer_lemeshow": (_hl(999), 1, "HL test, 999 resamples"),
    "set_test": (_set_test, 1, "set test, M = 10, D = 100"),
    "temperature": (_temperature, 3, "TemperatureScaling().fit, N = 5000 (value: T; optimum ≈ 3)"),
}


# ---- issue 49, item 5: 15 bins, intervals, anchors (torchmetrics, netcal, one pass), files and the CLI ----
N_FILE = 10**7
DATA_DIR = os.environ.get("CREDALBOOK_BENCH_DATA", "/tmp/credalbook-bench-data")


def _binned15(name, **options):
    def case():
        from credalbook import metrics

        fn = getattr(metrics, name, None)
        if fn is None:
            return None
        p, y = calibrated(N_BIG)
        bins = {"epsilon": 1 / 30} if name == "all_label_ece" else {"n_bins": 15}  # 15 regions of width 1/15
        return lambda: fn(p, y, **bins, **options)

    return case


def _interval(name):
    def case():
        from credalbook import metrics

        p, y = calibrated(N_BIG)
        fn = getattr(metrics, name)
        return lambda: fn(p, y, n_bins=15, ci=0.95, n_resamples=200, seed=0).high

    return case


def _torchmetrics_ece():
    """torchmetrics' multiclass_calibration_error (l1, 15 bins) on the same probabilities (float64 tensors)."""
    try:
        import torch
        from torchmetrics.functional.classification import multiclass_calibration_error
    except ImportError as err:
        raise ImportError(f"torchmetrics not installed ({err})") from None
    p, y = calibrated(N_BIG)
    tp, ty = torch.from_numpy(p), torch.from_numpy(y)
    return lambda: float(multiclass_calibration_error(tp, ty, num_classes=K, n_bins=15, norm="l1"))


def _alternately(name, ours, theirs, pairs):
    """The timed call of a "beside" case: ``ours`` and ``theirs`` A B A B, ``pairs`` times; it returns best(ours) /
    best(theirs) and leaves both bests in ``call.beside``, which run() reports instead of the whole loop's time."""

    def call():
        best = [float("inf"), float("inf")]
        for _ in range(pairs):
            for i, f in enumerate((ours, theirs)):
                start = time.perf_counter()
                f()
                best[i] = min(best[i], time.perf_counter() - start)
        call.beside = (name, *best)
        return best[0] / best[1]

    return call


def _binned15_beside_torchmetrics(name, pairs=9):
    """``name`` (15 bins) and torchmetrics' top-label error in one process with torch loaded, A B A B: the value is
    best(``name``) / best(torchmetrics), the time is ``name``'s best (the same run, the same input, the same imports)."""

    def case():
        import torch
        from torchmetrics.functional.classification import multiclass_calibration_error

        from credalbook import metrics

        fn = getattr(metrics, name, None)
        if fn is None:
            return None
        p, y = calibrated(N_BIG)
        tp, ty = torch.from_numpy(p), torch.from_numpy(y)
        bins = {"epsilon": 1 / 30} if name == "all_label_ece" else {"n_bins": 15}
        ours = lambda: fn(p, y, **bins)  # noqa: E731
        theirs = lambda: float(multiclass_calibration_error(tp, ty, num_classes=K, n_bins=15, norm="l1"))  # noqa: E731
        ours(), theirs()
        return _alternately(name, ours, theirs, pairs)

    return case


def _binary_anchor_beside(name, pairs=5):
    """``name`` (15 bins) beside torchmetrics computing the same quantity with its binary calibration error, in one
    process, A B A B: ``ece_classwise`` against the mean over classes of ``binary_calibration_error`` on each class's
    column (contiguous, made before the timing), ``all_label_ece`` (ε = 1/30, 15 bins) against one
    ``binary_calibration_error`` on the N·K (probability, indicator) pairs. The values must agree to 1e-12; the value
    reported is best(``name``) / best(torchmetrics), the time ``name``'s best."""

    def case():
        import torch
        from torchmetrics.functional.classification import binary_calibration_error

        from credalbook import metrics

        p, y = calibrated(N_BIG)
        tp, hit = torch.from_numpy(p), torch.nn.functional.one_hot(torch.from_numpy(y), K)
        if name == "ece_classwise":
            cols = [(tp[:, k].contiguous(), hit[:, k].contiguous()) for k in range(K)]
            ours = lambda: metrics.ece_classwise(p, y, n_bins=15)  # noqa: E731
            theirs = lambda: float(  # noqa: E731
                torch.stack([binary_calibration_error(c, h, n_bins=15, norm="l1") for c, h in cols]).mean()
            )
        else:
            flat_p, flat_h = tp.reshape(-1).contiguous(), hit.reshape(-1).contiguous()
            ours = lambda: metrics.all_label_ece(p, y, epsilon=1 / 30)  # noqa: E731
            theirs = lambda: float(binary_calibration_error(flat_p, flat_h, n_bins=15, norm="l1"))  # noqa: E731
        a, b = ours(), theirs()
        if abs(a - b) > 1e-12:
            raise AssertionError(f"{name}: {a!r} here against {b!r} from torchmetrics: not the same quantity")
        return _alternately(name, ours, theirs, pairs)

    return case


def _one_pass():
    """One pass over the N = 10^6, K = 10 float64 probabilities to one number: ``probs.sum()`` (NumPy's pairwise
    summation at memory speed; below what any per-instance computation can reach)."""
    p, _ = calibrated(N_BIG)
    return lambda: float(p.sum())


def _one_pass_rows():
    """One pass over the N = 10^6, K = 10 float64 probabilities to one number per instance: ``probs.max(axis=1)``,
    the least a top-label binned metric computes (the issue's "one pass over the 80 MB ... about 0.04 s")."""
    p, _ = calibrated(N_BIG)
    return lambda: p.max(axis=1)


def _resample_floor(draw_only: bool):
    """The floor of the exact bootstrap of the intervals: 200 replicates of N = 10^6 resample indices drawn from one
    generator (``rng.integers(0, N, size=N)``, the stream of ``credalbook.metrics.intervals.resample_counts``, one
    replicate after the other: one thread), and with ``draw_only=False`` also counted (``np.bincount``): what every
    interval computes before any statistic (value: the last replicate's count of instance 0)."""

    def case():
        n = N_BIG

        def call():
            rng = np.random.default_rng(0)
            for _ in range(200):
                idx = rng.integers(0, n, size=n)
                if not draw_only:
                    counts = np.bincount(idx, minlength=n)
            return int(idx[0]) if draw_only else int(counts[0])

        return call

    return case


def _overconfident_logits(n: int):
    rng = np.random.default_rng(0)
    logits = rng.normal(size=(n, K)) * 1.5
    p = np.exp(logits - logits.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    y = (rng.random((n, 1)) > np.cumsum(p, axis=1)).sum(axis=1).clip(max=K - 1)
    return 3 * logits, y


def _temperature_1e5():
    from credalbook.calibration import TemperatureScaling

    logits, y = _overconfident_logits(10**5)
    return lambda: float(TemperatureScaling().fit(logits, y).temperature)


def _netcal_temperature():
    """netcal's TemperatureScaling (its default fit, CPU) on the softmax of the same logits (value: T)."""
    try:
        from netcal.scaling import TemperatureScaling
    except ImportError as err:
        raise ImportError(f"netcal not installed ({err})") from None
    logits, y = _overconfident_logits(10**5)
    p = np.exp(logits - logits.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)

    def call():
        ts = TemperatureScaling(detection=False, use_cuda=False)
        ts.fit(p, y)
        return 1.0 / float(np.ravel(ts.temperature)[0])  # netcal's "temperature" is the weight 1 / T

    return call


def _data_file(n: int, tag: str) -> tuple[str, str]:
    """``probs`` (n, K) float64 and ``labels`` (n,) .npy files under DATA_DIR, written once, in chunks (calibrated)."""
    probs, labels = os.path.join(DATA_DIR, f"p_{tag}.npy"), os.path.join(DATA_DIR, f"y_{tag}.npy")
    if not (os.path.exists(probs) and os.path.exists(labels)):
        import subprocess

        os.makedirs(DATA_DIR, exist_ok=True)
        subprocess.run([sys.executable, os.path.abspath(__file__), "--write-data", str(n), probs, labels], check=True)
    return probs, labels


def _write_data(n: int, probs: str, labels: str) -> None:
    """Write the files of :func:`_data_file` in chunks of 10^6 rows (its own process: no memory left behind)."""
    big_p = np.lib.format.open_memmap(probs + ".tmp", mode="w+", dtype=np.float64, shape=(n, K))
    big_y = np.lib.format.open_memmap(labels + ".tmp", mode="w+", dtype=np.int64, shape=(n,))
    for s in range(0, n, 10**6):
        p, y = calibrated(min(10**6, n - s), seed=s)
        big_p[s : s + len(y)], big_y[s : s + len(y)] = p, y
    big_p.flush(), big_y.flush()
    del big_p, big_y
    os.replace(probs + ".tmp", probs)
    os.replace(labels + ".tmp", labels)


def _memmap_ece():
    """load_array of an N = 10^7, K = 10 .npy (800 MB) and ece_confidence on it (peak RSS: this process)."""
    from credalbook.data import load_array
    from credalbook.metrics import ece_confidence

    probs, labels = _data_file(N_FILE, "1e7")
    return lambda: ece_confidence(load_array(probs), load_array(labels, name="labels"), n_bins=15)


def _cli(*args, n: int | None = None):
    """Wall time of ``credalbook ARGS`` in a fresh interpreter (this tree's code first on the path)."""

    def case():
        import subprocess
        import tempfile

        argv = list(args)
        if n is not None:
            probs, labels = _data_file(n, "1e6")
            argv += ["--probs", probs, "--labels", labels, "--out", tempfile.mkdtemp(prefix="credalbook-bench-")]
        # -P: not the working directory first on the path, so that PYTHONPATH's tree is the code under test
        cmd = [sys.executable, "-P", "-c", "import sys; from credalbook.cli import main; sys.exit(main())", *argv]
        import credalbook

        tree = str(Path(credalbook.__file__).resolve().parents[1])  # the code under test, not the installed one
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [tree, os.environ.get("PYTHONPATH")]))}

        def call():
            subprocess.run(cmd, check=True, capture_output=True, env=env)
            return None

        return call

    return case


CASES.update(
    {
        "one_pass": (_one_pass, 7, "anchor: one pass to one number, probs.sum(), N = 10^6, K = 10"),
        "one_pass_rows": (_one_pass_rows, 7, "anchor: one pass to one number per row, probs.max(axis=1), N = 10^6"),
        "torchmetrics_ece": (_torchmetrics_ece, 7, "anchor: torchmetrics multiclass_calibration_error, l1, 15 bins"),
        "ece_confidence_15": (_binned15("ece_confidence"), 7, "ECE (confidence), 15 bins"),
        "ece_classwise_15": (_binned15("ece_classwise"), 7, "ECE (classwise), 15 bins"),
        "ace_15": (_binned15("ace"), 5, "ACE (Nixon et al.), 15 bins"),
        "all_label_ece_15": (_binned15("all_label_ece"), 5, "all-label ECE (Wu & Gales), 15 bins"),
        "ece_confidence_beside_tm": (
            _binned15_beside_torchmetrics("ece_confidence"),
            1,
            "ECE (confidence), 15 bins, beside torchmetrics in one process, torch loaded (value: time / torchmetrics')",
        ),
        "ece_classwise_beside_tm": (
            _binned15_beside_torchmetrics("ece_classwise"),
            1,
            "ECE (classwise), 15 bins, beside torchmetrics in one process, torch loaded (value: time / torchmetrics')",
        ),
        "all_label_ece_beside_tm": (
            _binned15_beside_torchmetrics("all_label_ece"),
            1,
            "all-label ECE, 15 bins, beside torchmetrics in one process, torch loaded (value: time / torchmetrics')",
        ),
        "ace_beside_tm": (
            _binned15_beside_torchmetrics("ace"),
            1,
            "ACE, 15 bins, beside torchmetrics in one process, torch loaded (value: time / torchmetrics')",
        ),
        "ece_classwise_beside_tm_binary": (
            _binary_anchor_beside("ece_classwise"),
            1,
            "ECE (classwise), 15 bins, beside torchmetrics' binary error per class (the same quantity; value: time / "
            "torchmetrics')",
        ),
        "all_label_ece_beside_tm_binary": (
            _binary_anchor_beside("all_label_ece"),
            1,
            "all-label ECE, 15 bins, beside torchmetrics' binary error on the N·K pairs (the same quantity; value: "
            "time / torchmetrics')",
        ),
        "ece_confidence_ci": (_interval("ece_confidence"), 3, "ECE (confidence), ci=0.95, 200 resamples"),
        "ece_classwise_ci": (_interval("ece_classwise"), 3, "ECE (classwise), ci=0.95, 200 resamples"),
        "resample_draws_200": (
            _resample_floor(True),
            3,
            "floor: the indices of 200 exact resamples, N = 10^6, one generator (one thread)",
        ),
        "resample_counts_200": (
            _resample_floor(False),
            3,
            "floor: the indices of 200 exact resamples and their counts (bincount), N = 10^6, one thread",
        ),
        "temperature_1e5": (_temperature_1e5, 5, "TemperatureScaling().fit, N = 10^5 (value: T)"),
        "netcal_temperature": (_netcal_temperature, 5, "anchor: netcal TemperatureScaling, N = 10^5 (value: T)"),
        "memmap_1e7": (_memmap_ece, 1, "load_array + ece_confidence, memory-mapped .npy, N = 10^7"),
        "evaluate_cli": (_cli("evaluate", n=N_BIG), 1, "`credalbook evaluate --probs --labels --out`, N = 10^6"),
        "cli_help": (_cli("--help"), 5, "`credalbook --help`"),
    }
)


def _ece_small(name):
    """One objective evaluation of Mortier et al.'s set test (N = 100, K = 10), 2000 times (value: the ECE)."""

    def case():
        from credalbook import metrics

        fn = getattr(metrics.classification, f"{name}_batched")
        p, y = calibrated(100)
        return lambda: [fn(p, y, 10) for _ in range(2000)][-1]

    return case


def _set_test_fig1():
    """Mortier et al. Fig. 1's test with COBYLA (N = 100, M = 10, K = 10), one S1 data set, all seven measures."""
    from credalbook.papers.mortier.error_rates import set_test_error_rates

    def call():
        os.environ["CREDALBOOK_CACHE_DIR"] = f"/tmp/scale-cases-{os.getpid()}-{time.perf_counter_ns()}"
        return set_test_error_rates("S1", n_datasets=2, n_jobs=1, progress=False, seed=1).statistics[0, 0]

    return call


def _member(topology, n_images=3000):
    """One Wu & Gales CPU-sized member trained for one epoch on n_images Fashion-MNIST images (value: best val
    loss); the recipe's memory layout is whichever the tree's recipe has."""

    def case():
        import torch

        from credalbook.papers.wu_gales import topology_member_logits

        torch.set_num_threads(1)

        def call():
            os.environ["CREDALBOOK_CACHE_DIR"] = f"/tmp/scale-cases-{os.getpid()}-{time.perf_counter_ns()}"
            out = topology_member_logits(
                "fashion_mnist",
                topology,
                seed=0,
                n_train=n_images,
                n_test=500,
                train=dict(epochs=1),
                device="cpu",
                progress=False,
            )
            return out["history"][-1]["val_loss"]

        return call

    return case


def _gp_toy_steps(n_steps=8):
    """The EU chapter's paper-scale toy GP (Sec. 5.3 data, seed 0, the "train" GP; 2 048 inducing points, batch
    1 024, natural gradients, fast step, float32) for n_steps minibatch steps on one thread (value: the ELBO)."""

    def case():
        import torch

        from credalbook.gp import fit_gp_classifier
        from credalbook.papers.eu.experiments import toy_eu_splits
        from credalbook.papers.presets import preset

        torch.set_num_threads(1)
        cfg = preset("05_epistemic_uncertainty_gp", "paper")
        t = toy_eu_splits(seed=0, evaluation=cfg["toy_discs"], calibration=cfg["toy_discs"])
        rows = np.random.default_rng(0).choice(t.evaluation.train, n_steps * 1024, replace=False)
        gp = {**cfg["toy_gp"], "epochs": 1}
        return lambda: fit_gp_classifier(t.x[rows], t.y[rows], **gp, seed=0, device="cpu").history[-1]

    return case


def _records_status():
    """``python -m credalbook.book status --scale paper``: the staleness check of every committed paper-scale
    record (the module fingerprints of each against the code now), in a fresh process (value: records)."""

    def case():
        from credalbook.book.records import status

        return lambda: float(len(status(None, scale="paper")))

    return case


SMALL_CASES = {
    "ece_confidence_n100": (_ece_small("ece_confidence"), 3, "ECE (confidence), N = 100, K = 10, 2000 calls"),
    "ece_classwise_n100": (_ece_small("ece_classwise"), 3, "ECE (classwise), N = 100, K = 10, 2000 calls"),
    "set_test_fig1": (_set_test_fig1, 3, "Mortier Fig. 1: 2 S1 data sets x 7 tests (COBYLA)"),
    "member_dsn100": (_member("DSN100"), 2, "W&G CPU-sized DSN100, 1 epoch, 2 700 images"),
    "member_dsn121": (_member("DSN121"), 2, "W&G CPU-sized DSN121, 1 epoch, 2 700 images"),
    "member_rsn": (_member("RSN"), 2, "W&G CPU-sized WRN, 1 epoch, 2 700 images"),
    "gp_toy_steps": (_gp_toy_steps(), 2, "EU toy GP at paper size (m = 2 048, batch 1 024), 8 steps, one thread"),
    "records_status": (_records_status(), 1, "staleness check of every paper-scale record (first call of a process)"),
}
CASES.update(SMALL_CASES)


def run(name: str) -> dict:
    factory, repeat, _ = CASES[name]
    try:
        call = factory()
    except (ImportError, AttributeError, TypeError) as err:
        call, note = None, f"{type(err).__name__}: {err}"
    else:
        note = ""
    if call is None:
        return dict(case=name, seconds=None, peak_mib=None, value=None, note=note or "n/a in this tree")
    before = _rss_mib()
    best, value = float("inf"), None
    try:
        for _ in range(repeat):
            start = time.perf_counter()
            value = call()
            best = min(best, time.perf_counter() - start)
    except MemoryError as err:
        return dict(case=name, seconds=None, peak_mib=_peak_mib() - before, value=None, note=f"MemoryError: {err}")
    value = float(np.asarray(value, dtype=float).ravel()[0]) if value is not None else None
    if hasattr(call, "beside"):  # a side-by-side case: its own best time, torchmetrics' in the note
        fn_name, best, theirs = call.beside
        note = f"{fn_name} {best:.4f} s, torchmetrics {theirs:.4f} s (best of the same run)"
    return dict(case=name, seconds=best, peak_mib=max(_peak_mib() - before, 0.0), value=value, note=note)


if __name__ == "__main__":
    if sys.argv[1] == "--write-data":
        _write_data(int(sys.argv[2]), sys.argv[3], sys.argv[4])
    else:
        print(json.dumps(run(sys.argv[1])))
