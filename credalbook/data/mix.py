"""Mix datasets: images with a known true class-probability vector and sampled label histograms.

Mimori et al. (2022) build Mix-MNIST and Mix-CIFAR-10 (Sec. 7.1, App. E.1) so that the true
label distribution Q(X) of every instance is known. A fraction of the instances are pixel
mixtures of two random source images,

.. math::

    x = r\\,x^{(1)} + (1 - r)\\,x^{(2)}, \\qquad r \\sim U(0, 1), \\qquad
    Q(x) = r\\,e_{y^{(1)}} + (1 - r)\\,e_{y^{(2)}},

the others are source images kept as they are, with a one-hot Q. Each annotator's label is drawn
from Q independently, so an instance with :math:`n_i` labels gets the label histogram
:math:`y_i \\sim \\operatorname{Mult}(n_i, Q(x_i))`. The training split has one label per
instance; validation and test splits have several (2 or 5, and 10, in the paper), or a
per-instance number :math:`n_i` to mimic the variable annotator counts of the MDS data.

Every source image is used at most once, so no image appears in two splits. The paper's text
says half of the instances are mixtures, but the authors' files hold about one third, which is
also what their split sizes imply (MNIST: 70 000 images give 37 500 + 7 500 + 7 500 = 52 500
instances = 70 000 / (1 + 1/3)); the default ``mix_fraction`` is therefore 1/3.

Generation is cheap (under two seconds for the 70 000 Fashion-MNIST images), so it is not cached on
disk: caching would store a few hundred MB per configuration to save that second.
"""

from __future__ import annotations

import dataclasses
import numbers

import numpy as np

from credalbook._validation import as_numpy, as_rng, check_probs, check_seed
from credalbook.data.images import Dataset, load_dataset

__all__ = [
    "PAPER_MIX_SIZES",
    "MixDataset",
    "MixSplit",
    "make_mix_dataset",
    "mix_images",
    "sample_label_hist",
    "variable_label_counts",
]

#: Split sizes (train, validation, test) of Mimori et al. (2022), App. E.1.
PAPER_MIX_SIZES = {"mnist": (37_500, 7_500, 7_500), "cifar10": (30_000, 7_500, 7_500)}
_DEFAULT_PROPORTIONS = (5, 1, 1)  # MNIST's 37.5k : 7.5k : 7.5k, used for other datasets


# ------------------------------------------------------------------------------------ helpers
def _rng(seed) -> np.random.Generator:
    return as_rng(seed)


def _check_fraction(mix_fraction) -> float:
    if (
        isinstance(mix_fraction, bool)
        or not isinstance(mix_fraction, numbers.Real)
        or not 0.0 <= float(mix_fraction) <= 1.0
    ):
        raise ValueError(f"mix_fraction must be a number in [0, 1]; got {mix_fraction!r}")
    return float(mix_fraction)


def _n_sources(n: int, mix_fraction: float) -> int:
    """Source images that `n` instances use: kept ones once, mixtures two each."""
    return n + int(round(mix_fraction * n))


def _check_n_labels(n_labels, n: int, name: str) -> np.ndarray:
    """An int >= 1 or an (n,) array of ints >= 1 -> (n,) int64 array."""
    arr = as_numpy(n_labels, name)
    if arr.ndim == 0:
        arr = np.full(n, arr)
    if arr.shape != (n,):
        raise ValueError(f"{name} must be an int or an array of shape ({n},); got shape {arr.shape}")
    if (
        arr.dtype == bool
        or arr.dtype.kind not in "iuf"
        or (arr.dtype.kind == "f" and not np.all(np.isfinite(arr) & (arr == np.round(arr))))
    ):
        raise ValueError(f"{name} must hold integers; got {arr.ravel()[:5]!r}")
    if n and arr.min() < 1:
        raise ValueError(f"{name} must be at least 1 label per instance; found {arr.min()}")
    return arr.astype(np.int64)


