r"""The experiments of the EU paper (Secs. 5.2-5.4) as parameterised functions with cached GP fits.

The methodology of Sec. 5.2, for a dataset :math:`\mathcal D`:

1. carve the evaluation datasets :math:`\mathcal D_{train}`, :math:`\mathcal D_{test}`,
   :math:`\mathcal D_{aug}` out of :math:`\mathcal D` (Sec. 4.2, :mod:`credalbook.papers.eu.carving`), and the
   calibration datasets :math:`\mathcal D_{train,2}`, :math:`\mathcal D_{test,2}`,
   :math:`\mathcal D_{aug,2}` out of :math:`\mathcal D_{train}` (Sec. 4.3);
2. train GP classifiers :math:`\hat f_{tr}` on :math:`\mathcal D_{train}` and :math:`\hat f_{aug}` on
   :math:`\mathcal D_{aug}` (and :math:`\hat f_{tr,2}`, :math:`\hat f_{aug,2}` on the calibration sets;
   :mod:`credalbook.gp.classifier`), with the EU estimators :math:`\hat{\mathcal E}_M` (mutual
   information) and :math:`\hat{\mathcal E}_E` (entropy) of :math:`\hat f_{tr}`;
3. for each estimator, 20 equal-mass intervals of its estimates on :math:`\mathcal D_{test}`;
4. the calibration map :math:`\gamma` from the gains of :math:`\hat f_{aug,2}` over
   :math:`\hat f_{tr,2}` on :math:`\mathcal D_{test,2}` (per-interval mean gain, isotonic regression);
5. :math:`\rho_{epi}`, EECE and calibrated EECE on :math:`\mathcal D_{test}` with the gains of
   :math:`\hat f_{aug}` over :math:`\hat f_{tr}` (Defs. 4-6).

:func:`run_eu_experiment` does steps 2-5 for given splits and returns an :class:`EURun`;
:func:`toy_eu_experiment` (Sec. 5.3, with the mismatch variants of Sec. 5.3.2) and
:func:`credalbook.papers.eu.real_eu_experiment` (Sec. 5.4: PCA to 50 dimensions, even vs odd classes,
high-density balls) add step 1; :func:`toy_eu_study` and :func:`credalbook.papers.eu.real_eu_study`
repeat them over seeds into an
:class:`EUStudy` (Tables 1-2: mean ± sd; Figs. 3-4: per-interval curves). GP fits are cached on disk
(:data:`credalbook.gp.fit_gp_classifier_cached`, keyed by the training data and the GP configuration),
so repeated and interrupted studies, and the mismatch variants (which share :math:`\hat f_{tr}` and
:math:`\hat f_{aug}` with the main experiment), reuse them; the PCA features are cached as well.

Choices where the paper (whose supplement is missing) is silent are documented at each function:
the GP settings, the seeds, the toy-data noise (:data:`TOY_NOISE_SD`), the real-data ball radius and
fractions, the definition of the second mismatch variant, and the number of Monte-Carlo draws per point
(``n_samples=1000``: the paper integrates by Monte Carlo but gives no number of draws).
"""

from __future__ import annotations

import functools
import hashlib
import math
from dataclasses import dataclass, field

import numpy as np

from credalbook._validation import check_positive_int
from credalbook.cache import checkpoint_path
from credalbook.gp.classifier import fit_gp_classifier, fit_gp_classifier_cached
from credalbook.metrics.binning import bin_sums, cut_index
from credalbook.metrics.epistemic import accuracy_gain, eu_reliability, evaluate_eu, fit_eu_calibration, interval_cuts
from credalbook.metrics.uncertainty import eu_estimates
from credalbook.papers.eu.carving import BallSplit
from credalbook.papers.eu.reported import EU_ESTIMATORS, EU_METRICS, EU_PAPER_TABLE1, EU_PAPER_TABLE2
from credalbook.papers.eu.studies import _study, compare_summary, EUIntervalCurves, EUStudy
from credalbook.papers.eu.toy_data import toy_eu_splits, TOY_NOISE_SD, toy_noise_summary, ToySplits

__all__ = [
    "EU_ESTIMATORS",
    "EU_METRICS",
    "EU_PAPER_TABLE1",
    "EU_PAPER_TABLE2",
    "EU_ROLES",
    "TOY_NOISE_SD",
    "EUFit",
    "EUIntervalCurves",
    "EURun",
    "EUStudy",
    "ToySplits",
    "assemble_eu_run",
    "compare_summary",
    "eu_gp_fit",
    "run_eu_experiment",
    "toy_eu_assemble",
    "toy_eu_fit",
    "toy_eu_experiment",
    "toy_eu_splits",
    "toy_eu_study",
    "toy_noise_summary",
]


