"""The parts of the Jürgens et al. chapter: its error-rate studies, landscapes, pitfall study and Table 1 analogue.

At the paper's sizes the chapter runs for about two hours on two cores, nearly all of it in the ten studies of
Figs. 3-4 (5-11 minutes each). Each study is its own part, recorded as its
:class:`~credalbook.papers.mortier.ErrorRateSummary` (the decisions at the figures' levels and the p-values,
a few kilobytes) instead of its null samples. The estimator landscapes of Figs. 6-7 (one part per estimator),
App. B's rejection rates (one part per combination), the resampling pitfall (one part per estimator) and the
Table 1 analogue (one part per backbone architecture) are parts too; the rest of the chapter (Fig. 5's null
draws, Fig. 8, the numerical checks) takes seconds and runs live.

The SKCE bandwidths the parts use (median heuristics of the settings' predictions and of Fig. 6's data, to
four significant digits) are computed here, from the chapter's seed, so the chapter shows the bandwidths its
parts were computed with (``JuergensPlan.bandwidths``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from credalbook._validation import check_choice
from credalbook.papers.juergens.authors_settings import AUTHORS_LEARNER
from credalbook.papers.juergens.error_rates import (
    instance_test_error_summary,
    JUERGENS_ESTIMATORS,
    JUERGENS_SUMMARY_ALPHAS,
    resampling_pitfall,
)
from credalbook.papers.juergens.estimators import (
    APP_B_COMBINATIONS,
    combination_rejections,
    estimator_demo_draws,
    estimator_landscapes,
    median_heuristic_bandwidth,
)
from credalbook.papers.juergens.real_sets import TABLE1_ARCHITECTURES, TABLE1_KINDS, table1_rows
from credalbook.papers.parts import Part
from credalbook.synthetic.instance_scenarios import HYPOTHESES, instance_scenario, INSTANCE_SETTINGS

__all__ = [
    "JuergensPlan",
    "LANDSCAPE_ESTIMATORS",
    "PITFALL_ESTIMATORS",
    "juergens_parts",
    "juergens_plan",
    "study_part_name",
]

#: Estimators of Figs. 6-7 (one part each).
LANDSCAPE_ESTIMATORS = ("lp", "kl", "mmd", "skce")
#: Estimators of the resampling pitfall (one part each).
PITFALL_ESTIMATORS = ("lp", "kl")
#: The settings of Figs. 3 (binary) and 4 (multi-class), in order.
SETTINGS = tuple(INSTANCE_SETTINGS)


def study_part_name(setting: str, hypothesis: str) -> str:
    """The part of one study of Figs. 3-4: ``"<setting>-<hypothesis in lower case>"``.

    >>> study_part_name("binary", "H0-const"), study_part_name("multiclass", "H1-3")
    ('binary-h0-const', 'multiclass-h1-3')
    """
    check_choice(setting, "setting", SETTINGS)
    check_choice(hypothesis, "hypothesis", HYPOTHESES)
    return f"{setting}-{hypothesis.lower()}"


@dataclass(frozen=True)
class JuergensPlan:
    """The chapter's parts, and the SKCE bandwidths they use.

    Attributes
    ----------
    parts : list of Part
        ``<setting>-<hypothesis>`` (ten studies of Figs. 3-4), ``landscape-<estimator>`` (Figs. 6-7),
        ``appb-<combination>`` (App. B), ``pitfall-<estimator>``, ``table1-<architecture>`` (``a``, ``b``), then the
        authors' variants: ``table1boot-<architecture>`` (their resampling), ``authors-binary-<hypothesis>``
        (their binary generator) and ``authors-settings-<setting>-<hypothesis>`` (their λ-network, bandwidths, generators and
        Mortier baseline "v0"), then ``testsize-binary-<hypothesis>`` (the binary H0 studies with a four times larger
        test split), then ``tiled-<estimator>`` (Fig. 6 with the authors' tiles), in that order.
    bandwidths : dict
        ``"binary"``, ``"multiclass"`` (Figs. 3-4) and ``"landscape"`` (Figs. 6-7) → the SKCE bandwidth.
    """

    parts: list
    bandwidths: dict = field(default_factory=dict)

    def studies(self, setting: str, values: dict) -> dict:
        """Hypothesis → the study of ``setting`` among ``values`` (part name → value, as ``run_parts`` gives)."""
        names = {h: study_part_name(setting, h) for h in HYPOTHESES}
        missing = [n for n in names.values() if n not in values]
        if missing:
            raise ValueError(f"values lacks the parts {missing}")
        return {h: values[n] for h, n in names.items()}


#: Significant digits of the SKCE bandwidths in the parts' parameters: the binary setting's GP draws differ in
#: the ninth digit between BLAS thread counts, and a parameter that did would mark a record made on another
#: machine stale.
BANDWIDTH_DIGITS = 4


def _rounded(h: float) -> float:
    return float(f"{h:.{BANDWIDTH_DIGITS}g}")


def _settings_bandwidth(setting: str, n_instances: int, seed: int) -> float:
    """The SKCE bandwidth of Figs. 3-4: median heuristic of one H0-const dataset's member predictions."""
    sc = instance_scenario(setting, "H0-const", n_datasets=1, n_instances=n_instances, seed=seed)
    return _rounded(median_heuristic_bandwidth(sc.ens_probs, seed=seed))


def juergens_plan(
    cfg, *, seed: int = 0, dataset: str = "fashion_mnist", device: str = "auto", **_ignored
) -> JuergensPlan:
    """The chapter's plan at preset ``cfg`` with its parameters (others are ignored).

    Computes the three SKCE bandwidths (about half a second at ``paper`` scale).

    Examples
    --------
    >>> from credalbook.papers.presets import preset
    >>> plan = juergens_plan(preset("02_juergens_instance_calibration", "tiny"))
    >>> len(plan.parts), [p.name for p in plan.parts][::5]
    (56, ['binary-h0-const', 'multiclass-h0-const', 'landscape-lp', 'appb-marginal', 'table1-b', 'authors-binary-h1-1', 'authors-settings-multiclass-h0-const', 'testsize-binary-h0-const', 'tiled-mmd', 'table1rfloor-digits-s0-dn0.1', 'oracle-multiclass-h0-inst', 'table1rstop-digits-s0-dn0.6'])
    """
    learner = dict(max_epochs=cfg["epochs"], patience=cfg["patience"])
    bandwidths = {s: _settings_bandwidth(s, cfg["instances"], seed) for s in SETTINGS}
    draws = estimator_demo_draws(cfg["null_instances"], seed=seed)
    bandwidths["landscape"] = _rounded(median_heuristic_bandwidth(draws["landscape_sample"], seed=seed))
    parts = _study_parts(cfg, bandwidths, learner, device=device, seed=seed)
    parts += _landscape_parts(cfg, bandwidths["landscape"], seed=seed)
    parts += _app_b_parts(cfg, seed=seed)
    parts += _pitfall_parts(cfg, seed=seed)
    parts += _table1_parts(cfg, dataset=dataset, device=device, seed=seed)
    parts += _authors_parts(cfg, bandwidths, learner, dataset=dataset, device=device, seed=seed)
    parts += _test_size_parts(cfg, bandwidths, learner, device=device, seed=seed)
    parts += _tiled_parts(cfg, seed=seed)
    parts += _table1_regime_parts(cfg, device=device, seed=seed)
    parts += _table1_floor_parts(parts, cfg["table1_floor"])
    parts += _oracle_parts(parts, cfg["oracle_datasets"])
    parts += _fig4_more_parts(parts, cfg["fig4_more_chunks"])
    parts += _table1_stop_parts(parts)
    return JuergensPlan(parts=parts, bandwidths=bandwidths)


def _tiled_parts(cfg, *, seed) -> list:
    """Fig. 6 as the authors built it (:func:`~credalbook.papers.juergens.tiled_landscape`): one per estimator."""
    from credalbook.papers.juergens.tiled import AUTHORS_TILES, tiled_landscape

    common = dict(n_samples=cfg["tiled_samples"], resolution=cfg["tiled_resolution"], n_repeats=cfg["tiled_repeats"])
    options = AUTHORS_TILES["options"]
    return [Part(f"tiled-{e}", tiled_landscape, {"estimator": e, **common, "seed": seed,
                                                  "estimator_options": dict(options[e])}) for e in options]  # fmt: skip


#: The studies of the authors' binary generator (their ``setting`` 1 and None; H0 with their weights).
AUTHORS_GENERATOR_HYPOTHESES = ("H0-const", "H0-inst", "H1-1", "H1-3")
#: The studies with the authors' λ-network and bandwidths (:data:`AUTHORS_LEARNER`; 0.01 for L2, KL and MMD), their
#: generators and their Mortier baseline beside Mortier et al.'s (``mortier_v0``): (setting, simulator, hypothesis).
AUTHORS_SETTINGS_STUDIES = tuple(
    [("binary", "authors", h) for h in ("H0-const", "H0-inst", "H1-3")]
    + [("multiclass", "authors", h) for h in HYPOTHESES]
)
#: Minutes on one core at ``paper`` scale of the parts :func:`juergens_plan` adds for the authors' resampling,
#: generator, settings and tiles (from the wall times of the recorded parts they resemble; the tiles' from their
#: time at resolution 20, times the 3.8 × more evaluations at 40).
AUTHORS_PART_MINUTES = {
    "table1boot-a": 5,
    "table1boot-b": 6,
    "authors-binary-h0-const": 12,
    "authors-binary-h0-inst": 17,
    "authors-binary-h1-1": 29,
    "authors-binary-h1-3": 25,
    "authors-settings-binary-h0-const": 12,
    "authors-settings-binary-h0-inst": 17,
    "authors-settings-binary-h1-3": 25,
    "authors-settings-multiclass-h0-const": 25,
    "authors-settings-multiclass-h0-inst": 25,
    "authors-settings-multiclass-h1-1": 32,
    "authors-settings-multiclass-h1-2": 30,
    "authors-settings-multiclass-h1-3": 23,
    "testsize-binary-h0-const": 25,
    "testsize-binary-h0-inst": 30,
    "tiled-lp": 3,
    "tiled-kl": 3,
    "tiled-skce": 1,
    "tiled-mmd": 7,
}


def _study(name, setting, hypothesis, cfg, specs, learner, *, device, seed, **extra) -> Part:
    return Part(
        name,
        instance_test_error_summary,
        dict(
            setting=setting,
            hypothesis=hypothesis,
            n_datasets=cfg["datasets"],
            n_instances=cfg["instances"],
            estimators=specs,
            n_resamples=cfg["n_bootstrap"],
            learner_options=learner,
            device=device,
            seed=seed,
            alphas=JUERGENS_SUMMARY_ALPHAS,
            **extra,
        ),
    )


def _authors_parts(cfg, bandwidths, learner, *, dataset, device, seed) -> list:
    """Table 1 with the authors' resampling; Fig. 3 with their generator; Figs. 3-4 with their settings."""
    parts = [
        Part(p.name.replace("table1-", "table1boot-"), p.func, {**p.kwargs, "resample": "bootstrap"})
        for p in _table1_parts(cfg, dataset=dataset, device=device, seed=seed)
    ]
    book = tuple((e, {"bandwidth": bandwidths["binary"]} if e == "skce" else dict(o)) for e, o in JUERGENS_ESTIMATORS)
    for h in AUTHORS_GENERATOR_HYPOTHESES:
        parts.append(
            _study(
                f"authors-binary-{h.lower()}",
                "binary",
                h,
                cfg,
                book,
                learner,
                device=device,
                seed=seed,
                simulator="authors",
            )
        )
    theirs = {**AUTHORS_LEARNER, "max_epochs": min(AUTHORS_LEARNER["max_epochs"], cfg["epochs"])}
    theirs["patience"] = learner["patience"]
    for setting, gen, h in AUTHORS_SETTINGS_STUDIES:
        specs = tuple(
            (e, {"bandwidth": bandwidths[setting]} if e == "skce" else {"bandwidth": 0.01})
            for e, _ in JUERGENS_ESTIMATORS
        )
        extra = {"simulator": gen, "mortier_v0": True} if gen != "book" else {"mortier_v0": True}
        parts.append(
            _study(
                f"authors-settings-{setting}-{h.lower()}",
                setting,
                h,
                cfg,
                specs,
                theirs,
                device=device,
                seed=seed,
                **extra,
            )
        )
    return parts


#: The test-size study (Sec. 4.1: "above-α cases caused by the generalisation error and the test size"): the binary
#: H0 studies with four times the test split and the same optimisation and validation splits (of 8/5 the instances,
#: fractions 0.375 / 0.125 / 0.5), the new test only; compared with ``binary-h0-const`` and ``binary-h0-inst``.
TEST_SIZE_FRACTIONS = (0.375, 0.125, 0.5)
TEST_SIZE_HYPOTHESES = ("H0-const", "H0-inst")


def _test_size_parts(cfg, bandwidths, learner, *, device, seed) -> list:
    """``testsize-binary-<hypothesis>``: the binary H0 studies with a four times larger test split."""
    specs = tuple((e, {"bandwidth": bandwidths["binary"]} if e == "skce" else dict(o)) for e, o in JUERGENS_ESTIMATORS)
    big = {**cfg, "instances": cfg["instances"] * 8 // 5}
    return [
        _study(
            f"testsize-binary-{h.lower()}",
            "binary",
            h,
            big,
            specs,
            learner,
            device=device,
            seed=seed,
            fractions=TEST_SIZE_FRACTIONS,
            mortier=False,
        )
        for h in TEST_SIZE_HYPOTHESES
    ]


def _study_parts(cfg, bandwidths, learner, *, device, seed) -> list:
    """Figs. 3-4: one part per (setting, hypothesis) study."""
    parts = []
    for setting in SETTINGS:
        specs = tuple(
            (e, {"bandwidth": bandwidths[setting]} if e == "skce" else dict(o)) for e, o in JUERGENS_ESTIMATORS
        )
        for h in HYPOTHESES:
            parts.append(_study(study_part_name(setting, h), setting, h, cfg, specs, learner, device=device, seed=seed))
    return parts


def _landscape_parts(cfg, bandwidth, *, seed) -> list:
    """Figs. 6-7: one part per estimator (SKCE with the landscape ``bandwidth``)."""
    return [
        Part(
            f"landscape-{e}",
            estimator_landscapes,
            dict(
                estimator=e,
                n_instances=cfg["landscape_instances"],
                n_repeats=cfg["landscape_repeats"],
                resolution=cfg["landscape_resolution"],
                seed=seed,
                estimator_options={"bandwidth": bandwidth} if e == "skce" else {},
            ),
        )
        for e in LANDSCAPE_ESTIMATORS
    ]


def _app_b_parts(cfg, *, seed) -> list:
    """App. B: one part per combination."""
    return [
        Part(
            f"appb-{c}",
            combination_rejections,
            dict(
                combination=c,
                n_instances=cfg["app_b_instances"],
                n_draws=cfg["app_b_draws"],
                n_resamples=cfg["n_bootstrap"],
                alpha=0.05,
                seed=seed,
            ),
        )
        for c in APP_B_COMBINATIONS
    ]


def _pitfall_parts(cfg, *, seed) -> list:
    """The resampling pitfall: one part per estimator."""
    return [
        Part(
            f"pitfall-{e}",
            resampling_pitfall,
            dict(
                estimator=e,
                setting="multiclass",
                n_datasets=cfg["pitfall_datasets"],
                n_instances=400,
                resamples=("bootstrap", "permutation"),
                seed=seed,
            ),
        )
        for e in PITFALL_ESTIMATORS
    ]


def _table1_parts(cfg, *, dataset, device, seed) -> list:
    """Table 1 analogue: one part per backbone architecture."""
    table_learner = dict(max_epochs=cfg["table_epochs"], patience=cfg["table_patience"], **cfg["table_learner"])
    parts = []
    for arch, extra in TABLE1_ARCHITECTURES.items():
        backbone = dict(n_train=cfg["backbone_train"], epochs=cfg["backbone_epochs"], seed=seed, **extra)
        parts.append(
            Part(
                f"table1-{arch.lower()}",
                table1_rows,
                dict(
                    dataset=dataset,
                    backbone=backbone,
                    kinds=TABLE1_KINDS,
                    n_members=cfg["n_members"],
                    head_epochs=cfg["head_epochs"],
                    n_test=cfg["table_test"],
                    n_resamples=cfg["table_bootstrap"],
                    alpha=0.01,
                    learner_options=table_learner,
                    device=device,
                    seed=seed,
                ),
            )
        )
    return parts


def _table1_regime_parts(cfg, *, device, seed) -> list:
    """Table 1 in the over-confident regime (:func:`~credalbook.papers.juergens.table1_regime_rows`): one part per
    (data set, seed, set), networks of chapter 01's Table 1 cells (data sets, seeds and body: the preset's shared
    ``table1_*`` keys) trained end to end on ``regime_train`` images for ``regime_epochs`` epochs (the first data
    set; as many Adam steps on the others), λ(x) on the first analogue's backbone features (architecture A), both
    resamplings of the null replicates."""
    from credalbook.data import load_dataset
    from credalbook.papers.juergens.regime import table1_regime_rows
    from credalbook.papers.mortier.parts import _table1_epochs

    n_train = cfg["regime_train"]
    epochs_of = _table1_epochs(cfg["table1_datasets"], cfg["regime_epochs"], n_train)
    learner = dict(max_epochs=cfg["table_epochs"], patience=cfg["table_patience"], **cfg["table_learner"])
    parts = []
    for ds in cfg["table1_datasets"]:
        bb_train = cfg["backbone_train"]  # all the images of a data set with fewer
        if bb_train is not None and bb_train >= len(load_dataset(ds).y_train):
            bb_train = None
        backbone = dict(n_train=bb_train, epochs=cfg["backbone_epochs"], seed=seed)
        for s in range(seed, seed + cfg["table1_seeds"]):
            for kind in TABLE1_KINDS:
                kwargs = dict(dataset=ds, set_name=kind, seed=s, n_members=cfg["n_members"], epochs=epochs_of[ds],
                              n_train=n_train, channels=tuple(cfg["table1_channels"]), hidden=cfg["table1_hidden"],
                              n_test=cfg["table_test"], n_resamples=cfg["table_bootstrap"], alpha=0.01,
                              learner_options=learner, backbone=backbone, device=device)  # fmt: skip
                tag = kind.lower().replace("(", "").replace(")", "")
                parts.append(Part(f"table1r-{ds}-s{s}-{tag}", table1_regime_rows, kwargs))
    return parts


def _table1_floor_parts(parts: list, floor: float) -> list:
    """The regime's Table 1 cells again with every member's probabilities floored at ``floor``
    (:func:`~credalbook.papers.juergens.table1_regime_rows`'s ``prob_floor``), ``table1rfloor-*``: the same networks
    (seeds, data, training), λ-network and tests; the one setting changed for the KL row's cause (near-0
    probabilities, where KL's calibration error is most sensitive)."""
    return [
        Part(p.name.replace("table1r-", "table1rfloor-", 1), p.func, {**p.kwargs, "prob_floor": floor})
        for p in parts
        if p.name.startswith("table1r-")
    ]


#: The patience of the regime's early-stopped networks (parts ``table1rstop-*``): the default of the authors' runner,
#: mkjuergens/EnsembleCalibration@8dff2b5 src/data/real/train_ensembles.py l. 505-506, which keeps the model of the
#: lowest validation loss (l. 182-186); the paper: "early stopping: monitor validation loss" (App. D).
STOP_PATIENCE = 25


def _table1_stop_parts(parts: list) -> list:
    """The regime's Table 1 cells again with every network early-stopped on as many further training images as it is
    trained on (at most those left), the weights of its lowest validation loss kept (:data:`STOP_PATIENCE`; ``patience`` of
    :func:`~credalbook.papers.juergens.table1_regime_rows`), ``table1rstop-*``: the same training images,
    initialisations, minibatch order, λ-network and tests, stopped where the paper stops its networks; the one
    setting changed for the share rows' cause (members trained past their best validation loss)."""
    return [
        Part(p.name.replace("table1r-", "table1rstop-", 1), p.func, {**p.kwargs, "patience": STOP_PATIENCE})
        for p in parts
        if p.name.startswith("table1r-")
    ]


def _oracle_parts(parts: list, n_datasets: int) -> list:
    """The H0 studies under the authors' settings with the true λ*(x) in place of the learned λ(x)
    (:func:`~credalbook.papers.juergens.oracle_error_summary`), ``oracle-*``: the same generators, sizes, test fraction,
    estimators and seed, on ``n_datasets`` datasets (no λ-network to train: enough for Bradley's band to decide)."""
    import inspect

    from credalbook.papers.juergens.oracle import oracle_error_summary, oracle_study

    accepted = set(inspect.signature(oracle_study).parameters) | {"alphas"}
    return [
        Part(
            p.name.replace("authors-settings-", "oracle-"),
            oracle_error_summary,
            {**{k: v for k, v in p.kwargs.items() if k in accepted}, "n_datasets": n_datasets},
        )
        for p in parts
        if p.name.startswith("authors-settings-") and "-h0-" in p.name
    ]


def _fig4_more_parts(parts: list, n_chunks: int) -> list:
    """Further datasets of the multi-class H0 studies under the authors' settings, ``fig4more-<hypothesis>-<c>``: the
    arguments of ``authors-settings-multiclass-h0-*`` with seed + c (new, independent datasets), c = 1, ..., ``n_chunks``;
    merged with the study (:func:`~credalbook.papers.mortier.merge_summaries`) for Fig. 4's Type I row, whose pooled
    rate at R = 100 had an interval wider than Bradley's band (``comparison.md``: run more replicates)."""
    return [
        Part(f"fig4more-{p.name.rsplit('multiclass-', 1)[1]}-{c}", p.func, {**p.kwargs, "seed": p.kwargs["seed"] + c})
        for p in parts
        if p.name.startswith("authors-settings-multiclass-h0-")
        for c in range(1, n_chunks + 1)
    ]


def fig4_h0_studies(settings: dict, more: dict) -> dict:
    """Hypothesis ("H0-const", "H0-inst") → the multi-class study under the authors' settings merged with its further
    datasets (:func:`~credalbook.papers.mortier.merge_summaries`, chunks in order): the values of the parts
    ``authors-settings-multiclass-h0-*`` in ``settings`` and ``fig4more-h0-*`` in ``more``, both as
    :func:`~credalbook.book.records.run_parts` returns them.

    Examples
    --------
    >>> import numpy as np
    >>> from credalbook.papers.mortier import ErrorRateStudy
    >>> st = lambda r: ErrorRateStudy("H0-const", ("L2-CE · new",), np.zeros((1, r)), np.ones((1, r, 10)),
    ...                               np.zeros((1, r), int)).summary([0.05])
    >>> out = fig4_h0_studies({"authors-settings-multiclass-h0-const": st(4), "authors-settings-multiclass-h0-inst": st(4)},
    ...                       {"fig4more-h0-const-1": st(2), "fig4more-h0-inst-1": st(3)})
    >>> {h: s.n_datasets for h, s in out.items()}
    {'H0-const': 6, 'H0-inst': 7}
    """
    from credalbook.papers.mortier import merge_summaries

    out = {}
    for h in ("H0-const", "H0-inst"):
        chunks = sorted(
            (n for n in more if n.startswith(f"fig4more-{h.lower()}-")), key=lambda n: int(n.rsplit("-", 1)[1])
        )
        out[h] = merge_summaries([settings[f"authors-settings-multiclass-{h.lower()}"], *(more[n] for n in chunks)])
    return out


def juergens_parts(cfg, **parameters) -> list:
    """The parts of :func:`juergens_plan` (the chapter's entry in ``credalbook.papers.plans.PLANS``)."""
    return juergens_plan(cfg, **parameters).parts