# --------------------------------------------------------------------------------- containers
@dataclasses.dataclass(frozen=True, eq=False, repr=False)
class MixSplit:
    """One split of a Mix dataset.

    Attributes
    ----------
    images : numpy.ndarray, shape (N, C, H, W), float32
    true_probs : numpy.ndarray, shape (N, K), float64
        The true label distribution Q(x) of each instance (one-hot for kept images).
    label_hist : numpy.ndarray, shape (N, K), int64
        Annotator counts drawn from `true_probs`; row i sums to ``n_labels[i]``.
    is_mixed : numpy.ndarray, shape (N,), bool
        Whether the instance is a mixture of two source images.
    ratio : numpy.ndarray, shape (N,), float64
        Mixing ratio r of the first source image (1.0 for kept images).
    sources : numpy.ndarray, shape (N, 2), int64
        Rows of the source pool the instance was made from; the second is -1 for kept images.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> split = mix_images(rng.random((30, 1, 4, 4)), np.arange(30) % 3, n_classes=3,
    ...                    n_labels=5, seed=0)
    >>> split
    MixSplit(n=22, n_mixed=7, n_labels=5, image_shape=(1, 4, 4), n_classes=3)
    >>> bool((split.label_hist.sum(axis=1) == 5).all())
    True
    """

    images: np.ndarray
    true_probs: np.ndarray
    label_hist: np.ndarray
    is_mixed: np.ndarray
    ratio: np.ndarray
    sources: np.ndarray

    def __post_init__(self):
        n = len(self.images)
        for name in ("true_probs", "label_hist", "is_mixed", "ratio", "sources"):
            if len(getattr(self, name)) != n:
                raise ValueError(f"{name} must have {n} rows like images; got {len(getattr(self, name))}")
        for name in ("images", "true_probs", "label_hist", "is_mixed", "ratio", "sources"):
            getattr(self, name).setflags(write=False)

    def __len__(self) -> int:
        return len(self.images)

    @property
    def n_classes(self) -> int:
        """Number of classes K."""
        return self.true_probs.shape[1]

    @property
    def n_labels(self) -> np.ndarray:
        """Labels per instance, shape (N,): the row sums of `label_hist`."""
        return self.label_hist.sum(axis=1)

    @property
    def labels(self) -> np.ndarray:
        """The single label of each instance, shape (N,); only for one label per instance."""
        n_labels = self.n_labels
        if len(n_labels) and not (n_labels == 1).all():
            raise ValueError(
                "labels needs exactly one label per instance; this split has "
                f"{n_labels.min()} to {n_labels.max()} labels: use label_hist"
            )
        return self.label_hist.argmax(axis=1)

    def __repr__(self) -> str:
        return (
            f"MixSplit(n={len(self)}, n_mixed={int(self.is_mixed.sum())}, "
            f"n_labels={float(self.n_labels.mean()) if len(self) else 0.0:.3g}, "
            f"image_shape={tuple(self.images.shape[1:])}, n_classes={self.n_classes})"
        )


@dataclasses.dataclass(frozen=True, eq=False, repr=False)
class MixDataset:
    """A Mix dataset: train, validation and test :class:`MixSplit` made from one source pool.

    Attributes
    ----------
    train, val, test : MixSplit
        ``train.labels`` are the single training labels; ``val.label_hist`` and
        ``test.label_hist`` the multi-annotator histograms.
    classes : tuple of str
    name : str
        ``"mix_" + base name``, e.g. ``"mix_fashion_mnist"``.
    mix_fraction : float
    seed : int or None

    Examples
    --------
    >>> mix = make_mix_dataset("digits", sizes=(600, 200, 200), n_labels_val=5, seed=0)
    >>> mix  # doctest: +NORMALIZE_WHITESPACE
    MixDataset(name='mix_digits', n_train=600, n_val=200, n_test=200, mix_fraction=0.333,
               n_classes=10)
    >>> mix.train.labels.shape, mix.val.label_hist.sum(axis=1).max()
    ((600,), np.int64(5))
    """

    train: MixSplit
    val: MixSplit
    test: MixSplit
    classes: tuple
    name: str
    mix_fraction: float
    seed: object = None

    @property
    def n_classes(self) -> int:
        """Number of classes K."""
        return len(self.classes)

    @property
    def image_shape(self) -> tuple:
        """Shape (C, H, W) of one image."""
        return tuple(self.train.images.shape[1:])

    def __repr__(self) -> str:
        return (
            f"MixDataset(name={self.name!r}, n_train={len(self.train)}, n_val={len(self.val)}, "
            f"n_test={len(self.test)}, mix_fraction={self.mix_fraction:.3g}, "
            f"n_classes={self.n_classes})"
        )