# ------------------------------------------------------------------------------ one run
@dataclass(frozen=True)
class EURun:
    r"""One run of the methodology of Sec. 5.2 (one seed); estimator keys are ``"M"`` and ``"E"``.

    Attributes
    ----------
    evaluations : dict of str to EUEvaluation
        :math:`\rho_{epi}`, EECE, calibrated EECE and the per-interval averages on :math:`\mathcal D_{test}`.
    maps : dict of str to EUCalibrationMap
        :math:`\gamma` learned on the calibration datasets.
    eu : dict of str to ndarray, shape (T,)
        Raw estimates on :math:`\mathcal D_{test}` (nats).
    gain : ndarray of int, shape (T,)
        Gains of :math:`\hat f_{aug}` over :math:`\hat f_{tr}` on :math:`\mathcal D_{test}` (Def. 4).
    test_index : ndarray of int, shape (T,)
        Rows of ``x`` in :math:`\mathcal D_{test}`.
    calibration_eu, calibration_gain, calibration_test_index
        The same on :math:`\mathcal D_{test,2}`.
    accuracy : dict of str to float
        Accuracy of :math:`\hat f_{tr}`, :math:`\hat f_{aug}` on :math:`\mathcal D_{test}` (``"train"``,
        ``"aug"``) and of :math:`\hat f_{tr,2}`, :math:`\hat f_{aug,2}` on :math:`\mathcal D_{test,2}`.
    sizes : dict of str to int
        Sizes of the six datasets.
    eece_bits : dict of str to float
        EECE of the raw estimates in bits (entropies divided by log 2, same intervals): the paper
        does not state its logarithm base, which changes only the raw EECE.
    fit_seconds : float
        Training time of the four GPs (as recorded when they were trained, also when loaded from cache).
    seed : int
    """

    evaluations: dict
    maps: dict
    eu: dict = field(repr=False)
    gain: np.ndarray = field(repr=False)
    test_index: np.ndarray = field(repr=False)
    calibration_eu: dict = field(repr=False)
    calibration_gain: np.ndarray = field(repr=False)
    calibration_test_index: np.ndarray = field(repr=False)
    accuracy: dict
    sizes: dict
    eece_bits: dict
    fit_seconds: float
    seed: int

    def metric(self, estimator: str, name: str) -> float:
        """``rho_epi``, ``eece`` or ``calibrated_eece`` of estimator ``"M"`` or ``"E"``."""
        if estimator not in EU_ESTIMATORS or name not in EU_METRICS:
            raise ValueError(
                f"estimator must be one of {EU_ESTIMATORS} and name one of {EU_METRICS}; got {estimator!r}, {name!r}"
            )
        return float(getattr(self.evaluations[estimator], name))

    def eece_floor(self, estimator: str) -> float:
        r"""EECE that a perfectly calibrated estimator would show from sampling noise alone.

        With :math:`n_m` test points and gain variance :math:`v_m` in interval :math:`m`, the mean gain
        of the interval misses its expectation by about :math:`\sqrt{2/\pi}\sqrt{v_m/n_m}` on average
        (normal approximation), so :math:`\sum_m \frac{n_m}{T}\sqrt{2 v_m/(\pi n_m)}` is the EECE
        expected even when :math:`\hat{\mathcal E}` equals :math:`\mathcal E` in every interval.
        """
        cuts = self.evaluations[estimator].reliability.cuts
        idx, m = cut_index(self.eu[estimator], cuts), len(cuts) + 1
        g = self.gain.astype(np.float64)
        n, s1, s2 = bin_sums(idx, None, m), bin_sums(idx, g, m), bin_sums(idx, g * g, m)
        ok = n > 1
        var = (s2[ok] - s1[ok] ** 2 / n[ok]) / (n[ok] - 1)
        return float(np.sum(n[ok] / n.sum() * np.sqrt(2.0 * var / (math.pi * n[ok]))))


