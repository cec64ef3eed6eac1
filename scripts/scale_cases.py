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
    return dict(case=name, seconds=best, peak_mib=max(_peak_mib() - before, 0.0), value=value, note=note)


if __name__ == "__main__":
    print(json.dumps(run(sys.argv[1])))