# ------------------------------------------------------------------------------------ sampling
def sample_label_hist(true_probs, n_labels, *, seed=None) -> np.ndarray:
    """Draw label histograms: :math:`n_i` annotator labels per instance, i.i.d. from its probs.

    .. math::

        y_i \\sim \\operatorname{Mult}\\big(n_i, Q(x_i)\\big), \\qquad
        \\mathbb{E}[y_i] = n_i\\, Q(x_i).

    Parameters
    ----------
    true_probs : array-like, shape (N, K)
        Label distribution of each instance (rows on the simplex).
    n_labels : int or array-like of shape (N,)
        Labels per instance, at least 1.
    seed : int, numpy.random.Generator or None

    Returns
    -------
    label_hist : numpy.ndarray, shape (N, K), int64
        Row i sums to ``n_labels[i]``.

    References
    ----------
    Mimori et al. (2022), Diagnostic Uncertainty Calibration, Sec. 3 (labels conditionally
    i.i.d. given X, :math:`y_i = \\sum_j y_i^{(j)}`).

    Examples
    --------
    >>> sample_label_hist([[1.0, 0.0], [0.5, 0.5]], [3, 4], seed=0).sum(axis=1)
    array([3, 4])
    """
    probs = check_probs(true_probs, name="true_probs")
    if probs.ndim != 2:
        raise ValueError(f"true_probs must have shape (N, K); got {probs.shape}")
    counts = _check_n_labels(n_labels, len(probs), "n_labels")
    probs = np.clip(probs, 0.0, None)
    probs = probs / probs.sum(axis=1, keepdims=True)  # exact simplex rows for numpy
    return _rng(seed).multinomial(counts, probs).astype(np.int64)


def variable_label_counts(n: int, *, mean: float, seed=None) -> np.ndarray:
    """Per-instance label counts :math:`n_i = 1 + \\operatorname{Poisson}(\\text{mean} - 1)`.

    Mimics annotator counts that vary between instances, such as the MDS data of Mimori et al.
    (2022), App. E.1 (a mean of 5.79 labels per validation and 7.58 per test instance). Every
    instance gets at least one label and the expected count is `mean`.

    Parameters
    ----------
    n : int
        Number of instances.
    mean : float
        Mean number of labels per instance, at least 1.
    seed : int, numpy.random.Generator or None

    Returns
    -------
    numpy.ndarray, shape (n,), int64

    Examples
    --------
    >>> counts = variable_label_counts(10_000, mean=5.79, seed=0)
    >>> int(counts.min()) >= 1, round(float(counts.mean()), 1)
    (True, 5.8)
    """
    if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 0:
        raise ValueError(f"n must be a non-negative int; got {n!r}")
    if isinstance(mean, bool) or not isinstance(mean, numbers.Real) or not 1.0 <= mean < np.inf:
        raise ValueError(f"mean must be a finite number >= 1; got {mean!r}")
    return 1 + _rng(seed).poisson(float(mean) - 1.0, size=int(n)).astype(np.int64)


