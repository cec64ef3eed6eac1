"""Benchmark the vectorised pieces of credalbook (run: .venv/bin/python scripts/benchmark.py).

Prints wall-clock times (best of a few repeats) for
  * batched ECE / HL statistics over D bootstrap-style replicates vs a Python loop over them,
  * Hosmer-Lemeshow consistency resampling (R label resamples),
  * one training epoch of the MLP / SmallCNN on Fashion-MNIST (if installed),
  * the set calibration test (Mortier et al. Alg. 1): per-test time of each solver, and the Fig. 1
    experiment (3 scenarios x R datasets x 7 tests, D = 100; ``--fig1-datasets 1000`` is the paper's
    full size), uncached;
  * ``--only-topologies``: one training epoch of each Wu & Gales topology (``--topology-scale quick`` or
    ``paper``) and the training time of that chapter's paper protocol extrapolated from it;
    (``--parallel-members``: two members trained one after the other vs side by side, ``n_jobs=2``);
  * ``--only-mimori``: one epoch of Mimori et al.'s base network (App. E.2) on 37 500 Fashion-MNIST images;
  * ``--only-step [--record NAME]``: one training step of Wu & Gales' paper networks and of the EU GP on the
    CPU and (where PyTorch sees one) the GPU, optionally recorded for ``book/reproduce.md``;
  * ``--only-gp``: seconds per minibatch step of the GP classifier (natural gradients, batch 1 024) for
    several numbers of inducing points, and the EU chapter's paper scale extrapolated from it
    (``--gp-linalg-dtype float32``: GPyTorch's factorisations in single instead of double precision).
  * ``--only-scale [--before REF]``: the table at N = 10^6, K = 10 (binned metrics, SKCE, the
    HL test, the set test, temperature scaling), each case in a fresh process (scripts/scale_cases.py)
    (``--only-solver-agreement 150``: the set test's minimisers against COBYLA on S1 data sets)
    under the code of git revision REF (a worktree under .cache/) and under this checkout, side by side;
Timing belongs here, not in the tests. Examples:
  .venv/bin/python scripts/benchmark.py --skip-training
  .venv/bin/python scripts/benchmark.py --only-set-test --fig1-datasets 1000
  .venv/bin/python scripts/benchmark.py --only-scale --before 11fc112
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from credalbook.calibration import RandomAugment
from credalbook.data import DatasetNotFoundError, load_fashion_mnist
from credalbook.gp import fit_gp_classifier
from credalbook.metrics import ece_classwise, ece_confidence
from credalbook.nn import build_model, build_topology, count_parameters, fit, PadCropFlip, resolve_device
from credalbook.papers.juergens import instance_test_error_rates
from credalbook.papers.mimori import build_mix_network, MIX_AUGMENTATIONS
from credalbook.papers.mortier import (
    compare_solvers,
    PAPER_MEASURES,
    PAPER_SETTINGS,
    set_test_error_rates,
    solver_agreement,
)
from credalbook.papers.wu_gales import PAPER_TOPOLOGIES, QUICK_TOPOLOGIES, topology_ensemble_logits
from credalbook.stats import hosmer_lemeshow, hosmer_lemeshow_statistic
from credalbook.synthetic import calibrated_predictions, credal_scenario, sample_labels, SCENARIOS


def best_of(fn, repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def bench_batched(d: int, n: int, k: int) -> None:
    rng = np.random.default_rng(0)
    probs = rng.dirichlet(np.ones(k), size=(d, n))
    labels = sample_labels(probs, rng)
    for name, fn in [
        ("ece_confidence", ece_confidence),
        ("ece_classwise", ece_classwise),
        ("hosmer_lemeshow_statistic", hosmer_lemeshow_statistic),
    ]:
        batched = best_of(lambda: fn(probs, labels, n_bins=10))
        looped = best_of(lambda: [fn(probs[i], labels[i], n_bins=10) for i in range(d)], repeat=1)
        print(
            f"{name:28s} D={d} N={n} K={k}: batched {batched * 1e3:8.1f} ms | loop {looped * 1e3:8.1f} ms "
            f"| speed-up {looped / batched:5.1f}x"
        )


def bench_hl_resampling(n: int, k: int, r: int) -> None:
    probs, labels = calibrated_predictions(n, k, seed=0)
    t = best_of(lambda: hosmer_lemeshow(probs, labels, n_resamples=r, seed=0), repeat=2)
    print(f"hosmer_lemeshow resampling    N={n} K={k} R={r}: {t:.2f} s ({t / r * 1e3:.2f} ms per resample)")


def bench_training(device: str) -> None:
    try:
        ds = load_fashion_mnist()
    except DatasetNotFoundError as err:
        print(f"training benchmark skipped: {err}")
        return
    x, y = ds.x_train, ds.y_train
    for arch, kwargs in [("mlp", dict(hidden=(512, 512))), ("cnn", dict())]:
        model = build_model(arch, n_classes=10, image_shape=ds.image_shape, **kwargs)
        res = fit(model, x, y, epochs=1, batch_size=128, device=device, progress=False)
        print(
            f"fit one epoch, {arch} ({count_parameters(model)} parameters), 60k images, {device}: {res.seconds:.1f} s"
        )


def bench_set_test_solvers(n_datasets: int) -> None:
    sc = credal_scenario("S1", n_datasets=n_datasets, seed=0)
    for measure, n_bins in PAPER_MEASURES:
        out = compare_solvers(
            sc.ens_probs, sc.labels, measure=measure, n_bins=n_bins or 10, solvers=("cobyla", "cobyla_powell", "search")
        )
        print(
            f"set test {measure:9s} B={str(n_bins):4s} per test: "
            + " | ".join(
                f"{name} {1e3 * r['seconds_per_test']:6.1f} ms ({r['n_evaluations'].mean():5.0f} evals)"
                for name, r in out.items()
            )
        )


def bench_fig1(n_datasets: int, n_jobs: int, solver: str) -> None:
    total, tests = 0.0, 0
    for scenario in SCENARIOS:
        study = set_test_error_rates.__wrapped__(
            scenario, n_datasets=n_datasets, solver=solver, n_jobs=n_jobs, progress=False, **PAPER_SETTINGS["Fig. 1"]
        )
        total += study.seconds
        tests += study.statistics.size
        print(f"Fig. 1 {scenario}: {n_datasets} datasets x 7 tests in {study.seconds:.1f} s")
    print(
        f"Fig. 1 ({solver}, n_jobs={n_jobs}): {total:.1f} s for {tests} tests = {1e3 * total / tests:.1f} ms per test "
        f"(wall clock); full paper size (3 x 1000 x 7) extrapolates to {total / tests * 21000 / 60:.1f} min"
    )


def bench_instance_test(setting: str, n_datasets: int, hypotheses, device: str) -> None:
    """Jürgens et al. Figs. 3-4: the new test and Mortier's on R datasets per hypothesis (paper sizes otherwise)."""
    total = 0.0
    for h in hypotheses:
        study = instance_test_error_rates.__wrapped__(setting, h, n_datasets=n_datasets, device=device, progress=False)
        total += study.seconds
        print(
            f"{setting} {h}: {n_datasets} datasets x {len(study.measures)} tests in {study.seconds:.1f} s "
            f"({study.seconds / n_datasets:.2f} s per dataset, all estimators and both tests)"
        )
    per = total / (n_datasets * len(hypotheses))
    print(
        f"{setting}: {per:.2f} s per dataset; the paper's 5 x 100 datasets extrapolate to {per * 500 / 60:.1f} min "
        "(authors' code: 30-80 s per dataset, 5-11 h per experiment)"
    )


