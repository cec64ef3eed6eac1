"""Size presets of every chapter: one table per chapter, one row per scale.

``tiny`` is the smoke scale used by the tests, ``quick`` the default book build (minutes on two
CPU cores), ``paper`` the papers' own settings. A chapter's ``parameters`` cell names the scale;
the sizes come from here, so the same code path serves every scale::

    cfg = credalbook.preset("00_calibration_primer", scale)
"""

from __future__ import annotations

from types import MappingProxyType

__all__ = ["SCALES", "PRESETS", "preset"]

SCALES = ("tiny", "quick", "paper")

PRESETS = {
    "00_calibration_primer": {
        # n_train: training images; epochs of the over-fitted MLP; hl_*: Type I error check of the
        # Hosmer-Lemeshow references on perfectly calibrated synthetic models (N=1000, K=10, B=10).
        # n_synthetic: instances of the synthetic calibrated model of the "notions" section.
        "tiny": dict(n_train=2000, n_test=2000, epochs=4, hidden=(128,), n_synthetic=5000,
                     hl_datasets=20, hl_resamples=99, n_resamples=199),
        "quick": dict(n_train=10000, n_test=10000, epochs=40, hidden=(512, 512), n_synthetic=50000,
                      hl_datasets=200, hl_resamples=199, n_resamples=999),
        "paper": dict(n_train=60000, n_test=10000, epochs=100, hidden=(512, 512), n_synthetic=200000,
                      hl_datasets=1000, hl_resamples=999, n_resamples=9999),
    },
    "01_mortier_set_calibration": {
        # fig*: datasets R per scenario for Fig. 1 and App. Figs. 2-4 (paper: 1000 each); n_bootstrap: D;
        # fig3_solver: minimiser for M = 100 (COBYLA costs >= 15 s per test there); solver_datasets:
        # datasets per scenario of the solver comparison; variant_datasets: S1 datasets of the
        # authors'-code variant; backbone_*/head_*: the Table 1 networks; illustration_u: spread of Fig. 1 left.
        "tiny": dict(fig1=8, fig2=4, fig3=3, fig4=3, n_bootstrap=20, fig3_solver="search", solver_datasets=3,
                     variant_datasets=8, backbone_train=2000, backbone_epochs=1, head_epochs=2, n_members=4,
                     rf_trees=10, illustration_u=0.1),
        "quick": dict(fig1=60, fig2=30, fig3=15, fig4=15, n_bootstrap=100, fig3_solver="search", solver_datasets=10,
                      variant_datasets=60, backbone_train=10000, backbone_epochs=3, head_epochs=20, n_members=10,
                      rf_trees=20, illustration_u=0.1),
        "paper": dict(fig1=1000, fig2=1000, fig3=1000, fig4=1000, n_bootstrap=100, fig3_solver="search",
                      solver_datasets=100, variant_datasets=1000, backbone_train=None, backbone_epochs=5,
                      head_epochs=20, n_members=10, rf_trees=20, illustration_u=0.1),
    },
    "02_juergens_instance_calibration": {
        # datasets/instances: R and N per scenario of Figs. 3-4 (paper: 100 datasets of 2000 instances);
        # epochs/patience: λ(x) training of the error-rate studies (paper: up to 300 epochs, patience 100);
        # null_draws: Fig. 5 sample size; landscape_*: Figs. 6-7; polytope_*: Fig. 8; table_*: the Table 1 analogue
        # (its sets reuse the Mortier chapter's backbone and heads; table_epochs trains λ(x) on backbone features).
        "tiny": dict(datasets=3, instances=300, n_bootstrap=20, epochs=5, patience=3, null_draws=50, null_instances=200,
                     landscape_instances=80, landscape_repeats=1, landscape_resolution=6, polytope_samples=300,
                     pitfall_datasets=3, backbone_train=2000, backbone_epochs=1, head_epochs=2, n_members=4,
                     table_epochs=2, table_bootstrap=20, table_test=300, app_b_instances=200, app_b_draws=3),
        "quick": dict(datasets=6, instances=2000, n_bootstrap=100, epochs=60, patience=20, null_draws=500,
                      null_instances=400, landscape_instances=400, landscape_repeats=3, landscape_resolution=15,
                      polytope_samples=3000, pitfall_datasets=20, backbone_train=10000, backbone_epochs=3,
                      head_epochs=20, n_members=10, table_epochs=30, table_bootstrap=100, table_test=1000, app_b_instances=500, app_b_draws=20),
        "paper": dict(datasets=100, instances=2000, n_bootstrap=100, epochs=300, patience=100, null_draws=1000,
                      null_instances=400, landscape_instances=1000, landscape_repeats=10, landscape_resolution=25,
                      polytope_samples=5000, pitfall_datasets=200, backbone_train=None, backbone_epochs=5,
                      head_epochs=20, n_members=10, table_epochs=100, table_bootstrap=100, table_test=1000, app_b_instances=1000, app_b_draws=100),
    },
}


def preset(chapter: str, scale: str) -> MappingProxyType:
    """The read-only size settings of ``chapter`` at ``scale``.

    Examples
    --------
    >>> preset("00_calibration_primer", "tiny")["epochs"]
    4
    """
    if chapter not in PRESETS:
        raise ValueError(f"chapter must be one of {sorted(PRESETS)}; got {chapter!r}")
    if scale not in SCALES:
        raise ValueError(f"scale must be one of {SCALES}; got {scale!r}")
    return MappingProxyType(dict(PRESETS[chapter][scale]))
