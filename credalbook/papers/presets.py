"""Size presets of every chapter: one table per chapter, one row per scale.

``tiny`` is the smoke scale used by the tests, ``quick`` the default book build (minutes on two
CPU cores), ``paper`` the papers' own settings. A chapter's ``parameters`` cell names the scale;
the sizes come from here, so the same code path serves every scale::

    cfg = credalbook.papers.presets.preset("00_calibration_primer", scale)
"""

from __future__ import annotations

from types import MappingProxyType

__all__ = ["SCALES", "PRESETS", "SETTINGS", "preset"]

SCALES = ("tiny", "quick", "paper")
#: Keys that are settings (an optimiser's step, momentum), not sizes: unlike the sizes they need not
#: grow from ``tiny`` to ``paper`` (e.g. the paper's learning rate is smaller than the quick one's).
SETTINGS = frozenset({"head_lr", "head_momentum"})

PRESETS = {
    "00_calibration_primer": {
        # n_train: training images; epochs of the over-fitted MLP; hl_*: Type I error check of the
        # Hosmer-Lemeshow references on perfectly calibrated synthetic models (N=1000, K=10, B=10).
        # n_synthetic: instances of the synthetic calibrated model of the "notions" section.
        # widmann_*: data sets per model and bootstrap draws of Widmann et al.'s Fig. 2 (paper: 10^4 and 1000).
        "tiny": dict(
            n_train=2000,
            n_test=2000,
            epochs=4,
            hidden=(128,),
            n_synthetic=5000,
            hl_datasets=20,
            hl_resamples=99,
            n_resamples=199,
            widmann_datasets=40,
            widmann_bootstrap=99,
        ),
        "quick": dict(
            n_train=10000,
            n_test=10000,
            epochs=40,
            hidden=(512, 512),
            n_synthetic=50000,
            hl_datasets=200,
            hl_resamples=199,
            n_resamples=999,
            widmann_datasets=1000,
            widmann_bootstrap=1000,
        ),
        "paper": dict(
            n_train=60000,
            n_test=10000,
            epochs=100,
            hidden=(512, 512),
            n_synthetic=200000,
            hl_datasets=1000,
            hl_resamples=999,
            n_resamples=9999,
            widmann_datasets=10000,
            widmann_bootstrap=1000,
        ),
    },
    "00b_is_my_classifier_calibrated": {
        # The guide reuses the primer's network (same training sizes, so its cached fit); n_resamples: the
        # bootstrap intervals and resampling tests; methods: the one-classifier tests shown (the quadratic
        # SKCE test costs O(N^2) per replicate and is left to the reader at these N).
        "tiny": dict(
            n_train=2000,
            n_test=2000,
            epochs=4,
            hidden=(128,),
            n_resamples=99,
            methods=("consistency", "skce_linear", "hosmer_lemeshow"),
        ),
        "quick": dict(
            n_train=10000,
            n_test=10000,
            epochs=40,
            hidden=(512, 512),
            n_resamples=999,
            methods=("consistency", "skce_linear", "hosmer_lemeshow"),
        ),
        "paper": dict(
            n_train=60000,
            n_test=10000,
            epochs=100,
            hidden=(512, 512),
            n_resamples=9999,
            methods=("consistency", "skce_linear", "hosmer_lemeshow"),
        ),
    },
    "01_mortier_set_calibration": {
        # fig*: datasets R per scenario for Fig. 1 and App. Figs. 2-4 (paper: 1000 each); n_bootstrap: D;
        # fig3_solver: minimiser for M = 100 (COBYLA costs >= 15 s per test there and stops at its 1000 evaluations;
        # the batched "search_descent" reaches lower minima than SciPy's and NLopt's COBYLA in ~0.2 s, see
        # credalbook.stats.bootstrap); solver_datasets:
        # datasets per scenario of the solver comparison; variant_datasets: S1 datasets of the
        # authors'-code variant; backbone_*/head_*: the Table 1 networks (head_lr/head_momentum: SGD of the heads;
        # the paper's App. A.2 gives 1e-5 / 0.99, used at paper scale; the smaller runs keep 1e-2 / 0.9, under
        # which the heads train in 20 epochs on the small backbone); illustration_u: spread of Fig. 1 left;
        # corner_instances: S2 instances of the Fig. 1 (left) closest-corner check; fig1_search_datasets: Fig. 1's S1
        # with fig3_solver (one minimiser for M = 10 and 100); fig3_cobyla_datasets: App. Fig. 3's S1 with NLopt's
        # COBYLA (ECE tests, chunks of 20; fig3_cobyla_options: its settings, a
        # smaller budget at tiny only, a smoke test; stall_seconds: NLopt's COBYLA at M = 100 can stop evaluating and
        # never return, its maxtime being checked only at an evaluation: a run silent for 60 s is ended at its best
        # point and counted, see credalbook.stats.minimise); text_datasets: S2/S3 with the segment from p_e (Sec. 4.1's text);
        # table1_*: the end-to-end Table 1 cells (data sets, seeds, Adam epochs, training images, SmallCNN body);
        # table1_regime_*: training images and epochs of Table 1 in the over-confident regime (the same cells, trained
        # longer on fewer images: at paper scale 5 000 images for 80 epochs, 3 200 Adam steps, chosen from one
        # exploratory run in which one network on Fashion-MNIST reached accuracy 0.86 with confidence 0.04 above it,
        # where 2 epochs on all 60 000 images leave the networks under-confident); table1_regime_seeds: the regime's
        # seeds (at paper six: with the first three, the row "DE: weighted average better calibrated than the average"
        # was inconclusive, -0.0031 with 2 SE 0.0041, too few cells to decide, so seeds 3-5 were added, the design
        # unchanged, and the row says so; the control cells keep table1_seeds).
        "tiny": dict(
            fig1_search_datasets=8,
            fig3_cobyla_datasets=1,
            fig3_cobyla_options={"maxiter": 100, "stall_seconds": 60},
            text_datasets=8,
            table1_datasets=("digits",),
            table1_seeds=1,
            table1_epochs=1,
            table1_train=300,
            table1_regime_train=300,
            table1_regime_epochs=2,
            table1_regime_seeds=1,
            table1_channels=(8, 16),
            table1_hidden=32,
            fig1=8,
            fig2=4,
            fig3=3,
            fig4=3,
            n_bootstrap=20,
            fig3_solver="search_descent",
            solver_datasets=3,
            variant_datasets=8,
            backbone_train=2000,
            backbone_epochs=1,
            head_epochs=2,
            n_members=4,
            rf_trees=10,
            illustration_u=0.1,
            head_lr=1e-2,
            head_momentum=0.9,
            corner_instances=200,
        ),
        "quick": dict(
            fig1_search_datasets=60,
            fig3_cobyla_datasets=10,
            fig3_cobyla_options={"stall_seconds": 60},
            text_datasets=60,
            table1_datasets=("fashion_mnist", "digits"),
            table1_seeds=2,
            table1_epochs=2,
            table1_train=10000,
            table1_regime_train=2000,
            table1_regime_epochs=10,
            table1_regime_seeds=2,
            table1_channels=(32, 64),
            table1_hidden=128,
            fig1=60,
            fig2=30,
            fig3=15,
            fig4=15,
            n_bootstrap=100,
            fig3_solver="search_descent",
            solver_datasets=10,
            variant_datasets=60,
            backbone_train=10000,
            backbone_epochs=3,
            head_epochs=20,
            n_members=10,
            rf_trees=20,
            illustration_u=0.1,
            head_lr=1e-2,
            head_momentum=0.9,
            corner_instances=1000,
        ),
        "paper": dict(
            fig1_search_datasets=1000,
            fig3_cobyla_datasets=100,
            fig3_cobyla_options={"stall_seconds": 60},
            text_datasets=1000,
            table1_datasets=("fashion_mnist", "digits"),
            table1_seeds=3,
            table1_epochs=2,
            table1_train=None,
            table1_regime_train=5000,
            table1_regime_epochs=80,
            table1_regime_seeds=6,
            table1_channels=(32, 64),
            table1_hidden=128,
            fig1=1000,
            fig2=1000,
            fig3=1000,
            fig4=1000,
            n_bootstrap=100,
            fig3_solver="search_descent",
            solver_datasets=100,
            variant_datasets=1000,
            backbone_train=None,
            backbone_epochs=5,
            head_epochs=20,
            n_members=10,
            rf_trees=20,
            illustration_u=0.1,
            head_lr=1e-5,
            head_momentum=0.99,
            corner_instances=1000,
        ),
    },
    "02_juergens_instance_calibration": {
        # datasets/instances: R and N per scenario of Figs. 3-4 (paper: 100 datasets of 2000 instances);
        # epochs/patience: λ(x) training of the error-rate studies (paper: up to 300 epochs, patience 100);
        # null_draws: Fig. 5 sample size; landscape_*: Figs. 6-7; tiled_*: Fig. 6 as the authors built it (labels per
        # tile, grid resolution, further draws near the truth; paper: their 3 000 and 40); oracle_datasets: R of the H0
        # studies with the true λ*(x) (cheap: no λ-network; enough draws for Bradley's band to decide); fig4_more_chunks:
        # further chunks of `datasets` datasets each of the multi-class H0 studies under the authors' settings (Fig. 4's
        # Type I row, pooled: at R = 100 its interval at α = 0.05 straddled the band); table1_floor: the regime's Table 1
        # cells again with every member's probabilities floored there (the KL row's computed cause); regime_train/
        # regime_epochs: training images and epochs of the Table 1 networks in the over-confident regime (data sets,
        # seeds and SmallCNN body are chapter 01's; at paper 1 000 images for 400 epochs, 3 200 Adam steps as chapter
        # 01's regime, chosen from one exploratory run in which a 5-member deep ensemble on Fashion-MNIST had its mean
        # predictor over-confident by +0.090 [0.081, 0.099] at accuracy 0.812, where chapter 01's 5 000 images for 80
        # epochs left it over-confident in 3 of 9 Fashion-MNIST cells); polytope_*: Fig. 8;
        # table_*: the Table 1 analogue
        # (its sets reuse the Mortier chapter's backbone and heads; table_epochs trains λ(x) on backbone features;
        # table_learner/table_patience: the λ-network, at paper the authors' code, mkjuergens/EnsembleCalibration@8dff2b5
        # src/run_analysis_real_data.py: 3 × 128, lr 5e-4, batch 64, 100 epochs, patience 20; n_members at quick and
        # paper: their src/data/real/train_ensembles.py default of 5; {} keeps fit_weight_function's 3 × 32, lr 1e-3, batch 512).
        "tiny": dict(
            datasets=3,
            instances=300,
            n_bootstrap=20,
            epochs=5,
            patience=3,
            null_draws=50,
            null_instances=200,
            landscape_instances=80,
            landscape_repeats=2,
            landscape_resolution=6,
            tiled_samples=60,
            tiled_resolution=5,
            tiled_repeats=2,
            oracle_datasets=3,
            fig4_more_chunks=1,
            table1_floor=1e-3,
            regime_train=300,
            regime_epochs=2,
            polytope_samples=300,
            pitfall_datasets=3,
            backbone_train=2000,
            backbone_epochs=1,
            head_epochs=2,
            n_members=4,
            table_epochs=2,
            table_bootstrap=20,
            table_test=300,
            app_b_instances=200,
            app_b_draws=3,
            table_learner={},
            table_patience=10,
        ),
        "quick": dict(
            datasets=6,
            instances=2000,
            n_bootstrap=100,
            epochs=60,
            patience=20,
            null_draws=500,
            null_instances=400,
            landscape_instances=400,
            landscape_repeats=3,
            landscape_resolution=15,
            tiled_samples=1000,
            tiled_resolution=20,
            tiled_repeats=3,
            oracle_datasets=30,
            fig4_more_chunks=1,
            table1_floor=1e-3,
            regime_train=1000,
            regime_epochs=20,
            polytope_samples=3000,
            pitfall_datasets=20,
            backbone_train=10000,
            backbone_epochs=3,
            head_epochs=20,
            n_members=5,
            table_epochs=30,
            table_bootstrap=100,
            table_test=1000,
            app_b_instances=500,
            app_b_draws=20,
            table_learner={},
            table_patience=10,
        ),
        "paper": dict(
            datasets=100,
            instances=2000,
            n_bootstrap=100,
            epochs=300,
            patience=100,
            null_draws=1000,
            null_instances=400,
            landscape_instances=1000,
            landscape_repeats=10,
            landscape_resolution=25,
            tiled_samples=3000,
            tiled_resolution=40,
            tiled_repeats=5,
            oracle_datasets=500,
            fig4_more_chunks=4,
            table1_floor=1e-3,
            regime_train=1000,
            regime_epochs=400,
            polytope_samples=5000,
            pitfall_datasets=200,
            backbone_train=None,
            backbone_epochs=5,
            head_epochs=20,
            n_members=5,
            table_epochs=100,
            table_bootstrap=100,
            table_test=1000,
            app_b_instances=1000,
            app_b_draws=100,
            table_learner=dict(hidden=(128, 128, 128), lr=5e-4, batch_size=64),
            table_patience=20,
        ),
    },
    "03_mimori_label_histograms": {
        # n_train/n_val/n_test: Mix instances (None: the paper's 37 500 / 7 500 / 7 500); epochs of the base network
        # (None: App. E.3, at most 100 with patience 10, or 250 with warm-up and step decay for colour data);
        # network (per architecture) and training: a narrower three-conv network and a larger step so that the quick
        # build learns on two CPU cores (paper: App. E.2-E.3); n_samples: MC-dropout / TTA members; calib_*: optimiser
        # and epochs of ts / vs / ms and the α head (paper: Adam, 50 epochs, App. E.4); theorem_draws: Monte-Carlo
        # draws of the Theorem 1 check; n_boot: paired bootstrap resamples of the test instances behind the standard
        # errors of the comparison rows. Fig. 2 always runs at the paper's sizes.
        "tiny": dict(
            n_train=1000,
            n_val=300,
            n_test=300,
            epochs=1,
            network={
                "threeconv": dict(channels=(16, 32, 64)),
                "vgg": dict(layers=(16, "M", 32, "M", 64, "M"), hidden=64),
            },
            training=dict(lr=3e-3, batch_size=64),
            n_samples=4,
            calib_optimizer="lbfgs",
            calib_epochs=5,
            theorem_draws=20000,
            n_boot=30,
        ),
        "quick": dict(
            n_train=20000,
            n_val=5000,
            n_test=2000,
            epochs=10,
            network={
                "threeconv": dict(channels=(16, 32, 64)),
                "vgg": dict(layers=(32, 32, "M", 64, 64, "M", 128, 128, "M"), hidden=128),
            },
            training=dict(lr=3e-3, batch_size=64),
            n_samples=20,
            calib_optimizer="lbfgs",
            calib_epochs=10,
            theorem_draws=200000,
            n_boot=200,
        ),
        "paper": dict(
            n_train=None,
            n_val=None,
            n_test=None,
            epochs=None,
            network={"threeconv": {}, "vgg": {}},
            training=dict(lr=1e-3, batch_size=128),
            n_samples=20,
            calib_optimizer="adam",
            calib_epochs=50,
            theorem_draws=1000000,
            n_boot=400,
        ),
    },
    "04_wu_gales_ensemble_calibration": {
        # topologies: the ensembles trained (keys of credalbook.papers.wu_gales.QUICK_TOPOLOGIES / PAPER_TOPOLOGIES, by network_scale);
        # members: networks per topology (seeds 0..M-1); subset / n_runs: members per ensemble and runs (= distinct member
        # subsets) behind the ±2σ of Tables 1, 3-5 and Fig. 3; train: per-topology overrides of the training recipe (None:
        # the recipe; quick: 3 epochs in batches of 32, learning rate divided once); n_train / n_test: images (None: all); val_fraction:
        # held-out share for temperatures and weights (paper: 5 000 of 50 000); fig1: topologies of Fig. 1; fig3_regions: R
        # of Fig. 3; n_iter: SGD steps of every temperature fit (App. A.4: 400); alg1/alg2_samples: N of App. A.3.
        # regime_*: the CIFAR-100 regime on Fashion-MNIST (credalbook.papers.wu_gales.regime): training images per
        # class (CIFAR-100: 450), validation and test images (None: the whole test split), members per topology, epochs.
        "tiny": dict(
            topologies=("LEN", "DSN100", "DSN121", "RSN"),
            network_scale="quick",
            members=dict(LEN=3, DSN100=2, DSN121=2, RSN=2),
            subset=dict(LEN=2, DSN100=1, DSN121=1, RSN=1),
            n_runs=3,
            train=dict(LEN=dict(epochs=1), DSN100=dict(epochs=1), DSN121=dict(epochs=1), RSN=dict(epochs=1)),
            n_train=600,
            n_test=300,
            val_fraction=0.1,
            fig1=("LEN", "DSN121", "RSN"),
            fig3_regions=(1, 2, 4),
            n_iter=100,
            alg1_samples=20000,
            alg2_samples=20000,
            regime_per_class=20,
            regime_n_val=100,
            regime_n_test=200,
            regime_members=2,
            regime_epochs=2,
        ),
        "quick": dict(
            topologies=("LEN", "DSN100", "DSN121", "RSN"),
            network_scale="quick",
            members=dict(LEN=4, DSN100=3, DSN121=3, RSN=3),
            subset=dict(LEN=3, DSN100=2, DSN121=2, RSN=2),
            n_runs=4,
            train=dict(
                LEN=dict(epochs=8, milestones=(5, 7)),
                **{t: dict(epochs=3, milestones=(2,), batch_size=32, lr=0.05) for t in ("DSN100", "DSN121", "RSN")},
            ),
            n_train=4000,
            n_test=2000,
            val_fraction=0.1,
            fig1=("LEN", "DSN121", "RSN"),
            fig3_regions=(1, 2, 3, 4, 6, 8, 10),
            n_iter=400,
            alg1_samples=200000,
            alg2_samples=200000,
            regime_per_class=100,
            regime_n_val=1000,
            regime_n_test=2000,
            regime_members=3,
            regime_epochs=20,
        ),
        "paper": dict(
            topologies=("LEN", "DSN100", "DSN121", "RSN"),
            network_scale="paper",
            members=dict(LEN=10, DSN100=10, DSN121=10, RSN=10),
            subset=dict(LEN=9, DSN100=9, DSN121=9, RSN=9),
            n_runs=10,
            train=dict(LEN=None, DSN100=None, DSN121=None, RSN=None),
            n_train=None,
            n_test=None,
            val_fraction=0.1,
            fig1=("LEN", "DSN121", "RSN"),
            fig3_regions=(1, 2, 3, 4, 6, 8, 10, 15, 20),
            n_iter=400,
            alg1_samples=1000000,
            alg2_samples=1000000,
            regime_per_class=450,
            regime_n_val=5000,
            regime_n_test=None,
            regime_members=10,
            regime_epochs=100,
        ),
    },
    "05_epistemic_uncertainty_gp": {
        # toy_*: Sec. 5.3. toy_window: the lower-left (G1, G2) block of clusters (None: the paper's full 38 × 46
        # grid); toy_discs / toy_large_discs: credalbook.papers.eu.toy_disc_layout arguments of the twelve evaluation and
        # calibration discs and of the three large calibration discs (mismatch variant 1); toy_carved_less: the
        # kept fractions of the sensitivity run; aleatoric_threshold: mismatch variant 2. toy_gp / real_gp:
        # credalbook.gp.fit_gp_classifier options (Pólya-Gamma likelihood, natural gradients; fast_step: the same model
        # and updates up to rounding, about 0.8x the time per step at 1024-2048 inducing points). real_*: Sec. 5.4 on
        # `dataset` (PCA to 50, even vs odd), real_points = None: all images, train and test pooled.
        # n_samples: Monte-Carlo draws per point for the EU integrals; the paper uses Monte Carlo but gives no
        # number of draws, so 1000 is the book's choice. analogue_half_points: the half of the data of the Fashion-MNIST
        # analogue (credalbook.papers.eu.analogue; its "all" is real_points).
        "tiny": dict(
            toy_seeds=2,
            toy_window=(8, 8),
            toy_discs=dict(shape=(2, 1), radius=1.6, p_train=(0.0, 0.6), q_test=0.15),
            toy_large_discs=dict(shape=(1, 1), radius=1.9),
            toy_carved_less=(0.25, 0.85),
            toy_sensitivity_seeds=1,
            aleatoric_threshold=0.1,
            toy_gp=dict(n_inducing=32, epochs=2, batch_size=512, lr=0.05, natural_gradient=True, fast_step=True),
            n_samples=1000,
            n_bins=20,
            real_seeds=1,
            real_points=3000,
            analogue_half_points=1500,
            real_split=dict(n_centres=6, ball_size=0.04, p_train=(0.0, 0.6), q_test=0.15),
            real_gp=dict(
                n_inducing=32,
                epochs=2,
                batch_size=512,
                lr=0.05,
                natural_gradient=True,
                fast_step=True,
                lengthscale="auto",
            ),
        ),
        "quick": dict(
            toy_seeds=3,
            toy_window=(16, 16),
            toy_discs=dict(shape=(4, 2), radius=1.9, p_train=(0.0, 0.6), q_test=0.15),
            toy_large_discs=dict(shape=(2, 1), radius=3.9),
            toy_carved_less=(0.25, 0.85),
            toy_sensitivity_seeds=1,
            aleatoric_threshold=0.1,
            toy_gp=dict(n_inducing=320, epochs=6, batch_size=1024, lr=0.05, natural_gradient=True, fast_step=True),
            n_samples=1000,
            n_bins=20,
            real_seeds=2,
            real_points=20000,
            analogue_half_points=10000,
            real_split=dict(n_centres=12, ball_size=0.04, p_train=(0.0, 0.6), q_test=0.15),
            real_gp=dict(
                n_inducing=256,
                epochs=6,
                batch_size=1024,
                lr=0.05,
                natural_gradient=True,
                fast_step=True,
                lengthscale="auto",
            ),
        ),
        "paper": dict(
            toy_seeds=6,
            toy_window=None,
            toy_discs=dict(shape=(4, 3), radius=3.0, p_train=(0.0, 0.6), q_test=0.1),
            toy_large_discs=dict(shape=(3, 1), radius=6.0),
            toy_carved_less=(0.25, 0.85),
            toy_sensitivity_seeds=1,
            aleatoric_threshold=0.1,
            toy_gp=dict(n_inducing=2048, epochs=10, batch_size=1024, lr=0.05, natural_gradient=True, fast_step=True),
            n_samples=1000,
            n_bins=20,
            real_seeds=6,
            real_points=None,
            analogue_half_points=35000,
            real_split=dict(n_centres=12, ball_size=0.04, p_train=(0.0, 0.6), q_test=0.1),
            real_gp=dict(
                n_inducing=1024,
                epochs=10,
                batch_size=1024,
                lr=0.05,
                natural_gradient=True,
                fast_step=True,
                lengthscale="auto",
            ),
        ),
    },
}


#: Jürgens et al.'s Table 1 in the over-confident regime trains networks of chapter 01's Table 1 cells (its data sets,
#: seeds and SmallCNN body), read from chapter 01's row, one place; its training images and epochs are its own
#: (``regime_train``, ``regime_epochs``).
_SHARED_REGIME_KEYS = ("table1_datasets", "table1_seeds", "table1_channels", "table1_hidden")
for _scale in SCALES:
    PRESETS["02_juergens_instance_calibration"][_scale].update(
        {k: PRESETS["01_mortier_set_calibration"][_scale][k] for k in _SHARED_REGIME_KEYS}
    )


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