def _fashion(n: int):
    ds = load_fashion_mnist()
    return ds.x_train[:n], ds.y_train[:n], ds.image_shape


def bench_topologies(scale: str, n_images: int, device: str) -> None:
    """Wu & Gales: one epoch per topology on `n_images` images, extrapolated to 10 members x recipe epochs x 54 000."""
    x, y, (c, h, _) = _fashion(n_images)
    table = PAPER_TOPOLOGIES if scale == "paper" else QUICK_TOPOLOGIES
    total = 0.0
    for name, spec in table.items():
        net = build_topology(spec["family"], in_channels=c, n_classes=10, image_size=h, **spec["model"])
        recipe = dict(spec["train"], epochs=2, milestones=())
        res = fit(
            net, x, y, seed=0, device=device, progress=False, augment=PadCropFlip(padding=2, hflip=True), **recipe
        )
        epoch = res.history[1]["seconds"] - res.history[0]["seconds"]  # the second epoch: no warm-up cost
        full = epoch * 54000 / n_images * spec["train"]["epochs"] * 10
        total += full
        print(
            f"{name} ({scale}, {count_parameters(net)} parameters): {epoch:.1f} s per epoch over {n_images} "
            f"images; 10 members x {spec['train']['epochs']} epochs x 54 000 images: {full / 3600:.2f} h"
        )
    print(
        f"Wu & Gales paper protocol with the {scale} networks on Fashion-MNIST: {total / 3600:.1f} h of training on {device}"
    )