def mix_images(
    images,
    labels,
    *,
    n_classes: int,
    n_instances: int | None = None,
    mix_fraction: float = 1 / 3,
    n_labels=1,
    seed=None,
) -> MixSplit:
    """Make Mix instances from source images: random pairs mixed with r ~ U(0, 1), the rest kept.

    ``round(mix_fraction * n_instances)`` instances are mixtures of two source images drawn at
    random without replacement, the other instances are single source images; each source image
    is used at most once, so ``n_instances + round(mix_fraction * n_instances)`` source images
    are needed. The instances come in random order. For a mixture

    .. math::

        x = r\\,x^{(1)} + (1 - r)\\,x^{(2)}, \\qquad
        Q(x) = r\\,e_{y^{(1)}} + (1 - r)\\,e_{y^{(2)}}, \\qquad r \\sim U(0, 1),

    (two source images of the same class give a one-hot Q); label histograms are then drawn by
    :func:`sample_label_hist` with `n_labels` labels per instance. The random numbers are used
    in a fixed order (sources, ratios, then labels), so `n_labels` does not change the images.

    Parameters
    ----------
    images : array-like, shape (M, C, H, W)
        Source images (float).
    labels : array-like, shape (M,)
        Their classes in [0, n_classes).
    n_classes : int
        Number of classes K (at least 2).
    n_instances : int or None, default=None
        Instances to make; ``None`` makes as many as the M source images allow.
    mix_fraction : float, default=1/3
        Fraction of mixed instances (1/3 in the authors' files; the paper's text says 1/2).
    n_labels : int or array-like of shape (n_instances,), default=1
        Annotator labels per instance.
    seed : int, numpy.random.Generator or None

    Returns
    -------
    MixSplit
        ``sources`` index rows of `images`.

    References
    ----------
    Mimori et al. (2022), Diagnostic Uncertainty Calibration, Sec. 7.1 and App. E.1.

    Examples
    --------
    >>> x = np.stack([np.zeros((1, 2, 2)), np.ones((1, 2, 2))] * 3)
    >>> split = mix_images(x, [0, 1] * 3, n_classes=2, n_instances=4, mix_fraction=0.5, seed=1)
    >>> split.is_mixed.sum(), split.true_probs.sum(axis=1)
    (np.int64(2), array([1., 1., 1., 1.]))
    """
    x = as_numpy(images, "images")
    if x.ndim != 4 or x.dtype.kind not in "fiu" or x.dtype == bool:
        raise ValueError(f"images must be a real array of shape (M, C, H, W); got dtype {x.dtype} and shape {x.shape}")
    if isinstance(n_classes, bool) or not isinstance(n_classes, numbers.Integral) or n_classes < 2:
        raise ValueError(f"n_classes must be an int >= 2; got {n_classes!r}")
    y = as_numpy(labels, "labels")
    if y.shape != (len(x),) or y.dtype.kind not in "iu":
        raise ValueError(
            f"labels must hold {len(x)} integer labels (one per image); got dtype {y.dtype} and shape {y.shape}"
        )
    if y.size and (y.min() < 0 or y.max() >= n_classes):
        raise ValueError(f"labels must lie in [0, {n_classes}); got labels from {y.min()} to {y.max()}")
    f = _check_fraction(mix_fraction)
    n_max = int(len(x) / (1 + f)) + 1
    while n_max > 0 and _n_sources(n_max, f) > len(x):
        n_max -= 1
    if n_instances is None:
        n_instances = n_max
    if isinstance(n_instances, bool) or not isinstance(n_instances, numbers.Integral) or not 0 <= n_instances <= n_max:
        raise ValueError(
            f"n_instances must be an int in [0, {n_max}] for {len(x)} source images "
            f"and mix_fraction={f:.3g}; got {n_instances!r}"
        )
    n = int(n_instances)
    counts = _check_n_labels(n_labels, n, "n_labels")
    rng = _rng(seed)

    n_mix = int(round(f * n))
    n_keep = n - n_mix
    perm = rng.permutation(len(x))[: _n_sources(n, f)]
    sources = np.full((n, 2), -1, dtype=np.int64)
    sources[:n_keep, 0] = perm[:n_keep]
    sources[n_keep:] = perm[n_keep:].reshape(n_mix, 2)
    ratio = np.ones(n)
    ratio[n_keep:] = rng.uniform(0.0, 1.0, size=n_mix)
    order = rng.permutation(n)
    sources, ratio = sources[order], ratio[order]
    is_mixed = sources[:, 1] >= 0

    r_img = ratio.astype(np.float32)[:, None, None, None]
    first = x[sources[:, 0]].astype(np.float32)
    second = x[np.where(is_mixed, sources[:, 1], sources[:, 0])].astype(np.float32)
    out = r_img * first + (1 - r_img) * second
    out[~is_mixed] = first[~is_mixed]  # kept images exactly as they were

    true_probs = np.zeros((n, n_classes))
    rows = np.arange(n)
    np.add.at(true_probs, (rows, y[sources[:, 0]]), ratio)
    np.add.at(true_probs, (rows[is_mixed], y[sources[is_mixed, 1]]), 1.0 - ratio[is_mixed])
    label_hist = sample_label_hist(true_probs, counts, seed=rng) if n else np.zeros((0, n_classes), dtype=np.int64)
    return MixSplit(out, true_probs, label_hist, is_mixed, ratio, sources)


