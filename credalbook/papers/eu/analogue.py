r"""An informative Fashion-MNIST analogue of Sec. 5.4: a binarisation that splits confusable garments, on all or half
of the images.

The paper binarises EMNIST and Kuzushiji-49 by class parity (even vs odd), which cuts through groups of similar
characters. On Fashion-MNIST the parity split puts the four upper-body garments (T-shirt, pullover, coat, shirt)
on one side, so carving a ball costs little accuracy and the gains are tiny. :data:`FASHION_CONFUSABLE_SPLIT`,
fixed before any run, puts one member of each confusable pair on either side: {T-shirt, coat, sandal, bag, ankle
boot} against {shirt, pullover, sneaker, dress, trouser}. The analogue runs it on all 70,000 images and on a fixed
random half of them (:data:`EU_ANALOGUE_DATA`), to test the mechanism Sec. 5.4.1 gives for Kuzushiji-49 against
EMNIST ("likely because K-49 has more than twice as much data. This results in the lower EECE on K-49").

Everything else is the real-data experiment of Sec. 5.4 (:func:`credalbook.papers.eu.real_eu_fit`: the same PCA
features, balls and GP settings); only the binary labels differ, so the balls and the PCA of the analogue at all
the images are those of the chapter's Fashion-MNIST run.
"""

from __future__ import annotations

import numpy as np

from credalbook.papers.eu.experiments import assemble_eu_run, eu_gp_fit, EUFit, EURun
from credalbook.papers.eu.real_data import _real_setup

__all__ = ["EU_ANALOGUE_DATA", "FASHION_CONFUSABLE_SPLIT", "grouped_eu_assemble", "grouped_eu_fit"]

#: Fashion-MNIST classes labelled 1 in the analogue: T-shirt/top (0), coat (4), sandal (5), bag (8), ankle boot (9);
#: shirt (6), pullover (2), sneaker (7), dress (3) and trouser (1) are labelled 0.
FASHION_CONFUSABLE_SPLIT = (0, 4, 5, 8, 9)
#: The two data sizes of the analogue: ``"all"`` the images of the chapter's real-data run at that scale
#: (``real_points``), ``"half"`` a fixed random half of them (preset key ``analogue_half_points``).
EU_ANALOGUE_DATA = ("all", "half")


def _positive(positive) -> tuple:
    if isinstance(positive, (str, bytes)) or not hasattr(positive, "__iter__"):
        raise TypeError(f"positive must be a sequence of class indices; got {positive!r}")
    out = tuple(int(c) for c in positive)
    if not out or len(set(out)) != len(out) or min(out) < 0:
        raise ValueError(f"positive must name distinct non-negative class indices; got {positive!r}")
    return out


def _grouped_setup(dataset, seed, positive, n_points, n_components, split, gp, cache):
    feats, splits, gp = _real_setup(dataset, seed, n_points, n_components, split, gp, cache)
    y = np.isin(feats.labels, _positive(positive)).astype(np.int64)
    if y.min() == y.max():
        raise ValueError(f"positive={positive!r} puts every image of {dataset} in one class")
    return feats, y, splits, gp


def grouped_eu_fit(
    dataset: str = "fashion_mnist",
    seed: int = 0,
    role: str = "train",
    *,
    positive=FASHION_CONFUSABLE_SPLIT,
    n_points: int | None = None,
    n_components: int = 50,
    split: dict | None = None,
    gp: dict | None = None,
    cache: bool = True,
    device="auto",
    progress: bool = False,
) -> EUFit:
    """One GP of the analogue: :func:`credalbook.papers.eu.real_eu_fit` with the classes ``positive`` labelled 1.

    The features, balls and GP settings are :func:`credalbook.papers.eu.real_eu_fit`'s for the same ``dataset``,
    ``seed``, ``n_points``, ``n_components``, ``split`` and ``gp``; only the binary labels differ.

    Examples
    --------
    >>> kw = dict(n_points=400, split=dict(n_centres=2, ball_size=40), gp=dict(n_inducing=8, epochs=1, batch_size=128),
    ...           cache=False, device="cpu")
    >>> fits = {r: grouped_eu_fit("digits", 0, r, positive=(1, 7), **kw) for r in ("train", "aug", "train_2", "aug_2")}
    >>> run = grouped_eu_assemble("digits", 0, fits, positive=(1, 7), n_bins=2, **{k: kw[k] for k in ("n_points", "split")})
    >>> sorted(run.evaluations), run.gain.shape == run.eu["M"].shape
    (['E', 'M'], True)
    """
    feats, y, s, gp = _grouped_setup(dataset, seed, positive, n_points, n_components, split, gp, cache)
    return eu_gp_fit(
        feats.x, y, s.evaluation, s.calibration, role, gp=gp, seed=seed, cache=cache, device=device, progress=progress
    )


def grouped_eu_assemble(
    dataset: str,
    seed: int,
    fits: dict,
    *,
    positive=FASHION_CONFUSABLE_SPLIT,
    n_points: int | None = None,
    n_components: int = 50,
    split: dict | None = None,
    n_bins: int = 20,
    eu_method: str = "mc",
    n_samples: int = 1000,
    cache: bool = True,
) -> EURun:
    """The analogue's run from the four GPs of :func:`grouped_eu_fit` (``fits``: role -> EUFit)."""
    _, y, s, _ = _grouped_setup(dataset, seed, positive, n_points, n_components, split, None, cache)
    return assemble_eu_run(
        y, s.evaluation, s.calibration, fits, n_bins=n_bins, eu_method=eu_method, n_samples=n_samples, seed=seed
    )


def analogue_parts(cfg, *, seeds, analysis: dict, device="auto") -> tuple[list, dict]:
    """The analogue's parts and runs at preset ``cfg``: group ``analogue_<size>`` of :data:`EU_ANALOGUE_DATA`,
    parts ``analogue-<size>-seed<s>-<role>`` on Fashion-MNIST with the chapter's real-data settings.

    Returns ``(parts, runs)`` in the form of :class:`credalbook.papers.eu.EUPlan`.
    """
    from credalbook.papers.eu.experiments import EU_ROLES
    from credalbook.papers.parts import Part

    sizes = {"all": cfg["real_points"], "half": cfg["analogue_half_points"]}
    parts, runs = [], {}
    for size in EU_ANALOGUE_DATA:
        kw = dict(positive=list(FASHION_CONFUSABLE_SPLIT), n_points=sizes[size], split=cfg["real_split"])
        runs[f"analogue_{size}"] = []
        for s in seeds:
            roles = {r: f"analogue-{size}-seed{s}-{r}" for r in EU_ROLES}
            parts += [
                Part(
                    roles[r],
                    grouped_eu_fit,
                    {"dataset": "fashion_mnist", "seed": s, "role": r, **kw, "gp": cfg["real_gp"], "device": device},
                )
                for r in EU_ROLES
            ]
            runs[f"analogue_{size}"].append(
                (s, roles, grouped_eu_assemble, {"dataset": "fashion_mnist", **kw, **analysis})
            )
    return parts, runs