def bench_parallel_members(n_images: int) -> None:
    """Wu & Gales on a CPU: two quick members per topology, one after the other vs side by side (n_jobs=2)."""
    import os
    import tempfile

    for name in QUICK_TOPOLOGIES:
        times = {}
        for n_jobs in (1, 2):
            os.environ["CREDALBOOK_CACHE_DIR"] = tempfile.mkdtemp()  # nothing cached: both runs train
            start = time.perf_counter()
            topology_ensemble_logits(
                "fashion_mnist",
                name,
                seeds=(0, 1),
                epochs=1,
                n_train=n_images,
                n_test=500,
                device="cpu",
                progress=False,
                n_jobs=n_jobs,
            )
            times[n_jobs] = time.perf_counter() - start
        print(
            f"{name}: two members, one epoch over {n_images} images: {times[1]:.1f} s one after the other, "
            f"{times[2]:.1f} s side by side (n_jobs=2): x{times[1] / times[2]:.2f}"
        )


def bench_mimori(device: str) -> None:
    """Mimori et al.: one epoch of the paper's three-convolution network over 37 500 training images."""
    x, y, shape = _fashion(37500)
    net = build_mix_network("threeconv", n_classes=10, image_shape=shape)
    res = fit(
        net,
        x,
        y,
        epochs=1,
        batch_size=128,
        lr=1e-3,
        seed=0,
        device=device,
        progress=False,
        augment=RandomAugment(**MIX_AUGMENTATIONS["fashion_mnist"]),
    )
    print(
        f"Mimori base network ({count_parameters(net)} parameters): {res.seconds:.1f} s per epoch over 37 500 "
        f"images; at most 100 epochs (patience 10): up to {100 * res.seconds / 3600:.1f} h"
    )


#: Minibatch steps per seed of the EU chapter's paper scale (batch 1 024, 10 epochs; from the fitted set
#: sizes, see book/reproduce.md): toy main experiment (four GPs), mismatch variant 1, the sensitivity run
#: (one seed), Fashion-MNIST (50 dimensions).
EU_PAPER_STEPS = dict(toy=4780, variant1=2200, sensitivity=5040, real=1820)


def bench_gp(inducing, device: str, linalg_dtype: str = "float64") -> None:
    """EU paper: seconds per natural-gradient minibatch step of the GP classifier, 2-D toy and 50-D inputs.

    Each size is timed with GPyTorch's step and with ``fast_step=True`` (the same ELBO and updates with fewer
    m x m operations, see :func:`credalbook.gp.fit_gp_classifier`), the two fits alternating in order, and the
    ratio printed (the machine may be shared: compare the ratio, not the seconds across runs).
    `linalg_dtype`: precision of GPyTorch's Cholesky factorisations and triangular solves in the variational
    strategy (``gpytorch.settings.linalg_dtypes``; GPyTorch's default and the book's is float64).
    """
    import gpytorch
    import torch

    rng = np.random.default_rng(0)
    per_step = {}
    with gpytorch.settings.linalg_dtypes(default=getattr(torch, linalg_dtype)):
        x = rng.normal(size=(2048, 2)).astype(np.float32)
        fit_gp_classifier(x, (x[:, 0] > 0).astype(int), n_inducing=16, epochs=1, natural_gradient=True, device=device)
        for d in (2, 50):
            x = rng.normal(size=(8 * 1024, d)).astype(np.float32)
            y = (x[:, 0] > 0).astype(int)
            for i, m in enumerate(inducing):
                for fast in (False, True) if i % 2 == 0 else (True, False):
                    res = fit_gp_classifier(
                        x,
                        y,
                        n_inducing=m,
                        epochs=1,
                        batch_size=1024,
                        lr=0.05,
                        natural_gradient=True,
                        fast_step=fast,
                        device=device,
                    )
                    per_step[d, m, fast] = res.seconds / 8
                print(
                    f"GP step, {d} dimensions, {m} inducing points, batch 1 024, {linalg_dtype} factorisations, "
                    f"{device}: {per_step[d, m, False]:.3f} s; fast_step {per_step[d, m, True]:.3f} s "
                    f"(ratio {per_step[d, m, True] / per_step[d, m, False]:.2f})"
                )
    if (2, 2048, False) in per_step and (50, 1024, False) in per_step:
        s = EU_PAPER_STEPS
        for fast in (False, True):
            hours = (6 * (s["toy"] + s["variant1"]) + s["sensitivity"]) * per_step[2, 2048, fast] / 3600
            hours_real = 6 * s["real"] * per_step[50, 1024, fast] / 3600
            print(
                f"EU chapter at paper scale{' with fast_step' if fast else ''}: toy {hours:.1f} h + Fashion-MNIST "
                f"{hours_real:.1f} h of GP training on {device}"
            )


