"""Stored predictions of a set of M classifiers: the shape, the uniform average and the repr they share.

:class:`MemberPredictions` is the mixin of every frozen dataclass that holds the member
probabilities ``ens_probs_<split>`` (N, M, K) of several splits; :class:`ClassifierSet` holds those of
the classifier sets of Mortier et al. (2023, Table 1) on a calibration and a test split, as
:func:`credalbook.nn.train_classifier_set` returns them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from credalbook._validation import as_numpy, check_choice, check_labels, check_probs

__all__ = ["ClassifierSet", "MemberPredictions"]

#: The kinds of classifier set: a single network, a dropout network, a deep ensemble.
KINDS = ("single", "dropout", "ensemble")


class MemberPredictions:
    """What stored predictions of M members on several splits share: M, K and the uniform average.

    A mixin for the frozen dataclasses that hold them (:class:`ClassifierSet`, the topology
    ensembles of :mod:`credalbook.papers.wu_gales`; declare those with ``repr=False`` to keep the
    short repr here): the class attribute ``MEMBERS`` names an attribute of shape (N, M, K)
    (probabilities or logits) that gives :attr:`n_members` and :attr:`n_classes`, :meth:`average`
    is the uniform ensemble average of the member probabilities ``ens_probs_<split>``, and the repr
    shows the attributes named in ``REPR_FIELDS``, M, the size of every split in ``SPLITS`` (from
    ``y_<split>``) and K.

    Examples
    --------
    >>> class Two(MemberPredictions):
    ...     MEMBERS, SPLITS, REPR_FIELDS = "ens_probs_val", ("val",), ()
    ...     ens_probs_val, y_val = np.array([[[0.2, 0.8], [0.6, 0.4]]]), np.array([1])
    >>> Two(), Two().average("val")
    (Two(n_members=2, n_val=1, n_classes=2), array([[0.4, 0.6]]))
    """

    MEMBERS = "ens_probs_cal"
    SPLITS = ("cal", "test")
    REPR_FIELDS = ("name", "kind")

    @property
    def n_members(self) -> int:
        """Number of members M."""
        return int(getattr(self, self.MEMBERS).shape[1])

    @property
    def n_classes(self) -> int:
        """Number of classes K."""
        return int(getattr(self, self.MEMBERS).shape[2])

    def average(self, split: str) -> np.ndarray:
        """Uniform ensemble average of ``ens_probs_<split>`` (mean over the members), shape (N, K)."""
        return getattr(self, "ens_probs_" + split).mean(axis=1)

    def __repr__(self) -> str:
        parts = [f"{name}={getattr(self, name)!r}" for name in self.REPR_FIELDS]
        parts += [f"n_members={self.n_members}"]
        parts += [f"n_{split}={len(getattr(self, 'y_' + split))}" for split in self.SPLITS]
        return f"{type(self).__name__}({', '.join(parts)}, n_classes={self.n_classes})"


@dataclass(frozen=True, eq=False, repr=False)
class ClassifierSet(MemberPredictions):
    """Predictions of a set of M classifiers on a calibration and a test split.

    Attributes
    ----------
    ens_probs_cal : numpy.ndarray, shape (N_cal, M, K), float64
        Member m's class probabilities for calibration instance n; rows sum to one.
    y_cal : numpy.ndarray, shape (N_cal,), int64
    ens_probs_test : numpy.ndarray, shape (N_test, M, K), float64
    y_test : numpy.ndarray, shape (N_test,), int64
    kind : {"single", "dropout", "ensemble"}
    name : str
        Label in the paper's Table 1: ``"S"``, ``"DN(0.1)"``, ``"DN(0.6)"``, ``"DE"``.
    idx_cal, idx_test : numpy.ndarray of int64 or None
        Positions of the two splits in the dataset's test split (disjoint; together all of it).
    config : dict
        Arguments of :func:`train_classifier_set`, the resolved backbone configuration and the
        backbone's ``backbone_test_accuracy`` and ``backbone_seconds``.
    seconds : float
        Wall-clock time of training the heads and predicting (the backbone excluded).

    Examples
    --------
    >>> p = np.full((4, 2, 3), 1 / 3)
    >>> cs = ClassifierSet(p, np.array([0, 1, 2, 0]), p[:3], np.array([2, 1, 0]), "ensemble", "DE")
    >>> cs
    ClassifierSet(name='DE', kind='ensemble', n_members=2, n_cal=4, n_test=3, n_classes=3)
    >>> cs.probs_test.shape
    (3, 3)
    """

    ens_probs_cal: np.ndarray
    y_cal: np.ndarray
    ens_probs_test: np.ndarray
    y_test: np.ndarray
    kind: str
    name: str
    idx_cal: np.ndarray | None = None
    idx_test: np.ndarray | None = None
    config: dict = field(default_factory=dict)
    seconds: float = 0.0

    def __post_init__(self):
        check_choice(self.kind, "kind", KINDS)
        shapes = []
        for part in ("cal", "test"):
            probs = as_numpy(getattr(self, "ens_probs_" + part), "ens_probs_" + part)
            if probs.ndim != 3:
                raise ValueError(f"ens_probs_{part} must have shape (N, M, K); got {probs.shape}")
            probs = check_probs(probs, name="ens_probs_" + part, min_ndim=3)
            labels = check_labels(
                getattr(self, "y_" + part), n_classes=probs.shape[2], shape=probs.shape[:1], name="y_" + part
            )
            object.__setattr__(self, "ens_probs_" + part, probs)
            object.__setattr__(self, "y_" + part, labels)
            shapes.append(probs.shape[1:])
        if shapes[0] != shapes[1]:
            raise ValueError(
                f"ens_probs_cal and ens_probs_test must have the same (M, K); got {shapes[0]} and {shapes[1]}"
            )

    probs_cal = property(
        lambda self: self.average("cal"),
        doc="Ensemble average (uniform weights) on the calibration split, shape (N_cal, K).",
    )
    probs_test = property(
        lambda self: self.average("test"),
        doc="Ensemble average (uniform weights) on the test split, shape (N_test, K).",
    )