def make_mix_dataset(
    dataset: str | Dataset = "fashion_mnist",
    *,
    sizes=None,
    mix_fraction: float = 1 / 3,
    n_labels_train=1,
    n_labels_val=2,
    n_labels_test=10,
    seed: int | None = 0,
) -> MixDataset:
    """Mix-MNIST / Mix-CIFAR-10 style dataset from a base image dataset (Mimori et al. 2022).

    The base dataset's train and test images are pooled and shuffled (as the authors' split
    sizes imply: 52 500 Mix-MNIST instances from 70 000 images), cut into three disjoint
    groups of source images and turned into the train, validation and test splits by
    :func:`mix_images`, each with ``round(mix_fraction * n)`` mixtures,

    .. math::

        x = r\\,x^{(1)} + (1 - r)\\,x^{(2)}, \\quad Q(x) = r\\,e_{y^{(1)}} + (1 - r)\\,e_{y^{(2)}},
        \\quad r \\sim U(0, 1), \\qquad y_i \\sim \\operatorname{Mult}(n_i, Q(x_i)).

    Parameters
    ----------
    dataset : str or Dataset, default="fashion_mnist"
        A :class:`credalbook.data.Dataset` or a name for :func:`credalbook.data.load_dataset`
        (``"mnist"``, ``"cifar10"`` when the user has them; ``"fashion_mnist"``, ``"digits"``).
    sizes : (int, int, int) or None, default=None
        Instances in (train, validation, test). ``None`` uses :data:`PAPER_MIX_SIZES` for MNIST
        and CIFAR-10, else splits the largest possible number of instances 5 : 1 : 1.
    mix_fraction : float, default=1/3
        Fraction of mixed instances in every split (see the module docstring on 1/3 vs 1/2).
    n_labels_train, n_labels_val, n_labels_test : int or array-like, default=1, 2, 10
        Labels per instance of each split (an int, or an array with one count per instance,
        e.g. from :func:`variable_label_counts`). The paper uses 1; 2 or 5; 10.
    seed : int or None, default=0
        Seeds the pool shuffle and, independently, each split's mixing and labels, so that
        changing one split's labels leaves the other splits unchanged.

    Returns
    -------
    MixDataset

    References
    ----------
    Mimori et al. (2022), Diagnostic Uncertainty Calibration, Sec. 7.1 and App. E.1.

    Examples
    --------
    >>> mix = make_mix_dataset("digits", sizes=(900, 200, 200), seed=0)
    >>> int(mix.val.is_mixed.sum()), mix.test.n_labels[:3]
    (67, array([10, 10, 10]))
    """
    seed = check_seed(seed, generator=False)  # before the (slow) loading
    base = load_dataset(dataset) if isinstance(dataset, str) else dataset
    if not isinstance(base, Dataset):
        raise ValueError(f"dataset must be a dataset name or a credalbook.data.Dataset; got {type(dataset).__name__}")
    f = _check_fraction(mix_fraction)
    x = np.concatenate([base.x_train, base.x_test])
    y = np.concatenate([base.y_train, base.y_test])
    if sizes is None:
        if base.name in PAPER_MIX_SIZES and sum(_n_sources(s, f) for s in PAPER_MIX_SIZES[base.name]) <= len(x):
            sizes = PAPER_MIX_SIZES[base.name]
        else:
            total = sum(_DEFAULT_PROPORTIONS)
            scale = int(len(x) / (1 + f)) // total

            def needed_for(s):
                return sum(_n_sources(p * s, f) for p in _DEFAULT_PROPORTIONS)

            while scale > 0 and needed_for(scale) > len(x):
                scale -= 1
            sizes = tuple(p * scale for p in _DEFAULT_PROPORTIONS)
    sizes = tuple(sizes) if not isinstance(sizes, (str, bytes)) else sizes
    if len(sizes) != 3 or any(isinstance(s, bool) or not isinstance(s, numbers.Integral) or s < 1 for s in sizes):
        raise ValueError(f"sizes must be three positive ints (train, val, test); got {sizes!r}")
    needed = [_n_sources(int(s), f) for s in sizes]
    if sum(needed) > len(x):
        raise ValueError(
            f"sizes={sizes} with mix_fraction={f:.3g} need {sum(needed)} source images but {base.name!r} has {len(x)}"
        )

    sequence = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
    pool_seed, *split_seeds = sequence.spawn(4)
    pool = np.random.default_rng(pool_seed).permutation(len(x))
    splits, start = [], 0
    for n, need, n_labels, ss in zip(sizes, needed, (n_labels_train, n_labels_val, n_labels_test), split_seeds):
        idx = pool[start : start + need]
        start += need
        s = mix_images(
            x[idx],
            y[idx],
            n_classes=base.n_classes,
            n_instances=int(n),
            mix_fraction=f,
            n_labels=n_labels,
            seed=np.random.default_rng(ss),
        )
        sources = np.where(s.sources >= 0, idx[np.maximum(s.sources, 0)], -1)
        splits.append(dataclasses.replace(s, sources=sources))
    return MixDataset(*splits, classes=base.classes, name=f"mix_{base.name}", mix_fraction=f, seed=seed)