def _step_seconds(net, batch: int, device: str, steps: int) -> float:
    """Seconds per SGD step (forward, cross-entropy, backward, update) of ``net`` on random 28 x 28 images."""
    import torch

    net = net.to(device).train()
    opt = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
    gen = torch.Generator().manual_seed(0)
    x = torch.rand(batch, 1, 28, 28, generator=gen).to(device)
    y = torch.randint(0, 10, (batch,), generator=gen).to(device)

    def step():
        opt.zero_grad(set_to_none=True)
        torch.nn.functional.cross_entropy(net(x), y).backward()
        opt.step()

    for _ in range(2):  # warm-up: allocations, kernel selection
        step()
    if device == "cuda":
        torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(steps):
        step()
    if device == "cuda":
        torch.cuda.synchronize()
    return (time.perf_counter() - start) / steps


def bench_step(record: str | None) -> None:
    """One training step on the CPU and, where PyTorch sees one, on the GPU: the Wu & Gales networks the paper
    trains (LeNet-5, DenseNet-100, WRN-28-10; batch sizes of their recipes) and the EU chapter's GP step (2-D
    inputs, 2 048 inducing points, batch 1 024, natural gradients, ``fast_step``). ``record``: also write the
    timings as ``results/benchmark/<record>.json`` (``credalbook.book.records.write_benchmark``), which
    ``book/reproduce.md`` shows."""
    import torch

    from credalbook.book.records import write_benchmark

    start = time.perf_counter()
    devices = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])
    rows = []
    for device in devices:
        for name in ("LEN", "DSN100", "RSN"):
            spec = PAPER_TOPOLOGIES[name]
            torch.manual_seed(0)
            net = build_topology(spec["family"], in_channels=1, n_classes=10, image_size=28, **spec["model"])
            batch = spec["train"]["batch_size"]
            steps = 20 if device == "cuda" or name == "LEN" else 3
            sec = _step_seconds(net, batch, device, steps)
            rows.append(
                {
                    "work": f"{name} ({count_parameters(net)} parameters), batch {batch}, {device}",
                    "seconds": sec,
                    "per": "training step",
                }
            )
            print(f"{rows[-1]['work']}: {sec:.4f} s per training step", flush=True)
        rng = np.random.default_rng(0)
        x = rng.normal(size=(8 * 1024, 2)).astype(np.float32)
        res = fit_gp_classifier(
            x,
            (x[:, 0] > 0).astype(int),
            n_inducing=2048,
            epochs=1,
            batch_size=1024,
            lr=0.05,
            natural_gradient=True,
            fast_step=True,
            device=device,
        )
        rows.append(
            {
                "work": f"GP classifier, 2-D inputs, 2 048 inducing points, batch 1 024, {device}",
                "seconds": res.seconds / 8,
                "per": "natural-gradient step (mean of 8, first included)",
            }
        )
        print(f"{rows[-1]['work']}: {res.seconds / 8:.4f} s per step", flush=True)
    if record:
        path = write_benchmark(
            record,
            rows,
            title="One training step, CPU vs GPU",
            command="python scripts/benchmark.py --only-step --record " + record,
            wall_seconds=time.perf_counter() - start,
        )
        print(f"recorded {path}")


ROOT = Path(__file__).resolve().parents[1]


def _tree(ref: str) -> Path:
    """A detached git worktree of `ref` under .cache/bench-trees/ (created once)."""
    sha = subprocess.run(
        ["git", "rev-parse", "--short", ref], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout.strip()
    path = ROOT / ".cache" / "bench-trees" / sha
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            ["git", "worktree", "add", "--detach", "-f", str(path), sha], cwd=ROOT, check=True, capture_output=True
        )
    return path