def _index(idx, name: str, n: int) -> np.ndarray:
    arr = np.asarray(idx)
    if arr.ndim != 1 or arr.dtype.kind not in "iu" or arr.size < 1:
        raise ValueError(
            f"{name} must be a non-empty 1-D array of row indices; got shape {arr.shape}, dtype {arr.dtype}"
        )
    if arr.min() < 0 or arr.max() >= n:
        raise ValueError(f"{name} must index rows of x in [0, {n}); got values from {arr.min()} to {arr.max()}")
    return arr.astype(np.int64)


#: The four GPs of Sec. 5.2: f_tr and f_aug (evaluated on D_test), f_tr,2 and f_aug,2 (on D_test,2).
EU_ROLES = ("train", "aug", "train_2", "aug_2")


@dataclass(frozen=True)
class EUFit:
    r"""One of the four GPs of a run, as the analysis needs it: its latent posterior at its test points.

    Attributes
    ----------
    role : str
        One of :data:`EU_ROLES`.
    mean, variance : ndarray, shape (T,)
        :math:`\mu_*`, :math:`\sigma_*^2` of the latent at every point of :math:`\mathcal D_{test}`
        (roles ``train``, ``aug``) or :math:`\mathcal D_{test,2}` (``train_2``, ``aug_2``), all of them
        (before a mismatch variant drops some).
    train_key : str
        Fingerprint of the training rows (SHA-1 of their int64 indices, in order): identical training sets are one GP, and
        :func:`assemble_eu_run` refuses a fit whose training rows are not those of the splits it is given.
    seconds : float
        Training time, as recorded when the GP was trained.
    """

    role: str
    mean: np.ndarray = field(repr=False)
    variance: np.ndarray = field(repr=False)
    train_key: str
    seconds: float


def _role_rows(evaluation: BallSplit, calibration: BallSplit, role: str, n: int) -> tuple:
    """(training rows, test rows) of a role."""
    if role not in EU_ROLES:
        raise ValueError(f"role must be one of {EU_ROLES}; got {role!r}")
    split, name = (evaluation, "evaluation") if role in ("train", "aug") else (calibration, "calibration")
    train = split.train if role.startswith("train") else split.aug
    kind = "train" if role.startswith("train") else "aug"
    return _index(train, f"{name}.{kind}", n), _index(split.test, f"{name}.test", n)


def _train_key(rows) -> str:
    """The fingerprint of a GP's training rows (SHA-1 of the int64 row indices, in order) that :class:`EUFit` keeps.

    >>> _train_key([0, 1, 2]) == _train_key(np.array([0, 1, 2], dtype=np.int64)) != _train_key([0, 2, 1])
    True
    """
    return hashlib.sha1(np.ascontiguousarray(rows, dtype=np.int64).tobytes()).hexdigest()


def _check_gp(gp) -> dict:
    gp = dict(gp or {})
    bad = {"x", "y", "seed", "device", "progress"} & set(gp)
    if bad:
        raise ValueError(f"gp must not set {sorted(bad)}; they are arguments of run_eu_experiment")
    return gp


def eu_gp_fit(
    x,
    y,
    evaluation: BallSplit,
    calibration: BallSplit,
    role: str,
    *,
    gp: dict | None = None,
    seed: int = 0,
    cache: bool = True,
    device="auto",
    progress: bool = False,
) -> EUFit:
    """Train the GP of one role (:data:`EU_ROLES`) and return its latent posterior at the role's test points.

    Step 2 of Sec. 5.2 for one GP: the unit a paper-scale run records (one toy GP takes over half an hour on
    one CPU thread). ``gp``, ``seed``, ``cache``, ``device`` and ``progress`` as in :func:`run_eu_experiment`.
    """
    x, y = np.asarray(x), np.asarray(y)
    train, test = _role_rows(evaluation, calibration, role, len(y))
    gp = _check_gp(gp)
    fitter = fit_gp_classifier_cached if cache else fit_gp_classifier
    ckpt = checkpoint_path("gp_classifier", dict(x=x[train], y=y[train], gp=gp, seed=seed)) if cache else None
    f = fitter(x[train], y[train], **gp, seed=seed, device=device, progress=progress, checkpoint=ckpt)
    lat = f.latent(x[test], device=device)
    return EUFit(role=role, mean=lat.mean, variance=lat.variance, train_key=_train_key(train), seconds=float(f.seconds))


