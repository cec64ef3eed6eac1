"""Run one part of the EU chapter at `paper` scale and write its per-seed numbers with provenance.

A part is the toy experiment of Sec. 5.3.1 (``--part toy``) or the real-data experiment of Sec. 5.4
(``--part real``) for the given seeds, with the chapter's `paper` preset (the same calls as the
chapter's cells). Parts can run on different machines and days; each writes
``<out>/<part>-seeds-<first>-<last>.json`` holding, per seed, every metric of both estimators
(``EUStudy.seed_values``), the accuracies, the test-set sizes, the EECE floor, the GP training
seconds, and a manifest (commit, date, machine, CPU, GPU, library versions, preset, wall time).
These are the inputs of :func:`credalbook.papers.eu.compare`; the paper-scale edition merges them.

  python scripts/eu_part.py --part toy --seeds 0 1 2 --device cuda --out results/05_epistemic_uncertainty_gp/paper
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import subprocess
import time
from pathlib import Path

import numpy as np


VARIANTS = ("main", "large_calibration", "low_aleatoric", "carved_less")


def _commit(explicit: str | None) -> dict:
    if explicit:
        return {"commit": explicit, "clean": None}
    try:
        sha = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
        dirty = bool(subprocess.run(["git", "status", "--porcelain"], capture_output=True, text=True).stdout.strip())
        return {"commit": sha, "clean": not dirty}
    except (OSError, subprocess.CalledProcessError):
        return {"commit": None, "clean": None}


def _machine() -> dict:
    import gpytorch
    import torch

    cpu = platform.processor()
    try:
        cpu = next(line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                   if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return {"cpu": cpu, "cores": os.cpu_count(),
            "gpu": torch.cuda.get_device_name(0) if torch.cuda.is_available() else None,
            "python": platform.python_version(), "torch": torch.__version__, "gpytorch": gpytorch.__version__,
            "numpy": np.__version__}


def main(argv=None) -> int:
    from credalbook import __version__
    from credalbook.papers.eu import real_eu_study, toy_eu_study
    from credalbook.papers.eu.experiments import TOY_NOISE_SD
    from credalbook.papers.presets import preset

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--part", choices=("toy", "real"), required=True)
    parser.add_argument("--seeds", type=int, nargs="+", required=True)
    parser.add_argument("--variant", choices=VARIANTS, default="main",
                        help="toy part only: the main experiment (Sec. 5.3.1), mismatch variant 1 (three large calibration "
                             "discs) or 2 (low-aleatoric test points removed in every second disc) of Sec. 5.3.2, or the "
                             "chapter's sensitivity run with milder carving")
    parser.add_argument("--dataset", default="fashion_mnist", help="real part only")
    parser.add_argument("--device", default="auto")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--commit", default=None, help="the commit, where the tree has no .git")
    args = parser.parse_args(argv)
    if args.part == "real" and args.variant != "main":
        parser.error("--variant applies to --part toy only")
    if len(set(args.seeds)) != len(args.seeds) or min(args.seeds) < 0:
        parser.error(f"--seeds must be distinct non-negative integers; got {args.seeds}")

    cfg = preset("05_epistemic_uncertainty_gp", "paper")
    start = time.perf_counter()
    if args.part == "toy":
        kwargs = dict(noise_sd=TOY_NOISE_SD, window=cfg["toy_window"], evaluation=cfg["toy_discs"],
                      calibration=cfg["toy_discs"], gp=cfg["toy_gp"], n_bins=cfg["n_bins"],
                      n_samples=cfg["n_samples"], device=args.device)
        if args.variant == "large_calibration":
            kwargs["calibration"] = {**cfg["toy_discs"], **cfg["toy_large_discs"]}
        elif args.variant == "low_aleatoric":
            n_discs = int(np.prod(cfg["toy_discs"]["shape"]))
            kwargs.update(low_aleatoric_discs=list(range(1, n_discs, 2)), aleatoric_threshold=cfg["aleatoric_threshold"])
        elif args.variant == "carved_less":
            less = {**cfg["toy_discs"], "p_train": cfg["toy_carved_less"]}
            kwargs.update(evaluation=less, calibration=less)
        study = toy_eu_study(args.seeds, name=f"toy data ({args.variant})", progress=False, **kwargs)
    else:
        kwargs = dict(n_points=cfg["real_points"], split=cfg["real_split"], gp=cfg["real_gp"], n_bins=cfg["n_bins"],
                      n_samples=cfg["n_samples"], device=args.device)
        study = real_eu_study(args.dataset, args.seeds, progress=False, **kwargs)
    wall = time.perf_counter() - start
    record = {
        "chapter": "05_epistemic_uncertainty_gp", "scale": "paper", "part": args.part, "variant": args.variant,
        "dataset": "toy" if args.part == "toy" else args.dataset, "seeds": study.seeds,
        "seed_values": study.seed_values(),
        "excess_M": study.curves("M").excess("raw").tolist(),
        "runs": [{"seed": r.seed, "accuracy": {k: float(v) for k, v in r.accuracy.items()},
                  "sizes": {k: int(v) for k, v in r.sizes.items()}, "eece_floor_E": float(r.eece_floor("E")),
                  "mean_gain": float(r.gain.mean()), "fit_seconds": float(r.fit_seconds)} for r in study.runs],
        "manifest": {**_commit(args.commit), "credalbook": __version__,
                     "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
                     "machine": _machine(), "device": args.device, "wall_seconds": round(wall, 1),
                     "preset": {k: v for k, v in kwargs.items() if k != "device"}},
    }
    args.out.mkdir(parents=True, exist_ok=True)
    tag = ("" if args.variant == "main" else "-" + args.variant) if args.part == "toy" else "-" + args.dataset
    path = args.out / f"{args.part}{tag}-seeds-{min(args.seeds)}-{max(args.seeds)}.json"
    path.write_text(json.dumps(record, indent=1, default=lambda o: o.tolist() if hasattr(o, "tolist") else str(o)) + "\n")
    print(f"{path}: {len(study.seeds)} seeds in {wall:.0f} s; GP training {sum(r.fit_seconds for r in study.runs):.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
