"""One reliability diagram of several models evaluated on the same labels, each with its consistency band.

:func:`plot_reliability_comparison` overlays the reliability curves of every model (one colour each, the
legend giving each model's binned ECE of the drawn curve) and shades each model's consistency band
(:func:`credalbook.metrics.consistency_bands`, Bröcker & Smith 2007) in its colour.
:meth:`credalbook.stats.ModelComparison.plot` draws it for the models of a comparison.
``model_predictions`` is the door check that the comparison and this figure share.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

import numpy as np

from credalbook._validation import (
    as_predictions,
    as_rng,
    check_binary_labels,
    check_n_bins,
    check_positive_int,
    check_probability,
    check_probs_labels,
    check_seed,
    is_binary_scores,
)
from credalbook.metrics.binning import check_strategy
from credalbook.metrics.consistency import consistency_bands
from credalbook.metrics.reliability import check_kind, reliability_curve
from credalbook.plotting.reliability import draw_consistency_band
from credalbook.plotting.theme import axes_or_new

__all__ = ["plot_reliability_comparison", "model_predictions"]


def _logit_names(from_logits, names: list) -> set:
    """The names of the models given as logits: ``from_logits`` is a bool, a collection of names or a mapping."""
    if isinstance(from_logits, (bool, np.bool_)):
        return set(names) if from_logits else set()
    if isinstance(from_logits, Mapping):
        bad = [v for v in from_logits.values() if not isinstance(v, (bool, np.bool_))]
        if bad:
            raise ValueError(f"from_logits must map model names to True or False; got the value {bad[0]!r}")
        chosen = [k for k, v in from_logits.items() if v]
        given = list(from_logits)
    elif isinstance(from_logits, str):
        chosen = given = [from_logits]
    elif isinstance(from_logits, Collection):
        chosen = given = list(from_logits)
    else:
        raise TypeError(
            "from_logits must be True, False, a collection of model names or a mapping name -> bool; "
            f"got {from_logits!r}"
        )
    unknown = [k for k in given if k not in names]
    if unknown:
        raise ValueError(f"from_logits names models that are not in models: {unknown!r} (models: {names!r})")
    return set(chosen)


def model_predictions(models, labels, *, from_logits=False) -> tuple[dict, np.ndarray]:
    """Check the predictions of several models on the same labels: ``({name: float64 probabilities}, labels)``.

    Parameters
    ----------
    models : mapping name -> array-like or tensor
        Each model's predictions: (N, K) probabilities, (N,) scores P(y = 1) of a binary model, or
        logits (see ``from_logits``), converted by :func:`credalbook._validation.as_predictions`.
        Every model must have the same N and K (binary scores: K = 2).
    labels : array-like of int, shape (N,)
    from_logits : bool, collection of names, or mapping name -> bool, default False
        Which models are given as logits (turned into probabilities by a softmax): all (True), none
        (False), or the named ones, so that logits and probabilities can be mixed.

    Returns
    -------
    dict name -> ndarray (N, K), and the labels as int64 (N,)
        Binary scores become the rows ``[1 - p, p]``; their labels may be bools.

    Examples
    --------
    >>> preds, y = model_predictions({"a": [[0.8, 0.2], [0.3, 0.7]], "b": [[2.0, 0.0], [0.0, 0.0]]},
    ...                              [0, 1], from_logits={"b"})
    >>> preds["b"].round(3).tolist(), y.tolist()
    ([[0.881, 0.119], [0.5, 0.5]], [0, 1])
    """
    if not isinstance(models, Mapping):
        raise TypeError(f"models must be a mapping name -> predictions, e.g. {{'A': probs_a}}; got {type(models)!r}")
    if not models:
        raise ValueError("models must hold at least one model; got an empty mapping")
    names = list(models)
    bad = [n for n in names if not isinstance(n, str) or not n]
    if bad:
        raise TypeError(f"models must be keyed by model names (non-empty strings); got the key {bad[0]!r}")
    logits = _logit_names(from_logits, names)
    preds = {n: as_predictions(models[n], f"models[{n!r}]", from_logits=n in logits) for n in names}
    first = names[0]
    for n in names[1:]:
        if preds[n].shape != preds[first].shape:
            raise ValueError(
                f"models[{n!r}] has N, K = {preds[n].shape}; every model must have the N instances and K "
                f"classes of models[{first!r}], {preds[first].shape}"
            )
    if any(is_binary_scores(models[n]) for n in names):  # labels of binary scores: 0/1, bools too
        return preds, check_binary_labels(labels, preds[first].shape[0])
    _, y = check_probs_labels(preds[first], labels)
    return preds, y


def _colours(n: int) -> list:
    import matplotlib

    if n <= 10:
        return [f"C{i}" for i in range(n)]
    cmap = matplotlib.colormaps["tab20" if n <= 20 else "turbo"]
    return [cmap(i / max(1, n - 1)) if n > 20 else cmap(i) for i in range(n)]


def _check_plot_options(kind, strategy, band, ci, n_resamples, n_classes: int):
    """(kind, class_index, strategy) of the figure; the other options checked."""
    strategy = check_strategy(strategy, "plot_reliability_comparison")
    if not isinstance(band, (bool, np.bool_)):
        raise ValueError(f"band must be True or False; got {band!r}")
    check_probability(ci, "ci")
    check_positive_int(n_resamples, "n_resamples", minimum=2)
    if kind is None:
        kind = "classwise" if n_classes == 2 else "confidence"
    kind = check_kind(kind, "plot_reliability_comparison")
    class_index = 1 if kind == "classwise" and n_classes == 2 else None
    return kind, class_index, strategy


def plot_reliability_comparison(
    models,
    labels,
    *,
    ax=None,
    from_logits=False,
    kind: str | None = None,
    strategy: str = "uniform",
    n_bins: int = 15,
    band: bool = True,
    ci: float = 0.95,
    n_resamples: int = 1000,
    seed=None,
):
    """Overlay the reliability diagrams of several models on the same labels, each with its consistency band.

    Each model's curve joins the (mean prediction, observed frequency) points of its non-empty
    bins, in a colour of its own; the legend names each model with the binned ECE of its curve
    (:attr:`credalbook.metrics.ReliabilityCurve.calibration_error`); with ``band`` the model's
    consistency band (Bröcker & Smith 2007) is shaded in its colour. The diagonal is perfect
    calibration.

    Parameters
    ----------
    models : mapping name -> array-like or tensor
        Predictions of each model, as ``model_predictions`` takes them: (N, K) probabilities,
        (N,) scores P(y = 1), or logits (``from_logits``); the same N and K for all.
    labels : array-like of int, shape (N,)
    ax : matplotlib Axes, optional
    from_logits : bool, collection of names, or mapping name -> bool, default False
        Which models are given as logits.
    kind : {"confidence", "classwise"} or None, default None
        None: the top-label (confidence) diagram for K > 2 and the P(y = 1) diagram (class 1) for
        binary models. ``"classwise"`` with K > 2 pools the probabilities of all classes.
    strategy : {"uniform", "quantile"}, default "uniform"
        Equal-width or equal-mass bins.
    n_bins : int, default 15
    band : bool, default True
        Shade each model's consistency band.
    ci : float in (0, 1), default 0.95
        The level of the bands.
    n_resamples : int, default 1000
        Resamples of each band.
    seed : None, int, SeedSequence or Generator
        Seed of the bands (drawn one model after the other from one generator).

    Returns
    -------
    matplotlib Axes

    References
    ----------
    Bröcker, Smith. Increasing the reliability of reliability diagrams. Weather and Forecasting 22,
    651-661, 2007 (consistency bars).

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> rng = np.random.default_rng(0)
    >>> p = rng.dirichlet(np.ones(3), size=500)
    >>> y = (rng.random(500)[:, None] > p.cumsum(axis=1)).sum(axis=1)
    >>> ax = plot_reliability_comparison({"calibrated": p, "sharpened": p**3 / (p**3).sum(1, keepdims=True)}, y,
    ...                                  n_bins=10, n_resamples=200, seed=0)
    >>> [t.get_text().split(" (")[0] for t in ax.get_legend().get_texts()]
    ['calibrated', 'sharpened']
    """
    n_bins = check_n_bins(n_bins)
    seed = check_seed(seed)
    preds, y = model_predictions(models, labels, from_logits=from_logits)
    n_classes = next(iter(preds.values())).shape[1]
    kind, class_index, strategy = _check_plot_options(kind, strategy, band, ci, n_resamples, n_classes)
    rng = as_rng(seed)
    ax = axes_or_new(ax)
    for (name, p), colour in zip(preds.items(), _colours(len(preds))):
        curve = reliability_curve(p, y, n_bins=n_bins, kind=kind, class_index=class_index, strategy=strategy)
        shown = curve.counts > 0
        ax.plot(
            curve.mean_predicted[shown],
            curve.observed[shown],
            marker="o",
            markersize=4,
            linewidth=1.5,
            color=colour,
            label=f"{name} (ECE = {curve.calibration_error:.3f})",
            zorder=3,
        )
        if band:
            bands = consistency_bands(
                p,
                kind=kind,
                class_index=class_index,
                n_bins=n_bins,
                strategy=strategy,
                ci=ci,
                n_resamples=n_resamples,
                seed=rng,
            )
            draw_consistency_band(ax, bands, color=colour, label=f"_{name} band")
    ax.plot([0, 1], [0, 1], color="gray", linestyle="--", linewidth=1)
    ax.set_xlim(0.0, 1.0)
    ax.set_ylim(0.0, 1.0)
    ax.set_aspect("equal")
    if kind == "confidence":
        ax.set_xlabel("confidence $c_i$")
        ax.set_ylabel("accuracy")
    else:
        ax.set_xlabel(
            "predicted $P(y = 1)$" if class_index == 1 else r"predicted probability $\hat p_{ik}$ (all classes)"
        )
        ax.set_ylabel("observed frequency")
    title = f"shaded: {float(ci):.0%} consistency bands" if band else None
    ax.legend(loc="upper left", frameon=True, fontsize="small", title=title, title_fontsize="small")
    return ax