def assemble_eu_run(
    y,
    evaluation: BallSplit,
    calibration: BallSplit,
    fits: dict,
    *,
    n_bins: int = 20,
    eu_method: str = "mc",
    n_samples: int = 1000,
    test_keep=None,
    seed: int = 0,
    optimal_pred=None,
) -> EURun:
    """Steps 3-5 of Sec. 5.2 from the four GPs' latent posteriors (``fits``: role -> :class:`EUFit`).

    ``optimal_pred``: None (Def. 4 with :math:`f^* \\approx \\hat f_{aug}`, the paper's procedure) or a pair of
    0/1 arrays, the predictions of another :math:`f^*` on all of :math:`\\mathcal D_{test}` and on
    :math:`\\mathcal D_{test,2}` (e.g. the Bayes classifier of the toy data); they then replace those of
    :math:`\\hat f_{aug}` and :math:`\\hat f_{aug,2}` in the gains and in ``accuracy["aug"]``, ``accuracy["aug_2"]``.
    """
    y = np.asarray(y)
    missing = set(EU_ROLES) - set(fits)
    if missing:
        raise ValueError(f"fits lacks the roles {sorted(missing)}")
    n_bins = check_positive_int(n_bins, "n_bins")
    _, test_all = _role_rows(evaluation, calibration, "train", len(y))
    _, test2 = _role_rows(evaluation, calibration, "train_2", len(y))
    keep = np.ones(len(test_all), dtype=bool)
    if test_keep is not None:
        keep = np.asarray(test_keep)
        if keep.dtype != bool or keep.shape != test_all.shape:
            raise ValueError(
                f"test_keep must be a boolean mask of shape {test_all.shape}; got {keep.dtype}, {keep.shape}"
            )
    test = test_all[keep]
    for role in EU_ROLES:
        want = len(test_all) if role in ("train", "aug") else len(test2)
        if fits[role].mean.shape != (want,):
            raise ValueError(f"fits[{role!r}] holds {fits[role].mean.shape[0]} test points; its test set has {want}")
        # the same sizes with other rows would pair each latent with another point's label: refuse it
        if fits[role].train_key != _train_key(_role_rows(evaluation, calibration, role, len(y))[0]):
            raise ValueError(
                f"fits[{role!r}] was trained on other rows than the {role!r} rows of these splits (its train_key "
                "differs): the splits, or the features they were carved from, are not the ones the GP was fitted on "
                "(PCA scores computed under another BLAS kernel differ in their last bits and can move a point across "
                "a ball's edge while every size stays the same); fit the GP on these splits, or assemble where it was fitted"
            )
    if min(len(test), len(test2)) < n_bins:
        raise ValueError(
            f"the test sets must hold at least n_bins = {n_bins} points; got {len(test)} "
            f"(evaluation) and {len(test2)} (calibration)"
        )
    opts = dict(method=eu_method, n_samples=n_samples, seed=seed)
    est = eu_estimates(fits["train"].mean[keep], fits["train"].variance[keep], **opts)
    est2 = eu_estimates(fits["train_2"].mean, fits["train_2"].variance, **opts)
    pred_aug, pred_aug2 = (fits["aug"].mean[keep] > 0).astype(np.int64), (fits["aug_2"].mean > 0).astype(np.int64)
    if optimal_pred is not None:
        pred_aug, pred_aug2 = _optimal_pred(optimal_pred, keep, len(test2))
    gain = accuracy_gain(y[test], pred=est.pred, pred_optimal=pred_aug)
    gain2 = accuracy_gain(y[test2], pred=est2.pred, pred_optimal=pred_aug2)
    eu = {"M": est.mutual_information, "E": est.entropy}
    eu2 = {"M": est2.mutual_information, "E": est2.entropy}
    evaluations, maps, bits = {}, {}, {}
    for k in EU_ESTIMATORS:
        cuts = interval_cuts(eu[k], n_bins=n_bins)
        maps[k] = fit_eu_calibration(eu2[k], gain2, cuts=cuts)
        evaluations[k] = evaluate_eu(eu[k], gain, cuts=cuts, calibration=maps[k])
        bits[k] = eu_reliability(eu[k] / math.log(2), gain, cuts=cuts / math.log(2)).eece
    accuracy = {
        "train": float(np.mean(est.pred == y[test])),
        "aug": float(np.mean(pred_aug == y[test])),
        "train_2": float(np.mean(est2.pred == y[test2])),
        "aug_2": float(np.mean(pred_aug2 == y[test2])),
    }
    sizes = {
        "train": len(evaluation.train),
        "test": len(test),
        "aug": len(evaluation.aug),
        "train_2": len(calibration.train),
        "test_2": len(test2),
        "aug_2": len(calibration.aug),
    }
    seconds = {f.train_key: f.seconds for f in fits.values()}  # identical training sets are one GP
    return EURun(
        evaluations=evaluations,
        maps=maps,
        eu=eu,
        gain=gain,
        test_index=test,
        calibration_eu=eu2,
        calibration_gain=gain2,
        calibration_test_index=test2,
        accuracy=accuracy,
        sizes=sizes,
        eece_bits=bits,
        fit_seconds=float(sum(seconds.values())),
        seed=int(seed),
    )