def _run_case(tree: Path, case: str, timeout: float) -> dict:
    env = dict(os.environ, PYTHONPATH=str(tree))
    try:
        out = subprocess.run(
            [sys.executable, str(ROOT / "scripts" / "scale_cases.py"), case],
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return dict(case=case, seconds=None, peak_mib=None, value=None, note=f"> {timeout:.0f} s (stopped)")
    if out.returncode:
        last = (out.stderr.strip().splitlines() or ["?"])[-1]
        return dict(case=case, seconds=None, peak_mib=None, value=None, note=f"failed: {last[:120]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def bench_scale(before: str | None, cases, timeout: float, skip_before=(), before_dir: str | None = None) -> None:
    """Issue #27's targets at N = 10^6, K = 10: each case under REF's code and this checkout's, alternately.

    `before_dir`: a directory holding the old code (e.g. ``git archive REF | tar -x -C DIR``) instead of a
    worktree of `before` (which ``git worktree add`` would create).
    """
    sys.path.insert(0, str(ROOT / "scripts"))
    from scale_cases import CASES

    trees = {"after": ROOT}
    if before or before_dir:
        trees = {"before": Path(before_dir) if before_dir else _tree(before), "after": ROOT}
        before = before or str(before_dir)
    print(f"| case | {' | '.join(f'{t} s | {t} MiB | {t} value' for t in trees)} |" + (" ratio |" if before else ""))
    print("|---" * (1 + 3 * len(trees) + bool(before)) + "|")
    for case in cases or CASES:
        rows = {
            label: (
                dict(case=case, seconds=None, peak_mib=None, value=None, note="not run (--skip-before)")
                if label == "before" and case in skip_before
                else _run_case(tree, case, timeout)
            )
            for label, tree in trees.items()
        }

        def cell(r):
            sec = "–" if r["seconds"] is None else f"{r['seconds']:.3f}"
            mib = "–" if r["peak_mib"] is None else f"{r['peak_mib']:.0f}"
            val = r["note"] if r["seconds"] is None else ("" if r["value"] is None else f"{r['value']:.6g}")
            return f"{sec} | {mib} | {val}"

        ratio = ""
        if before:
            b, a = rows["before"]["seconds"], rows["after"]["seconds"]
            ratio = f" {b / a:.1f}× |" if a and b else " – |"
        print(f"| {CASES[case][2]} | " + " | ".join(cell(r) for r in rows.values()) + " |" + ratio, flush=True)


def bench_solver_agreement(n_datasets: int) -> None:
    """Issue #27 item 4: each minimiser of the set test against SciPy's COBYLA on S1 (H0) data sets."""
    out = solver_agreement(n_datasets=n_datasets)
    print(
        f"set test minimisers on {n_datasets} S1 data sets (N = 100, M = 10, K = 10, ECE_conf, D = 100), "
        "against SciPy COBYLA:"
    )
    print(
        "| solver | s/test | × faster | same decision at α = 0.05 | lowest agreement over 12 levels | "
        "mean gap | max gap | worse by > 1e-3 | Type I at 0.05 | Type I at the 12 levels |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, r in out.items():
        rates = ", ".join(f"{v:.3f}" for v in r["rejection_rates"])
        print(
            f"| {name} | {r['seconds_per_test']:.4f} | {r['speedup']:.1f} | {r['agreement']:.3f} | "
            f"{r['agreement_levels']:.3f} | {r['gap_mean']:+.4f} | {r['gap_max']:+.4f} | {r['share_worse']:.3f} | "
            f"{r['rejection_rate']:.3f} | {rates} |",
            flush=True,
        )


def bench_solver_agreement_m100(n_datasets: int) -> None:
    """Issue #24: App. Fig. 3's minimisers (M = 100) against SciPy's COBYLA (1-10 min per test), S1 and S2.

    NLopt's COBYLA is left out: on one S2 data set at M = 100 it ran for over nine minutes without returning.
    """
    print(
        f"set test minimisers on {n_datasets} data sets per scenario (N = 100, M = 100, K = 10, u = 0.01, ECE_conf, "
        "D = 100), against SciPy COBYLA:"
    )
    print(
        "| scenario | solver | s/test | × faster | same decision at α = 0.05 | mean gap | max gap | worse by > 1e-3 |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for scenario in ("S1", "S2"):
        out = solver_agreement(
            solvers=("search_descent", "search"), scenario=scenario, n_datasets=n_datasets, n_members=100
        )
        for name, r in out.items():
            print(
                f"| {scenario} | {name} | {r['seconds_per_test']:.3f} | {r['speedup']:.1f} | {r['agreement']:.3f} | "
                f"{r['gap_mean']:+.4f} | {r['gap_max']:+.4f} | {r['share_worse']:.3f} |",
                flush=True,
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", default="auto")
    parser.add_argument("--skip-training", action="store_true")
    parser.add_argument("--only-set-test", action="store_true")
    parser.add_argument("--fig1-datasets", type=int, default=100, help="R per scenario (paper: 1000)")
    parser.add_argument("--n-jobs", type=int, default=-1)
    parser.add_argument("--solver", default="cobyla_powell")
    parser.add_argument("--only-instance-test", action="store_true", help="only Jürgens et al.'s Figs. 3-4")
    parser.add_argument("--instance-setting", default="multiclass", choices=("binary", "multiclass"))
    parser.add_argument("--instance-datasets", type=int, default=20, help="R per hypothesis (paper: 100)")
    parser.add_argument("--instance-hypotheses", default="H0-const,H0-inst,H1-1,H1-2,H1-3")
    parser.add_argument("--only-topologies", action="store_true", help="only the Wu & Gales topologies")
    parser.add_argument("--topology-scale", default="quick", choices=("quick", "paper"))
    parser.add_argument("--topology-images", type=int, default=5000)
    parser.add_argument("--parallel-members", action="store_true", help="with --only-topologies: n_jobs 1 vs 2")
    parser.add_argument("--only-mimori", action="store_true", help="only Mimori et al.'s base network")
    parser.add_argument("--only-gp", action="store_true", help="only the EU chapter's GP classifier")
    parser.add_argument("--only-step", action="store_true", help="only one training step, CPU vs GPU")
    parser.add_argument(
        "--record",
        default=None,
        metavar="NAME",
        help="with --only-step: write results/benchmark/NAME.json for book/reproduce.md",
    )
    parser.add_argument("--gp-inducing", default="256,512,1024,2048")
    parser.add_argument("--gp-linalg-dtype", default="float64", choices=("float64", "float32"))
    parser.add_argument("--only-scale", action="store_true", help="only the N = 10^6 table")
    parser.add_argument(
        "--only-solver-agreement",
        type=int,
        default=0,
        metavar="R",
        help="only the set test's minimisers against COBYLA on R S1 data sets (150 in the changelog of 0.2.0)",
    )
    parser.add_argument(
        "--only-solver-agreement-m100",
        type=int,
        default=0,
        metavar="R",
        help="only App. Fig. 3's minimisers (M = 100) against SciPy COBYLA, R data sets per scenario",
    )
    parser.add_argument("--before", default=None, help="git revision to time side by side (with --only-scale)")
    parser.add_argument(
        "--before-dir", default=None, help="directory with the old code (git archive REF | tar -x), not a worktree"
    )
    parser.add_argument("--cases", default="", help="comma-separated cases of scripts/scale_cases.py")
    parser.add_argument("--case-timeout", type=float, default=900.0)
    parser.add_argument("--skip-before", default="", help="cases not to run under --before (e.g. set_test: > 20 GiB)")
    args = parser.parse_args()
    if args.only_step:
        bench_step(args.record)
        return
    if args.only_solver_agreement:
        bench_solver_agreement(args.only_solver_agreement)
        return
    if args.only_solver_agreement_m100:
        bench_solver_agreement_m100(args.only_solver_agreement_m100)
        return
    if args.only_scale:
        bench_scale(
            args.before,
            [c for c in args.cases.split(",") if c],
            args.case_timeout,
            [c for c in args.skip_before.split(",") if c],
            before_dir=args.before_dir,
        )
        return
    device = str(resolve_device(args.device))
    if args.only_topologies:
        if args.parallel_members:
            bench_parallel_members(args.topology_images)
        else:
            bench_topologies(args.topology_scale, args.topology_images, device)
        return
    if args.only_mimori:
        bench_mimori(device)
        return
    if args.only_gp:
        bench_gp([int(m) for m in args.gp_inducing.split(",")], device, args.gp_linalg_dtype)
        return
    if args.only_instance_test:
        bench_instance_test(
            args.instance_setting, args.instance_datasets, args.instance_hypotheses.split(","), args.device
        )
        return
    bench_set_test_solvers(10)
    bench_fig1(args.fig1_datasets, args.n_jobs, args.solver)
    if args.only_set_test:
        return
    bench_batched(1000, 100, 10)
    bench_batched(100, 1000, 10)
    bench_hl_resampling(10000, 10, 999)
    if not args.skip_training:
        bench_training(str(resolve_device(args.device)))


if __name__ == "__main__":
    main()