def _optimal_pred(optimal_pred, keep: np.ndarray, n_test2: int) -> tuple:
    """Check ``optimal_pred`` (predictions on all of D_test and on D_test,2) and apply ``keep`` to the first."""
    if not isinstance(optimal_pred, (tuple, list)) or len(optimal_pred) != 2:
        raise ValueError("optimal_pred must be None or a pair (predictions on D_test, predictions on D_test,2)")
    out = []
    for arr, want in zip(optimal_pred, (len(keep), n_test2)):
        a = np.asarray(arr)
        if a.shape != (want,) or not np.isin(a, (0, 1)).all():
            raise ValueError(
                f"optimal_pred must hold 0/1 arrays of lengths {(len(keep), n_test2)}; got shape {a.shape}"
            )
        out.append(a.astype(np.int64))
    return out[0][keep], out[1]


def run_eu_experiment(
    x,
    y,
    evaluation: BallSplit,
    calibration: BallSplit,
    *,
    gp: dict | None = None,
    n_bins: int = 20,
    eu_method: str = "mc",
    n_samples: int = 1000,
    test_keep=None,
    seed: int = 0,
    cache: bool = True,
    device="auto",
    progress: bool = False,
) -> EURun:
    r"""Steps 2-5 of the EU paper's methodology (Sec. 5.2) on given evaluation and calibration splits.

    Trains :math:`\hat f_{tr}`, :math:`\hat f_{aug}`, :math:`\hat f_{tr,2}`, :math:`\hat f_{aug,2}`
    (:func:`credalbook.gp.fit_gp_classifier` with the options ``gp`` and ``seed``; identical training
    sets are fitted once), then for each estimator :math:`\hat{\mathcal E} \in \{\hat{\mathcal E}_M,
    \hat{\mathcal E}_E\}` of :math:`\hat f_{tr}` (and of :math:`\hat f_{tr,2}` on the calibration test set):

    .. math::

        I_1..I_M = \text{equal-mass intervals of } \hat{\mathcal E}(\mathcal D_{test}), \quad
        \gamma = \text{fit\_eu\_calibration}(\hat{\mathcal E}_2(\mathcal D_{test,2}), \mathrm{gain}_2; I), \quad
        \text{evaluate\_eu}(\hat{\mathcal E}(\mathcal D_{test}), \mathrm{gain}; I, \gamma),

    with :math:`\mathrm{gain} = 1[\hat f_{aug}(x) = y] - 1[\hat f_{tr}(x) = y]` (Def. 4 with
    :math:`f^* \approx \hat f_{aug}`).

    Parameters
    ----------
    x : array-like, shape (N, D)
    y : array-like of {0, 1}, shape (N,)
    evaluation, calibration : BallSplit
        From :func:`credalbook.papers.eu.carve_balls` (the calibration split carved with ``subset=evaluation.train``).
    gp : dict, optional
        Keyword arguments of :func:`credalbook.gp.fit_gp_classifier` (``n_inducing``, ``epochs``, ...).
    n_bins : int, default=20
        :math:`M` (Sec. 5.2: twenty).
    eu_method, n_samples
        See :func:`credalbook.metrics.eu_estimates` (Monte-Carlo integration as in the paper; 1000 draws is our choice, the paper gives no number).
    test_keep : array-like of bool, shape (len(evaluation.test),), optional
        Evaluate only these test points (the second mismatch variant of Sec. 5.3.2).
    seed : int, default=0
        GP initialisation and minibatch order, and the Monte Carlo draws.
    cache : bool, default=True
        Load and store GP fits with :data:`credalbook.gp.fit_gp_classifier_cached`, and keep a per-epoch
        checkpoint of each fit (:func:`credalbook.cache.checkpoint_path`) so that an interrupted
        paper-scale run resumes inside the fit it was killed in.
    device : str, default="auto"
    progress : bool, default=False
        Progress bars over the GP epochs.

    Returns
    -------
    EURun

    References
    ----------
    EU paper, Secs. 4.1-4.3 and 5.2.
    """
    x = np.asarray(x)
    y = np.asarray(y)
    if x.ndim != 2 or y.shape != (x.shape[0],):
        raise ValueError(f"x must have shape (N, D) and y shape (N,); got {x.shape} and {y.shape}")
    for name, split in (("evaluation", evaluation), ("calibration", calibration)):
        if not isinstance(split, BallSplit):
            raise ValueError(
                f"{name} must be a BallSplit (from credalbook.papers.eu.carve_balls); got {type(split).__name__}"
            )
    n_bins = check_positive_int(n_bins, "n_bins")
    gp = _check_gp(gp)
    fits = {
        role: eu_gp_fit(
            x, y, evaluation, calibration, role, gp=gp, seed=seed, cache=cache, device=device, progress=progress
        )
        for role in EU_ROLES
    }
    return assemble_eu_run(
        y,
        evaluation,
        calibration,
        fits,
        n_bins=n_bins,
        eu_method=eu_method,
        n_samples=n_samples,
        test_keep=test_keep,
        seed=seed,
    )


# ------------------------------------------------------------------------------ toy data (Sec. 5.3)
def toy_eu_experiment(
    seed: int = 0,
    *,
    noise_sd: float = TOY_NOISE_SD,
    window=None,
    subsample=None,
    evaluation: dict | None = None,
    calibration: dict | None = None,
    low_aleatoric_discs=None,
    aleatoric_threshold: float = 0.1,
    gp: dict | None = None,
    n_bins: int = 20,
    eu_method: str = "mc",
    n_samples: int = 1000,
    cache: bool = True,
    device="auto",
    progress: bool = False,
) -> EURun:
    r"""One seed of the toy experiment (Sec. 5.3) or of its mismatch variants (Sec. 5.3.2).

    :func:`toy_eu_splits` followed by :func:`run_eu_experiment`. Mismatch variant 1 is
    ``calibration=dict(shape=(3, 1), radius=6.0)`` ("three large circles instead of twelve small
    circles"). Variant 2 ("we modify :math:`\mathcal D_{test}` by removing points with low aleatoric
    uncertainty in some of the discs") is ``low_aleatoric_discs``: in those evaluation discs (indices
    into the layout) the test points with Bayes aleatoric uncertainty :math:`\min(P(y=1|x), P(y=0|x))`
    below ``aleatoric_threshold`` are dropped; training and augmented sets, hence the GP fits, are
    those of the main experiment. Which discs and which threshold are not in the paper.

    References
    ----------
    EU paper, Secs. 5.2, 5.3 and 5.3.2.
    """
    t = toy_eu_splits(
        seed=seed, noise_sd=noise_sd, window=window, subsample=subsample, evaluation=evaluation, calibration=calibration
    )
    return run_eu_experiment(
        t.x,
        t.y,
        t.evaluation,
        t.calibration,
        gp=gp,
        n_bins=n_bins,
        eu_method=eu_method,
        n_samples=n_samples,
        test_keep=_toy_keep(t, low_aleatoric_discs, aleatoric_threshold),
        seed=seed,
        cache=cache,
        device=device,
        progress=progress,
    )


def _toy_keep(t: ToySplits, low_aleatoric_discs, aleatoric_threshold: float):
    """The test points mismatch variant 2 keeps (None: all of them)."""
    if low_aleatoric_discs is None:
        return None
    discs = np.asarray(low_aleatoric_discs, dtype=np.int64).ravel()
    n_discs = len(t.evaluation_layout.centres)
    if discs.size and (discs.min() < 0 or discs.max() >= n_discs):
        raise ValueError(f"low_aleatoric_discs must be disc indices in [0, {n_discs}); got {discs.tolist()}")
    return ~(np.isin(t.evaluation.test_ball, discs) & (t.aleatoric[t.evaluation.test] < aleatoric_threshold))


def toy_eu_fit(
    seed: int = 0,
    role: str = "train",
    *,
    noise_sd: float = TOY_NOISE_SD,
    window=None,
    subsample=None,
    evaluation: dict | None = None,
    calibration: dict | None = None,
    gp: dict | None = None,
    cache: bool = True,
    device="auto",
    progress: bool = False,
) -> EUFit:
    """One GP of :func:`toy_eu_experiment` (``role`` of :data:`EU_ROLES`): the part a paper-scale run records.

    :func:`toy_eu_assemble` turns the four roles' fits into the run :func:`toy_eu_experiment` returns.
    """
    t = toy_eu_splits(
        seed=seed, noise_sd=noise_sd, window=window, subsample=subsample, evaluation=evaluation, calibration=calibration
    )
    return eu_gp_fit(
        t.x, t.y, t.evaluation, t.calibration, role, gp=gp, seed=seed, cache=cache, device=device, progress=progress
    )


def toy_eu_assemble(
    seed: int,
    fits: dict,
    *,
    noise_sd: float = TOY_NOISE_SD,
    window=None,
    subsample=None,
    evaluation: dict | None = None,
    calibration: dict | None = None,
    low_aleatoric_discs=None,
    aleatoric_threshold: float = 0.1,
    n_bins: int = 20,
    eu_method: str = "mc",
    n_samples: int = 1000,
    gain_reference: str = "aug",
) -> EURun:
    """:func:`toy_eu_experiment` from the four GPs of :func:`toy_eu_fit` (``fits``: role -> :class:`EUFit`).

    ``gain_reference="aug"`` measures the gain against :math:`\\hat f_{aug}` as the paper does (Def. 4 with
    :math:`f^* \\approx \\hat f_{aug}`); ``"bayes"`` against the true Bayes classifier :math:`f^*` of the toy data
    (:meth:`credalbook.papers.eu.EUToyData.bayes_probability` above 1/2), which separates what the GP's limited capacity does to the
    gains from the rest (the fits are the same; :math:`\\hat f_{aug}` is not used).

    Examples
    --------
    >>> kw = dict(window=(4, 4), evaluation=dict(shape=(1, 1), radius=1.5), calibration=dict(shape=(1, 1), radius=1.5),
    ...           gp=dict(n_inducing=16, epochs=1, batch_size=256), cache=False, device="cpu")
    >>> fits = {r: toy_eu_fit(0, r, **kw) for r in EU_ROLES}
    >>> run = toy_eu_assemble(0, fits, **{k: kw[k] for k in ("window", "evaluation", "calibration")}, n_bins=5)
    >>> run.evaluations["M"].rho_epi == toy_eu_experiment(0, n_bins=5, **kw).evaluations["M"].rho_epi
    True
    """
    t = toy_eu_splits(
        seed=seed, noise_sd=noise_sd, window=window, subsample=subsample, evaluation=evaluation, calibration=calibration
    )
    return assemble_eu_run(
        t.y,
        t.evaluation,
        t.calibration,
        fits,
        n_bins=n_bins,
        eu_method=eu_method,
        n_samples=n_samples,
        test_keep=_toy_keep(t, low_aleatoric_discs, aleatoric_threshold),
        seed=seed,
        optimal_pred=_toy_optimal(t, gain_reference),
    )


def _toy_optimal(t: ToySplits, gain_reference: str):
    """The Bayes classifier's predictions on D_test and D_test,2 (``"bayes"``), or None (``"aug"``: f_aug's)."""
    if gain_reference == "aug":
        return None
    if gain_reference != "bayes":
        raise ValueError(f"gain_reference must be 'aug' or 'bayes'; got {gain_reference!r}")
    rows = (t.evaluation.test, t.calibration.test)
    return tuple((t.data.bayes_probability(t.x[r]) > 0.5).astype(np.int64) for r in rows)


def toy_eu_study(seeds=6, *, name: str = "toy data", progress: bool = True, n_jobs: int = 1, **kwargs) -> EUStudy:
    """:func:`toy_eu_experiment` for each seed (an int ``S`` means seeds 0..S-1): Table 1 and Fig. 3.

    ``kwargs`` go to :func:`toy_eu_experiment`; ``progress`` shows a bar over the seeds. ``n_jobs`` seeds
    run at once through joblib (-1: all cores; inside ``joblib.parallel_config(backend="dask")`` on a
    ``dask.distributed`` cluster, whose workers must see the cache folder); each seed fits its own GPs
    with one torch thread in a worker process, so results do not depend on ``n_jobs`` beyond the float
    rounding of one torch thread against several (none when the serial run has one thread too).
    """
    return _study(name, functools.partial(toy_eu_experiment, **kwargs), seeds, kwargs, progress, n_jobs)
