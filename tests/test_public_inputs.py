"""Every public callable, fed malformed inputs, raises a ValueError or TypeError that names the argument;
fed valid edge cases (N = 1, K = 2, one member, confidences exactly 0 and 1), it answers, finitely.

The public callables are those of the core subpackages' ``__all__`` (metrics, stats, credal,
calibration, synthetic, data, nn) and the calibrators' ``fit``; :data:`SPECS` classifies each by the
roles of its arguments (``probs``, ``labels``, ``ens_probs``, ``logits``, ``label_hist``, a vector,
a seed, ``n_bins``, a bandwidth, ``epsilon``, ...). :func:`test_every_public_callable_is_classified`
keeps the list complete: a new public name must get a spec (callables whose arguments all have
known names are classified by their signature, :func:`_auto_spec`) or a reason in :data:`EXCLUDED`.

For every (callable, argument) one test replaces that argument of an otherwise valid call by each
malformation of its role in turn (shapes, NaN/inf, off-simplex rows, negative or fractional labels,
labels out of range, complex/object/string/bool dtypes, bad seeds, bad sizes, ``n_bins=10**9``)
and lists every malformation that is accepted, or rejected without naming the argument; Hypothesis
draws the data around it (N, K, M, which entry is broken, one-hot, uniform or Dirichlet rows).
Each call runs under an address-space cap, so a size that slips through fails with a MemoryError
instead of exhausting the machine. Closed forms for the valid edge cases are checked in
:class:`TestClosedForms`.

Cases that fail because of code outside this issue's validation work are listed in
:data:`KNOWN_GROUPS` with the fix they need and run one test each, marked ``xfail(strict=True)``:
fixing one makes its test fail until its line is removed.
"""

from __future__ import annotations

import contextlib
import dataclasses
import inspect
import math
import re
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pytest
import torch
from hypothesis import given, HealthCheck, Phase, settings
from hypothesis import strategies as st

from credalbook import calibration as C
from credalbook import credal as CR
from credalbook import data as D
from credalbook import metrics as M
from credalbook import nn as NN
from credalbook import stats as S
from credalbook import synthetic as SY

SUBPACKAGES = {"metrics": M, "stats": S, "credal": CR, "calibration": C, "synthetic": SY, "data": D, "nn": NN}
COMMON = dict(
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=list(HealthCheck),
    phases=(Phase.explicit, Phase.generate),
)  # no shrinking: the failure report lists the cases
MALFORMED_SETTINGS = settings(max_examples=2, **COMMON)
VALID_SETTINGS = settings(max_examples=6, **COMMON)


# ---------------------------------------------------------------------------------------------- data
@dataclass
class World:
    """One consistent set of valid inputs of N instances, K classes and M members."""

    n: int
    k: int
    m: int
    style: str
    rng: np.random.Generator
    probs: np.ndarray = field(init=False)
    labels: np.ndarray = field(init=False)

    def __post_init__(self):
        n, k, m, rng = self.n, self.k, self.m, self.rng
        if self.style == "onehot":  # confidences exactly 1 and class probabilities exactly 0
            self.probs = np.eye(k)[rng.integers(k, size=n)]
        elif self.style == "uniform":  # all rows equal, ties in the arg-max
            self.probs = np.full((n, k), 1.0 / k)
        else:
            self.probs = rng.dirichlet(np.ones(k), size=n)
        self.labels = rng.integers(k, size=n)
        ens = rng.dirichlet(np.ones(k), size=(n, m))
        ens[:, 0] = self.probs  # member 0 carries the style (one-hot, uniform)
        self.ens_probs = ens
        self.logits = rng.normal(size=(n, k)) * 3
        self.ens_logits = rng.normal(size=(n, m, k)) * 3
        self.label_hist = np.stack([rng.multinomial(3, p) for p in self.probs])  # n_i = 3 >= 2 labels
        unit = rng.random(n)
        if self.style == "onehot":
            unit[: min(2, n)] = [0.0, 1.0][: min(2, n)]
        self.unit = unit
        self.real = rng.normal(size=n)
        self.nonneg = rng.random(n) * 2
        self.binary = rng.integers(2, size=n)
        self.features = rng.normal(size=(n, 2))


@st.composite
def worlds(draw, min_n: int = 1, max_n: int = 6, max_m: int = 3, max_k: int = 4):
    n = draw(st.integers(min_n, max(min_n, max_n)))
    k = draw(st.integers(2, max_k))
    m = draw(st.integers(1, max_m))
    style = draw(st.sampled_from(["dirichlet", "onehot", "uniform"]))
    return World(n, k, m, style, np.random.default_rng(draw(st.integers(0, 2**32 - 1))))


def _put(a, value, rng, dtype=float):
    """Copy of ``a`` with one random entry set to ``value``."""
    a = np.array(a, dtype=dtype)
    idx = tuple(int(rng.integers(s)) for s in a.shape)
    a[idx] = value
    return a


def _off_simplex(a, rng):
    a = np.array(a, dtype=float)
    row = tuple(int(rng.integers(s)) for s in a.shape[:-1])
    a[row] = a[row] * 0.5  # a row summing to 0.5, all entries still in [0, 1]
    return a


# Malformations per role: name -> (world, valid value, rng) -> bad value.
PROB_ROWS = {
    # (N·K,): 1-D, and of the wrong length for binary scores P(y = 1), which (N,) probs are where labels are given
    "ndim_1": lambda w, v, r: np.asarray(v).reshape(-1),
    "scalar": lambda w, v, r: 0.5,
    "one_class": lambda w, v, r: np.ones((*np.shape(v)[:-1], 1)),
    "no_instance": lambda w, v, r: np.zeros((*np.shape(v)[:-2], 0, np.shape(v)[-1])),
    "nan": lambda w, v, r: _put(v, np.nan, r),
    "inf": lambda w, v, r: _put(v, np.inf, r),
    "negative": lambda w, v, r: _put(v, -0.3, r),
    "above_one": lambda w, v, r: _put(v, 1.5, r),
    "off_simplex": lambda w, v, r: _off_simplex(v, r),
    "complex": lambda w, v, r: np.asarray(v, dtype=complex),
    "object": lambda w, v, r: np.asarray(v, dtype=object),
    "string": lambda w, v, r: np.asarray(v).astype(str),
    "none": lambda w, v, r: None,
}
LABELS = {
    "too_large": lambda w, v, r: _put(v, w.k, r, int),
    "negative": lambda w, v, r: _put(v, -1, r, int),
    "fractional": lambda w, v, r: _put(v, 0.5, r),
    "nan": lambda w, v, r: _put(v, np.nan, r),
    "bool": lambda w, v, r: np.zeros(np.shape(v), dtype=bool),
    "complex": lambda w, v, r: np.asarray(v, dtype=complex),
    "string": lambda w, v, r: np.asarray(v).astype(str),
    "wrong_length": lambda w, v, r: np.zeros(w.n + 1, dtype=int),
    "ndim_2": lambda w, v, r: np.asarray(v)[:, None],
    "none": lambda w, v, r: None,
}
BINARY = {
    "two": lambda w, v, r: _put(v, 2, r, int),
    "negative": lambda w, v, r: _put(v, -1, r, int),
    "fractional": lambda w, v, r: _put(v, 0.5, r),
    "nan": lambda w, v, r: _put(v, np.nan, r),
    "complex": lambda w, v, r: np.asarray(v, dtype=complex),
    "string": lambda w, v, r: np.asarray(v).astype(str),
    "wrong_length": lambda w, v, r: np.zeros(w.n + 1, dtype=int),
    "ndim_2": lambda w, v, r: np.asarray(v)[:, None],
    "none": lambda w, v, r: None,
}
ENS = {
    **PROB_ROWS,
    "ndim_2": lambda w, v, r: np.asarray(v)[:, 0, :],
    "no_member": lambda w, v, r: np.zeros((w.n, 0, w.k)),
}
del ENS["ndim_1"]
POINTS = {k: f for k, f in PROB_ROWS.items() if k != "ndim_1"}  # (..., K): one row is valid
VERTICES = {k: f for k, f in PROB_ROWS.items() if k != "no_instance"}
LOGITS = {
    "ndim_1": lambda w, v, r: np.asarray(v)[..., 0, :],
    "one_class": lambda w, v, r: np.ones((*np.shape(v)[:-1], 1)),
    "nan": lambda w, v, r: _put(v, np.nan, r),
    "inf": lambda w, v, r: _put(v, -np.inf, r),
    "complex": lambda w, v, r: np.asarray(v, dtype=complex),
    "object": lambda w, v, r: np.asarray(v, dtype=object),
    "string": lambda w, v, r: np.asarray(v).astype(str),
    "none": lambda w, v, r: None,
}
LABEL_HIST = {
    "negative": lambda w, v, r: _put(v, -1, r, int),
    "fractional": lambda w, v, r: _put(v, 1.5, r),
    "nan": lambda w, v, r: _put(v, np.nan, r),
    "bool": lambda w, v, r: np.ones(np.shape(v), dtype=bool),
    "complex": lambda w, v, r: np.asarray(v, dtype=complex),
    "string": lambda w, v, r: np.asarray(v).astype(str),
    "wrong_classes": lambda w, v, r: np.ones((w.n, w.k + 1), dtype=int),
    "wrong_length": lambda w, v, r: np.ones((w.n + 1, w.k), dtype=int),
    "ndim_1": lambda w, v, r: np.asarray(v)[0],
    "none": lambda w, v, r: None,
}
VECTOR = {
    "nan": lambda w, v, r: _put(v, np.nan, r),
    "inf": lambda w, v, r: _put(v, np.inf, r),
    "ndim_2": lambda w, v, r: np.asarray(v)[:, None],
    "complex": lambda w, v, r: np.asarray(v, dtype=complex),
    "string": lambda w, v, r: np.asarray(v).astype(str),
    "wrong_length": lambda w, v, r: np.zeros(w.n + 1),
    "none": lambda w, v, r: None,
}
UNIT_VECTOR = {**VECTOR, "negative": lambda w, v, r: _put(v, -0.1, r), "above_one": lambda w, v, r: _put(v, 1.5, r)}
NONNEG_VECTOR = {**VECTOR, "negative": lambda w, v, r: _put(v, -1.0, r)}
FEATURES = {
    "nan": lambda w, v, r: _put(v, np.nan, r),
    "complex": lambda w, v, r: np.asarray(v, dtype=complex),
    "string": lambda w, v, r: np.asarray(v).astype(str),
    "wrong_length": lambda w, v, r: np.zeros((w.n + 1, 2)),
    "none": lambda w, v, r: None,
}
SEED = {
    "negative": lambda w, v, r: -1,
    "float": lambda w, v, r: 1.5,
    "string": lambda w, v, r: "a",
    "bool": lambda w, v, r: True,
    "negative_in_list": lambda w, v, r: [1, -1],
    "object": lambda w, v, r: object(),
}
N_BINS = {
    "zero": lambda w, v, r: 0,
    "negative": lambda w, v, r: -1,
    "bool": lambda w, v, r: True,
    "float": lambda w, v, r: 2.5,
    "string": lambda w, v, r: "10",
    "huge": lambda w, v, r: 10**9,
    "none": lambda w, v, r: None,
}
COUNT = {k: f for k, f in N_BINS.items() if k != "huge"}
POSITIVE = {
    "zero": lambda w, v, r: 0,
    "negative": lambda w, v, r: -1.0,
    "nan": lambda w, v, r: float("nan"),
    "inf": lambda w, v, r: float("inf"),
    "bool": lambda w, v, r: True,
    "string": lambda w, v, r: "a",
    "complex": lambda w, v, r: 1j,
    "none": lambda w, v, r: None,
}
EPSILON = {
    "negative": lambda w, v, r: -0.1,
    "above_one": lambda w, v, r: 1.5,
    "nan": lambda w, v, r: float("nan"),
    "bool": lambda w, v, r: True,
    "string": lambda w, v, r: "a",
    "none": lambda w, v, r: None,
}
ALPHA = {**EPSILON, "zero": lambda w, v, r: 0.0, "one": lambda w, v, r: 1.0}
FRACTION = {
    "negative": lambda w, v, r: -0.1,
    "one": lambda w, v, r: 1.0,
    "nan": lambda w, v, r: float("nan"),
    "bool": lambda w, v, r: True,
    "string": lambda w, v, r: "a",
}
CHOICE = {
    "unknown": lambda w, v, r: "no-such-option",
    "none": lambda w, v, r: None,
    "number": lambda w, v, r: 3,
    "list": lambda w, v, r: [v],
}


@dataclass(frozen=True)
class Role:
    valid: Callable[[World], object]
    malformed: dict


ROLES = {
    "probs": Role(lambda w: w.probs, PROB_ROWS),
    "labels": Role(lambda w: w.labels, LABELS),
    "binary": Role(lambda w: w.binary, BINARY),
    "ens_probs": Role(lambda w: w.ens_probs, ENS),
    "points": Role(lambda w: w.probs, POINTS),
    "vertices": Role(lambda w: w.ens_probs[0], VERTICES),
    "logits": Role(lambda w: w.logits, LOGITS),
    "ens_logits": Role(lambda w: w.ens_logits, {k: f for k, f in LOGITS.items() if k != "ndim_1"}),
    "label_hist": Role(lambda w: w.label_hist, LABEL_HIST),
    "unit": Role(lambda w: w.unit, UNIT_VECTOR),
    "real": Role(lambda w: w.real, VECTOR),
    "nonneg": Role(lambda w: w.nonneg, NONNEG_VECTOR),
    "features": Role(lambda w: w.features, FEATURES),
    "weights": Role(
        lambda w: np.full(w.m, 1.0 / w.m),
        {
            "negative": lambda w, v, r: np.r_[-0.5, np.full(w.m, 1.5 / w.m)][: w.m] if w.m > 1 else np.array([-1.0]),
            "off_simplex": lambda w, v, r: np.full(w.m, 0.9 / w.m),
            "nan": lambda w, v, r: _put(v, np.nan, r),
            "complex": lambda w, v, r: np.asarray(v, dtype=complex),
            "string": lambda w, v, r: np.asarray(v).astype(str),
            "wrong_length": lambda w, v, r: np.full(w.m + 1, 1.0 / (w.m + 1)),
        },
    ),
    "seed": Role(lambda w: 0, SEED),
    "n_bins": Role(lambda w: 2, N_BINS),
    "count": Role(lambda w: 2, COUNT),
    "positive": Role(lambda w: 0.5, POSITIVE),
    "epsilon": Role(lambda w: 0.1, EPSILON),
    "alpha": Role(lambda w: 0.05, ALPHA),
    "fraction": Role(lambda w: 0.2, FRACTION),
    "order": Role(
        lambda w: 2.0, {k: f for k, f in POSITIVE.items() if k != "inf"} | {"below_one": lambda w, v, r: 0.5}
    ),
    "alpha0": Role(lambda w: 2.0, {k: f for k, f in POSITIVE.items() if k != "inf"}),  # inf is allowed
}


def choice(value) -> Role:
    """An option from a fixed set of strings; valid value ``value``."""
    return Role(lambda w: value, CHOICE)


# ---------------------------------------------------------------------------------------------- specs
@dataclass(frozen=True)
class Dyn:
    """A fixed option that depends on the data, e.g. ``n_members = M``."""

    of: Callable[[World], object]


@dataclass
class Spec:
    """How to call one public callable: the role of each argument (by parameter name), fixed options."""

    name: str
    fn: Callable
    roles: dict
    fixed: dict = field(default_factory=dict)
    lead: str | None = None  # the argument that sets N (its own wrong length is no error)
    min_n: int = 1
    max_n: int = 6
    finite: bool = True  # valid calls give finite numbers (else NaN is allowed, e.g. empty bins)
    edge: bool = True  # run the valid edge cases (False: too slow, or needs more data)
    skip: tuple = ()  # (argument, malformation) pairs that are not malformed for this callable
    precondition: str | None = None  # regex of the documented errors valid but unsuitable data may raise
    slow: bool = False  # valid edge cases: one small example only (fits that take seconds)

    def __post_init__(self):
        try:
            params = inspect.signature(self.fn).parameters
        except (TypeError, ValueError):
            params = {}
        # an argument whose default is None accepts None; one whose default is 0 accepts 0
        self.skip = (
            tuple(self.skip)
            + tuple((a, "none") for a, p in params.items() if p.default is None)
            + tuple(
                (a, "zero")
                for a, p in params.items()
                if not isinstance(p.default, bool) and isinstance(p.default, (int, float)) and p.default == 0
            )
        )

    def role(self, arg) -> Role:
        r = self.roles[arg]
        return r if isinstance(r, Role) else ROLES[r]

    def valid_kwargs(self, w: World) -> dict:
        fixed = {a: v.of(w) if isinstance(v, Dyn) else v for a, v in self.fixed.items()}
        return {**{a: self.role(a).valid(w) for a in self.roles}, **fixed}


def _method(cls, method="fit", init=None):
    """``cls(**init).method`` as a plain function with the method's parameter names."""

    def call(**kwargs):
        return getattr(cls(**(init or {})), method)(**kwargs)

    call.__name__ = f"{cls.__name__}.{method}"
    return call


def _mix_images(**kwargs):
    """:func:`credalbook.data.mix_images` on blank 2×2 images, one per label."""
    n = len(kwargs["labels"]) if kwargs["labels"] is not None and np.ndim(kwargs["labels"]) else 4
    return D.mix_images(np.zeros((max(n, 1), 1, 2, 2)), **kwargs)


_PL = dict(probs="probs", labels="labels")
_EL = dict(ens_probs="ens_probs", labels="labels")
_HP = dict(probs="probs", label_hist="label_hist")
_EG = dict(eu="real", gain="real")
#: Several models' predictions (stats.compare_models): model "a" malformed as a ``probs`` argument, or the mapping.
MODELS = Role(
    lambda w: {"a": w.probs, "b": w.probs[::-1].copy()},
    {
        **{f"a_{bad}": (lambda w, v, r, f=f: {"a": f(w, v["a"], r), "b": v["b"]}) for bad, f in PROB_ROWS.items()},
        "empty": lambda w, v, r: {},
        "list": lambda w, v, r: [v["a"], v["b"]],
        "none": lambda w, v, r: None,
        "other_n": lambda w, v, r: {"a": v["a"], "b": np.concatenate([v["b"], v["b"]])},
    },
)


def _specs() -> list[Spec]:
    s = [
        # metrics.classification
        Spec("metrics.accuracy", M.accuracy, _PL),
        Spec("metrics.brier_score", M.brier_score, _PL),
        Spec("metrics.nll", M.nll, {**_PL, "eps": "positive"}, skip=(("eps", "zero"),)),  # eps = 0: no clipping
        Spec("metrics.ece_confidence", M.ece_confidence, {**_PL, "n_bins": "n_bins"}),
        Spec("metrics.ece_classwise", M.ece_classwise, {**_PL, "n_bins": "n_bins"}),
        Spec(
            "metrics.reliability_curve",
            M.reliability_curve,
            {**_PL, "n_bins": "n_bins", "kind": choice("confidence")},
            finite=False,
        ),
        Spec("metrics.calibration_summary", M.calibration_summary, {**_PL, "n_bins": "n_bins"}, finite=False),
        # metrics.binning
        Spec(
            "metrics.bin_ids",
            M.bin_ids,
            {"values": "unit", "n_bins": "n_bins", "strategy": choice("uniform")},
            lead="values",
            skip=(("values", "ndim_2"),),
        ),  # any shape
        *(
            [
                Spec(
                    "metrics.bin_statistics",
                    M.bin_statistics,
                    {
                        "values": Role(lambda w: w.probs, {k: f for k, f in LOGITS.items() if k != "one_class"}),
                        "positive": "labels",
                        "n_bins": "n_bins",
                        "strategy": choice("uniform"),
                    },
                    lead="values",
                    skip=(("positive", "negative"),),
                )
            ]  # positive = -1: no positive outcome
            if hasattr(M, "bin_statistics")
            else []
        ),
        # (N,) probabilities are binary predictions P(y = 1) for the smooth ECE
        *[
            Spec(
                f"metrics.{n}",
                getattr(M, n),
                {**_PL, **({"bandwidth": "positive"} if n == "smooth_ece" else {})},
                skip=(("probs", "ndim_1"),),
                min_n=2,
            )
            for n in ("smooth_ece", "smooth_ece_bandwidth")
            if hasattr(M, n)
        ],
        # metrics.distribution
        # (the estimators of Jürgens et al. need N >= 2: leave-one-out and pair terms)
        Spec("metrics.brier_estimator", M.brier_estimator, _PL, min_n=2),
        Spec(
            "metrics.dirichlet_kde_calibration_map",
            M.dirichlet_kde_calibration_map,
            {**_PL, "bandwidth": "positive"},
            min_n=2,
        ),
        Spec("metrics.kl_calibration_error", M.kl_calibration_error, {**_PL, "bandwidth": "positive"}, min_n=2),
        Spec(
            "metrics.lp_calibration_error",
            M.lp_calibration_error,
            {**_PL, "bandwidth": "positive", "order": "order"},
            min_n=2,
        ),
        Spec(
            "metrics.mmd_calibration_error",
            M.mmd_calibration_error,
            {**_PL, "bandwidth": "positive", "label_bandwidth": "positive", "conditioning": choice("prediction")},
            min_n=2,
        ),
        Spec(
            "metrics.skce_estimator",
            M.skce_estimator,
            {**_PL, "bandwidth": "positive", "estimator": choice("linear")},
            min_n=2,
        ),
        Spec("metrics.estimator_function", M.estimator_function, {"name": choice("lp")}),
        # metrics.regions (Wu & Gales): acce, ecce, ece, ... are classified by their signatures (_auto_spec)
        Spec(
            "metrics.multiclass_auc",
            M.multiclass_auc,
            {**_PL, "kind": choice("ovr")},
            min_n=2,
            finite=False,
            precondition="at least two classes",
        ),
        Spec(
            "metrics.differentiable_ece",
            M.differentiable_ece,
            {**_PL, "n_bins": "n_bins", "bin_temperature": "positive"},
        ),
        Spec(
            "metrics.calibrated_sampling_floor",
            M.calibrated_sampling_floor,
            {"probs": "probs", "criterion": choice("ece"), "epsilon": "epsilon", "n_draws": "count", "seed": "seed"},
        ),
        Spec(
            "metrics.criteria_summary",
            M.criteria_summary,
            {**_PL, "epsilon": "epsilon", "bandwidth": "positive"},
            fixed={"skce": False},
        ),
        Spec("metrics.epsilon_from_bins", M.epsilon_from_bins, {"n_bins": "n_bins"}),
        Spec(
            "metrics.describe_direction",
            M.describe_direction,
            {
                "signed_error": Role(
                    lambda w: 0.02, {k: f for k, f in POSITIVE.items() if k not in ("zero", "negative")}
                ),
                "kind": choice("confidence"),
                "tolerance": "positive",
                "digits": "count",
            },
            skip=(("digits", "zero"),),  # no decimals
            finite=False,  # a sentence
        ),
        Spec("metrics.global_calibration_gap", M.global_calibration_gap, _PL),
        Spec("metrics.global_top_label_gap", M.global_top_label_gap, _PL),
        Spec(
            "metrics.median_heuristic",
            M.median_heuristic,
            {"probs": "probs", "max_instances": "count", "seed": "seed"},
            min_n=2,
        ),
        Spec(
            "metrics.skce_laplacian",
            M.skce_laplacian,
            {**_PL, "bandwidth": "positive", "max_instances": "count", "seed": "seed"},
            min_n=2,
        ),
        # metrics.epistemic
        Spec(
            "metrics.accuracy_gain",
            M.accuracy_gain,
            {"labels": "binary", "pred": "binary", "pred_optimal": "binary"},
            lead="labels",
        ),
        Spec("metrics.eece", M.eece, {**_EG, "n_bins": "n_bins"}, lead="eu", min_n=2),
        Spec("metrics.epistemic_correlation", M.epistemic_correlation, _EG, lead="eu", finite=False),
        Spec("metrics.interval_cuts", M.interval_cuts, {"eu": "real", "n_bins": "n_bins"}, lead="eu", min_n=2),
        Spec("metrics.eu_reliability", M.eu_reliability, {**_EG, "n_bins": "n_bins"}, lead="eu", min_n=2, finite=False),
        Spec("metrics.evaluate_eu", M.evaluate_eu, {**_EG, "n_bins": "n_bins"}, lead="eu", min_n=2, finite=False),
        Spec("metrics.fit_eu_calibration", M.fit_eu_calibration, _EG, fixed={"cuts": [0.5]}, lead="eu", finite=False),
        Spec("metrics.interval_index", M.interval_index, {"eu": "real"}, fixed={"cuts": [0.25, 0.5]}, lead="eu"),
        # metrics.kernel
        Spec("metrics.as_kernel", M.as_kernel, {"bandwidth": "positive"}),
        *[
            Spec(
                f"metrics.{n}",
                getattr(M, n),
                {"p": "probs", "q": "probs", "bandwidth": "positive"},
                lead="p",
                skip=(("q", "no_instance"), ("q", "ndim_1"), ("p", "ndim_1"), ("p", "no_instance")),
            )
            for n in ("gaussian_kernel", "laplacian_kernel", "tv_kernel")
        ],
        *[
            Spec(f"metrics.{n}", getattr(M, n), {"bandwidth": "positive"})
            for n in ("GaussianKernel", "LaplacianKernel", "TVKernel")
        ],
        Spec("metrics.skce", M.skce, {**_PL, "bandwidth": "positive", "estimator": choice("quadratic")}, min_n=2),
        Spec("metrics.skce_ul", M.skce_ul, {**_PL, "bandwidth": "positive"}, min_n=2),
        Spec("metrics.skce_uq", M.skce_uq, {**_PL, "bandwidth": "positive"}, min_n=2),
        # metrics.label_hist / label_stats
        *[
            Spec(f"metrics.{n}", getattr(M, n), {**_HP, "n_bins": "n_bins"}, lead="probs", finite=False)
            for n in (
                "binned_calibration_error",
                "binned_calibration_loss",
                "cpe_loss_decomposition",
                "dispersion_loss",
            )
        ],
        Spec("metrics.check_label_hist", M.check_label_hist, {"label_hist": "label_hist"}, lead="label_hist"),
        Spec("metrics.epistemic_loss", M.epistemic_loss, _HP, lead="probs"),
        Spec("metrics.expected_squared_loss", M.expected_squared_loss, _HP, lead="probs"),
        *[
            Spec(
                f"metrics.{n}",
                getattr(M, n),
                {"phi_probs": "unit", "label_hist": "label_hist", "order": "count", "n_bins": "n_bins"},
                lead="label_hist",
                finite=False,
            )
            for n in ("statistic_calibration", "statistic_calibration_error", "statistic_calibration_loss")
        ],
        Spec(
            "metrics.statistic_squared_loss",
            M.statistic_squared_loss,
            {"phi_probs": "unit", "label_hist": "label_hist", "order": "count"},
            lead="label_hist",
        ),
        Spec(
            "metrics.statistic_mean_estimate",
            M.statistic_mean_estimate,
            {"label_hist": "label_hist", "order": "count"},
            lead="label_hist",
        ),
        # metrics.uncertainty
        Spec(
            "metrics.binary_entropy", M.binary_entropy, {"p": "unit"}, lead="p", skip=(("p", "ndim_2"),)
        ),  # any shape is valid
        Spec(
            "metrics.eu_estimates",
            M.eu_estimates,
            {
                "latent_mean": "real",
                "latent_var": "nonneg",
                "method": choice("mc"),
                "n_samples": "count",
                "n_points": "count",
                "seed": "seed",
            },
            lead="latent_mean",
        ),
        *[
            Spec(
                f"metrics.{n}",
                getattr(M, n),
                {"latent_mean": "real", "latent_var": "nonneg", "seed": "seed"},
                fixed={"n_samples": 50},
                lead="latent_mean",
            )
            for n in ("mutual_information", "predictive_entropy", "predictive_probability")
        ],
        Spec(
            "metrics.uncertainty_decomposition",
            M.uncertainty_decomposition,
            {"prob_true": "unit", "pred": "binary"},
            lead="prob_true",
        ),
        # stats
        Spec(
            "stats.bootstrap_calibration_test",
            S.bootstrap_calibration_test,
            {
                **_PL,
                "n_bins": "n_bins",
                "n_resamples": "count",
                "alpha": "alpha",
                "seed": "seed",
                "resample": choice("bootstrap"),
            },
        ),
        Spec("stats.exact_size", S.exact_size, {"alpha": "alpha", "n_resamples": "count"}),
        Spec(
            "stats.minimise_calibration_measure",
            S.minimise_calibration_measure,
            {**_EL, "n_bins": "n_bins", "seed": "seed"},
            fixed={"solver": "lattice"} if "lattice" in S.SOLVERS else {},
        ),
        Spec(
            "stats.set_calibration_test",
            S.set_calibration_test,
            {
                **_EL,
                "n_bins": "n_bins",
                "n_resamples": "count",
                "alpha": "alpha",
                "seed": "seed",
                "weight_prior": choice("uniform"),
                "resample": choice("bootstrap"),
            },
            fixed={"solver": "lattice"} if "lattice" in S.SOLVERS else {},
            max_n=4,
        ),
        Spec(
            "stats.set_null_distribution",
            S.set_null_distribution,
            {
                "ens_probs": "ens_probs",
                "n_bins": "n_bins",
                "n_resamples": "count",
                "seed": "seed",
                "weight_prior": choice("uniform"),
                "resample": choice("bootstrap"),
            },
        ),
        Spec(
            "stats.hosmer_lemeshow",
            S.hosmer_lemeshow,
            {
                **_PL,
                "n_bins": "n_bins",
                "n_resamples": "count",
                "seed": "seed",
                "grouping": choice("per_class"),
                "null": choice("resampling"),
            },
            min_n=2,
            finite=False,
        ),
        # an observed label in a group with expected count 0 gives the statistic +inf, deliberately
        Spec(
            "stats.hosmer_lemeshow_statistic",
            S.hosmer_lemeshow_statistic,
            {**_PL, "n_bins": "n_bins", "grouping": choice("per_class")},
            min_n=2,
            finite=False,
        ),
        # the classical binary tests: K > 2, predictions that leave the statistic undefined (every p in
        # {0, 1/2, 1}) and fewer groups than the reference needs are documented ValueErrors
        Spec(
            "stats.spiegelhalter_test",
            S.spiegelhalter_test,
            {**_PL, "alpha": "alpha"},
            skip=(("probs", "ndim_1"),),  # (N,) scores P(y = 1) are binary predictions
            precondition="binary predictions|variance of the statistic is 0",
        ),
        Spec(
            "stats.hosmer_lemeshow_binary_test",
            S.hosmer_lemeshow_binary_test,
            {
                **_PL,
                "n_bins": "n_bins",
                "alpha": "alpha",
                "strategy": choice("quantile"),
                "null": choice("chi2_external"),
            },
            skip=(("probs", "ndim_1"),),
            precondition="binary predictions|needs at least|at least n_bins",
            finite=False,  # an event where every probability of a group is 0 gives +inf, deliberately
        ),
        Spec(
            "stats.null_rejection_rate",
            S.null_rejection_rate,
            {
                "n_datasets": "count",
                "n_instances": "count",
                "n_classes": "count",
                "n_bins": "n_bins",
                "alpha": "alpha",
                "n_resamples": "count",
                "seed": "seed",
                "concentration": "positive",
            },
            fixed={"n_instances": 4},
        ),
        Spec("stats.split_indices", S.split_indices, {"n": "count", "seed": "seed"}, fixed={"n": 10}),
        Spec(
            "stats.calibration_measure",
            S.calibration_measure,
            {"name": choice("ece_confidence"), "n_bins": "n_bins", "bandwidth": "positive"},
        ),
        Spec("stats.estimator_measure", S.estimator_measure, {"name": choice("lp")}),
        Spec(
            "stats.instance_calibration_test",
            S.instance_calibration_test,
            {"features": "features", **_EL, "n_resamples": "count", "alpha": "alpha", "seed": "seed"},
            fixed={"learner_options": {"max_epochs": 1, "patience": 1, "hidden": (4,)}},
            lead="features",
            edge=False,
            min_n=10,
            max_n=12,
        ),
        Spec(
            "stats.compare_models",
            S.compare_models,
            {
                "models": MODELS,
                "labels": "labels",
                "n_bins": "n_bins",
                "ci": "fraction",
                "n_resamples": "count",
                "seed": "seed",
            },
            fixed={"metrics": ("ece_confidence", "nll")},
            lead="models",
        ),
        Spec(
            "stats.fit_weight_function",
            S.fit_weight_function,
            {"features": "features", **_EL, "seed": "seed"},
            fixed={"max_epochs": 1, "patience": 1, "hidden": (4,)},
            lead="features",
            edge=False,
            min_n=6,
            max_n=8,
        ),
        # credal
        Spec(
            "credal.boundary_point",
            CR.boundary_point,
            {
                "ens_probs": "ens_probs",
                "start": "points",
                "end": "points",
                "method": choice("bisection"),
                "n_grid": "count",
                "tol": "positive",
            },
            lead="ens_probs",
            skip=(("ens_probs", "ndim_2"),),
        ),
        Spec("credal.check_weights", CR.check_weights, {"weights": "weights"}, fixed={"n_members": Dyn(lambda w: w.m)}),
        Spec(
            "credal.convex_combination",
            CR.convex_combination,
            {"ens_probs": "ens_probs", "weights": "weights"},
            lead="ens_probs",
        ),
        # ens_probs (M, K) is one hull: not malformed here
        Spec(
            "credal.hull_distance",
            CR.hull_distance,
            {"ens_probs": "ens_probs", "points": "points"},
            lead="ens_probs",
            skip=(("ens_probs", "ndim_2"),),
        ),
        Spec(
            "credal.in_credal_set",
            CR.in_credal_set,
            {"ens_probs": "ens_probs", "points": "points", "tol": "positive"},
            lead="ens_probs",
            skip=(("tol", "zero"), ("ens_probs", "ndim_2")),
        ),
        Spec(
            "credal.sample_weights",
            CR.sample_weights,
            {"n_members": "count", "size": "count", "seed": "seed", "prior": choice("uniform")},
            skip=(("size", "zero"), ("size", "none")),
        ),
        Spec("credal.polytope_volume", CR.polytope_volume, {"vertices": "vertices"}, lead="vertices"),
        Spec(
            "credal.sample_polytope",
            CR.sample_polytope,
            {
                "vertices": "vertices",
                "n_samples": "count",
                "method": choice("triangulation"),
                "seed": "seed",
                "thin": "count",
                "n_chains": "count",
            },
            lead="vertices",
        ),
        # calibration
        Spec(
            "calibration.auc_weights",
            C.auc_weights,
            {**_EL, "kind": choice("ovr")},
            min_n=2,
            finite=False,
            precondition="at least two classes|better than chance",
        ),
        Spec("calibration.average_members", C.average_members, {"ens_probs": "ens_probs", "weights": "weights"}),
        Spec("calibration.ensemble_calibration", C.ensemble_calibration, {**_EL, "weights": "weights"}),
        Spec(
            "calibration.ensemble_confidence_gap",
            C.ensemble_confidence_gap,
            {"ens_probs": "ens_probs", "weights": "weights"},
        ),
        Spec(
            "calibration.ml_weights",
            C.ml_weights,
            {**_EL, "max_iter": "count", "tol": "positive"},
            skip=(("tol", "zero"),),
        ),  # tol = 0: run to max_iter
        Spec(
            "calibration.multiclass_auc",
            C.multiclass_auc,
            {**_PL, "kind": choice("ovr")},
            min_n=2,
            finite=False,
            precondition="at least two classes",
        ),
        # Prop. 4 needs K > 2 and a member whose top label differs from the ensemble's: fixed data
        Spec(
            "calibration.perturb_non_top_label",
            C.perturb_non_top_label,
            {
                "ens_probs": Role(lambda w: np.array([[[0.5, 0.3, 0.2], [0.1, 0.2, 0.7], [0.1, 0.2, 0.7]]]), ENS),
                "tau": Role(lambda w: 0.05, POSITIVE),
            },
            fixed={"instance": 0, "member": 0},
            precondition="Proposition 4|tau must be at most",
        ),
        Spec("calibration.regional_confidence", C.regional_confidence, {**_EL, "epsilon": "epsilon"}, finite=False),
        Spec("calibration.dirichlet_disagreement", C.dirichlet_disagreement, {"probs": "probs", "alpha0": "alpha0"}),
        Spec(
            "calibration.dirichlet_multinomial_nll",
            C.dirichlet_multinomial_nll,
            {"probs": "probs", "label_hist": "label_hist", "log_alpha0": "real", "reg": "positive"},
            lead="probs",
            skip=(("reg", "zero"),),
        ),  # no regularisation
        Spec(
            "calibration.dirichlet_posterior_probs",
            C.dirichlet_posterior_probs,
            {"probs": "probs", "alpha0": "alpha0", "label_hist": "label_hist"},
        ),
        Spec(
            "calibration.ensemble_disagreement", C.ensemble_disagreement, {"ens_probs": "ens_probs", "alpha0": "alpha0"}
        ),
        Spec(
            "calibration.ensemble_posterior_probs",
            C.ensemble_posterior_probs,
            {
                "ens_probs": "ens_probs",
                "label_hist": "label_hist",
                "weights": "weights",
                "likelihood": choice("multinomial"),
            },
        ),
        Spec(
            "calibration.differentiable_ece",
            C.differentiable_ece,
            {**_PL, "n_bins": "n_bins", "bin_temperature": "positive"},
        ),
        Spec("calibration.histogram_nll", C.histogram_nll, {"logits": "logits", "labels": "labels"}),
        *[
            Spec(
                f"calibration.{cls.__name__}.fit",
                _method(cls),
                {"logits": "logits", "labels": "labels", "seed": "seed"},
                slow=True,
            )
            for cls in (C.TemperatureScaling, C.VectorScaling, C.MatrixScaling)
        ],
        *[
            Spec(
                f"calibration.{cls.__name__}.fit",
                _method(cls, init=init),
                {"logits": "ens_logits", "labels": "labels"},
                slow=True,
            )
            for cls, init in (
                (C.DynamicTemperatureScaling, {"n_regions": 1}),
                (C.PostCombinationScaling, {}),
                (C.PreCombinationScaling, {}),
            )
        ],
        Spec(
            "calibration.AlphaCalibrator.fit",
            _method(C.AlphaCalibrator),
            {"features": "features", "probs": "probs", "label_hist": "label_hist", "seed": "seed"},
            lead="features",
        ),
        # synthetic
        Spec(
            "synthetic.instance_scenario",
            SY.instance_scenario,
            {
                "setting": choice("multiclass"),
                "hypothesis": choice("H0-const"),
                "n_datasets": "count",
                "n_instances": "count",
                "seed": "seed",
            },
        ),
        Spec(
            "synthetic.calibrated_predictions",
            SY.calibrated_predictions,
            {"n_instances": "count", "n_classes": "count", "concentration": "positive", "seed": "seed"},
        ),
        Spec(
            "synthetic.sample_labels",
            SY.sample_labels,
            {"probs": "probs", "seed": "seed", "size": "count"},
            skip=(("probs", "ndim_1"), ("size", "zero"), ("size", "none")),
        ),
        Spec("synthetic.scramble_non_top", SY.scramble_non_top, {"probs": "probs", "seed": "seed"}),
        Spec(
            "synthetic.credal_scenario",
            SY.credal_scenario,
            {
                "scenario": choice("S2"),
                "n_datasets": "count",
                "n_instances": "count",
                "n_members": "count",
                "n_classes": "count",
                "u": "positive",
                "weight_prior": choice("uniform"),
                "segment_start": choice("mean"),
                "boundary_method": choice("lp"),
                "seed": "seed",
            },
        ),
        # data
        Spec(
            "data.train_val_test_split",
            D.train_val_test_split,
            {"n": "count", "val_fraction": "fraction", "test_fraction": "fraction", "seed": "seed"},
            fixed={"n": 10},
            skip=(("n", "zero"),),
        ),
        Spec(
            "data.sample_label_hist", D.sample_label_hist, {"true_probs": "probs", "n_labels": "count", "seed": "seed"}
        ),
        Spec(
            "data.variable_label_counts",
            D.variable_label_counts,
            {"n": "count", "seed": "seed"},
            fixed={"mean": 2.0},
            skip=(("n", "zero"),),
        ),
        Spec(
            "data.mix_images",
            _mix_images,
            {"labels": "labels", "n_labels": "count", "seed": "seed", "mix_fraction": "fraction"},
            fixed={"n_classes": Dyn(lambda w: w.k)},
            lead="labels",
            skip=(("mix_fraction", "one"),),
        ),
        # nn
        Spec("nn.seed_everything", NN.seed_everything, {"seed": "seed"}),
    ]
    return s


#: Roles of arguments by name, for callables classified by their signature alone.
NAME_ROLES = {
    "probs": "probs",
    "labels": "labels",
    "targets": "labels",
    "ens_probs": "ens_probs",
    "logits": "logits",
    "label_hist": "label_hist",
    "n_bins": "n_bins",
    "epsilon": "epsilon",
    "bandwidth": "positive",
    "seed": "seed",
    "alpha": "alpha",
    "n_bootstrap": "count",
    "n_resamples": "count",
    "n_samples": "count",
    "n_draws": "count",
    "max_instances": "count",
    "tol": "positive",
    "weights": "weights",
    "strategy": choice("uniform"),
}


def _auto_spec(qualname: str, fn) -> Spec | None:
    """A spec from the signature alone: every required argument must have a role in NAME_ROLES; optional
    arguments with a role are tested too, and string options become choices."""
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return None
    roles = {}
    for a, p in params.items():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        if a in NAME_ROLES:
            roles[a] = NAME_ROLES[a]
        elif isinstance(p.default, str):
            roles[a] = choice(p.default)
        elif p.default is p.empty:
            return None
    lead = next((a for a in roles if roles[a] in ("probs", "ens_probs", "logits", "label_hist")), None)
    min_n = 2 if "bandwidth" in roles else 1
    return Spec(qualname, fn, roles, lead=lead, min_n=min_n, finite=False)


_MANUAL = {s.name: s for s in _specs()}


def _all_specs() -> dict[str, Spec]:
    specs = dict(_MANUAL)
    for sub, mod in SUBPACKAGES.items():
        for n in mod.__all__:
            q = f"{sub}.{n}"
            obj = getattr(mod, n, None)
            if q in specs or q in EXCLUDED or not inspect.isfunction(obj):
                continue
            spec = _auto_spec(q, obj)
            if spec is not None:
                specs[q] = spec
    return specs


#: Public names that are not fed malformed inputs here, with the reason.
EXCLUDED = {
    # documented as unvalidated inner-loop helpers ("no validation"), for already-checked arrays
    **dict.fromkeys(
        ["calibration.fit_with_early_stopping", "calibration.dirichlet_multinomial_nll_torch"],
        "unvalidated helper for checked arrays",
    ),
    "metrics.disagreement_statistic": "takes any tuple of hashable labels",
    "stats.as_measure": "takes any callable; its checks are those of calibration_measure",
    "calibration.select_calibrator": "a grid of fits (seconds); its inputs are those of the calibrators' fit",
    "calibration.Calibrator": "abstract base (TemperatureScaling, VectorScaling, MatrixScaling are covered)",
    # need a trained network or image files
    **dict.fromkeys(
        [
            "calibration.extract_features",
            "calibration.fit_alpha_calibration",
            "calibration.mc_dropout_samples",
            "calibration.tta_samples",
            "calibration.RandomAugment",
        ],
        "needs a torch model and images",
    ),
    **dict.fromkeys(
        [
            "data.read_idx",
            "data.write_idx",
            "data.load_cifar",
            "data.load_digits",
            "data.load_emnist",
            "data.load_fashion_mnist",
            "data.load_kuzushiji49",
            "data.load_mnist",
            "data.load_dataset",
            "data.split_dataset",
            "data.make_mix_dataset",
        ],
        "reads dataset files",
    ),
    "synthetic.widmann_test_errors": "its first argument is a test callable; inputs are checked by the test it runs",
    "data.load_array": "reads prediction files (tests/data/test_prediction_files.py feeds it malformed ones)",
}


#: Cases that fail because of code outside this issue's validation files, with the fix each needs
#: (``credalbook._validation`` has the helpers: check_seed/as_rng, check_n_bins, check_positive_float,
#: check_real_dtype). Fixing one turns its strict xfail into a failure: then delete its line here.
_SEEDS = tuple(SEED)
_NUMBER = ("zero", "negative", "nan", "inf", "bool", "string", "complex", "none")
KNOWN_GROUPS: list = []
KNOWN: dict[tuple[str, str, str], str] = {
    (name, arg, bad): reason for reason, cases in KNOWN_GROUPS for name, arg, bads in cases for bad in bads
}


def _public_callables() -> set[str]:
    out = set()
    for sub, mod in SUBPACKAGES.items():
        for n in mod.__all__:
            obj = getattr(mod, n, None)
            if obj is None or not callable(obj):
                continue
            if inspect.isclass(obj) and (dataclasses.is_dataclass(obj) or issubclass(obj, BaseException)):
                continue  # results and errors, not entry points
            out.add(f"{sub}.{n}")
    return out


EXCLUDED.update(
    {
        n: "networks, training loops and devices (nn: only seed_everything is cheap)"
        for n in _public_callables()
        if n.startswith("nn.") and n not in _MANUAL
    }
)
SPECS = _all_specs()
SPECS["metrics.bootstrap_ci"] = Spec(
    "metrics.bootstrap_ci",
    M.bootstrap_ci,
    {**_PL, "ci": "fraction", "n_resamples": "count", "seed": "seed"},
    fixed={"metric": M.accuracy},
)
SPECS["stats.skce_test"].min_n = 4  # the linear estimator's normal null needs two pairs
SPECS["metrics.consistency_bands"].skip += (("probs", "ndim_1"),)  # (N,) probs: binary scores P(y = 1)


def test_every_public_callable_is_classified():
    covered = {n.rsplit(".", 1)[0] if n.endswith(".fit") else n for n in SPECS}
    missing = sorted(_public_callables() - covered - set(EXCLUDED))
    assert not missing, f"public callables without a spec in SPECS or a reason in EXCLUDED: {missing}"
    stale = sorted(n for n in EXCLUDED if n not in _public_callables())
    assert not stale, f"EXCLUDED names no public callable: {stale}"


# ---------------------------------------------------------------------------------------------- tests
def _malformations(spec: Spec, arg: str) -> list[str]:
    out = []
    for bad in spec.role(arg).malformed:
        if bad in ("wrong_length", "wrong_classes") and arg == spec.lead:
            continue  # the argument that sets N (or K) cannot have the wrong one
        if (arg, bad) not in spec.skip:
            out.append(bad)
    return out


def _known(name, arg, bad) -> str | None:
    return KNOWN.get((name, arg, bad)) or KNOWN.get((name, arg, "*"))


def _names_argument(message: str, arg: str) -> bool:
    return re.search(rf"(?<![A-Za-z0-9_]){re.escape(arg)}(?![A-Za-z0-9])", message) is not None


@contextlib.contextmanager
def _memory_cap(extra_bytes: int = 2 * 2**30):
    """Limit the address space to its current size plus ``extra_bytes`` (Linux), so that a malformed size
    that slips through (``n_bins=10**9``) raises MemoryError here instead of exhausting the machine."""
    try:
        import resource

        with open("/proc/self/statm") as fh:
            used = int(fh.read().split()[0]) * resource.getpagesize()
        old = resource.getrlimit(resource.RLIMIT_AS)
        resource.setrlimit(resource.RLIMIT_AS, (used + extra_bytes, old[1]))
    except (ImportError, OSError, ValueError):
        yield
        return
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, old)


def _malformed_failure(spec: Spec, arg: str, bad: str, w: World) -> str | None:
    """None if ``spec`` rejects ``arg`` = malformation ``bad`` with a ValueError/TypeError naming ``arg``."""
    kwargs = spec.valid_kwargs(w)
    kwargs[arg] = spec.role(arg).malformed[bad](w, kwargs[arg], w.rng)
    with warnings.catch_warnings(), _memory_cap():
        warnings.simplefilter("ignore")
        try:
            spec.fn(**kwargs)
        except (ValueError, TypeError) as err:
            if _names_argument(str(err), arg):
                return None
            return f"{arg}={bad}: {type(err).__name__} does not name {arg!r}: {err}"
        except Exception as err:  # noqa: BLE001 - any other error is a finding
            return f"{arg}={bad}: {type(err).__name__}: {err}"
    return f"{arg}={bad}: accepted silently"


def _grouped_cases():
    for spec in SPECS.values():
        for arg in spec.roles:
            if [b for b in _malformations(spec, arg) if not _known(spec.name, arg, b)]:
                yield pytest.param(spec.name, arg, id=f"{spec.name}-{arg}")


def _known_cases():
    for spec in SPECS.values():
        for arg in spec.roles:
            for bad in _malformations(spec, arg):
                reason = _known(spec.name, arg, bad)
                if reason:
                    yield pytest.param(
                        spec.name,
                        arg,
                        bad,
                        id=f"{spec.name}-{arg}-{bad}",
                        marks=pytest.mark.xfail(strict=True, reason=reason),
                    )


@pytest.mark.parametrize("name, arg", list(_grouped_cases()))
@MALFORMED_SETTINGS
@given(data=st.data())
def test_malformed_input_is_named(name, arg, data):
    """Each malformation of ``arg`` (one call each) raises a ValueError/TypeError that names ``arg``."""
    spec = SPECS[name]
    w = data.draw(worlds(spec.min_n, spec.max_n))
    failures = [
        f
        for bad in _malformations(spec, arg)
        if not _known(name, arg, bad)
        for f in [_malformed_failure(spec, arg, bad, w)]
        if f
    ]
    assert not failures, f"{name}:\n" + "\n".join(failures)


@pytest.mark.parametrize(
    "name, arg, bad",
    list(_known_cases()) or [pytest.param("", "", "", marks=pytest.mark.skip(reason="no known failures"))],
)
@settings(max_examples=1, **COMMON)
@given(data=st.data())
def test_known_failures(name, arg, bad, data):
    """The cases of :data:`KNOWN`, one test each (xfail, strict: fixing one fails its test until KNOWN drops it)."""
    spec = SPECS[name]
    w = data.draw(worlds(spec.min_n, spec.max_n))
    failure = _malformed_failure(spec, arg, bad, w)
    assert failure is None, failure


def count_malformed_inputs() -> tuple[int, int, int]:
    """(callables, (callable, argument) pairs, distinct malformed inputs) fed by the tests above."""
    pairs = [(s.name, a) for s in SPECS.values() for a in s.roles]
    inputs = sum(len(_malformations(SPECS[n], a)) for n, a in pairs)
    return len(SPECS), len(pairs), inputs


def _all_finite(x) -> bool:
    if isinstance(x, torch.Tensor):
        return bool(torch.isfinite(x).all())
    if isinstance(x, (float, int, np.number)):
        return math.isfinite(float(x))
    if isinstance(x, np.ndarray) and x.dtype.kind in "biuf":
        return bool(np.isfinite(x).all())
    if isinstance(x, (tuple, list)):
        return all(_all_finite(v) for v in x)
    return True  # objects (results, kernels, calibrators): their fields are checked elsewhere


def _edge_cases(slow: bool = False):
    for spec in SPECS.values():
        if not spec.edge or spec.slow != slow:
            continue
        marks = []
        reason = KNOWN.get((spec.name, "valid", "*"))
        if reason:
            marks.append(pytest.mark.xfail(strict=True, reason=reason))
        yield pytest.param(spec.name, id=spec.name, marks=marks)


@pytest.mark.parametrize("name", list(_edge_cases()))
@VALID_SETTINGS
@given(data=st.data())
def test_valid_edge_cases(name, data):
    _check_valid(SPECS[name], data.draw(worlds(SPECS[name].min_n, max(SPECS[name].min_n, 3))))


@pytest.mark.parametrize("name", list(_edge_cases(slow=True)))
@settings(max_examples=1, **COMMON)
@given(data=st.data())
def test_valid_edge_cases_slow(name, data):
    _check_valid(SPECS[name], data.draw(worlds(SPECS[name].min_n, max(SPECS[name].min_n, 2), max_m=2, max_k=3)))


def _check_valid(spec: Spec, w: World):
    name = spec.name
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            out = spec.fn(**spec.valid_kwargs(w))
        except ValueError as err:
            if spec.precondition and re.search(spec.precondition, str(err)):
                return  # a documented requirement on the data (e.g. two classes present), not a bug
            raise
    if spec.finite:
        assert _all_finite(out), f"{name} gave a non-finite answer on valid input: {out!r}"


# ---------------------------------------------------------------------------------------------- closed forms
def _one_hot(labels, k):
    return np.eye(k)[labels]


class TestClosedForms:
    """Valid edge cases with known answers."""

    @settings(max_examples=15, **COMMON)
    @given(n=st.integers(1, 8), k=st.integers(2, 5), seed=st.integers(0, 2**16))
    def test_correct_one_hot_predictions(self, n, k, seed):
        """Confidence exactly 1 and always right: every calibration error is 0 (no phantom bin at 1.0)."""
        y = np.random.default_rng(seed).integers(k, size=n)
        p = _one_hot(y, k)
        assert M.accuracy(p, y) == 1.0 and M.brier_score(p, y) == 0.0
        assert M.nll(p, y) == pytest.approx(0.0, abs=1e-11)
        for n_bins in (1, 2, 10, 15):
            assert M.ece_confidence(p, y, n_bins=n_bins) == 0.0
            assert M.ece_classwise(p, y, n_bins=n_bins) == 0.0
            curve = M.reliability_curve(p, y, n_bins=n_bins)
            assert curve.counts.sum() == n and curve.counts[-1] == n  # confidence 1.0 in the last bin
        assert M.ece(p, y) == 0.0
        assert M.expected_squared_loss(p, 3 * p.astype(int)) == 0.0 and M.epistemic_loss(p, 3 * p.astype(int)) == 0.0

    @settings(max_examples=15, **COMMON)
    @given(n=st.integers(1, 8), seed=st.integers(0, 2**16))
    def test_wrong_one_hot_predictions(self, n, seed):
        """K = 2, confidence 1 and always wrong: top-label ECE 1, accuracy 0, Brier score 2."""
        y = np.random.default_rng(seed).integers(2, size=n)
        p = _one_hot(1 - y, 2)
        assert M.accuracy(p, y) == 0.0 and M.brier_score(p, y) == 2.0
        assert M.ece_confidence(p, y) == 1.0
        assert M.ece_classwise(p, y) == 1.0  # both classes: predicted 0/1, observed 1/0

    @settings(max_examples=15, **COMMON)
    @given(n=st.integers(1, 8), k=st.integers(2, 5), seed=st.integers(0, 2**16))
    def test_uniform_rows(self, n, k, seed):
        """All rows 1/K (the arg-max tie goes to class 0): ECE = |mean(y == 0) − 1/K|."""
        y = np.random.default_rng(seed).integers(k, size=n)
        p = np.full((n, k), 1.0 / k)
        assert M.ece_confidence(p, y) == pytest.approx(abs(np.mean(y == 0) - 1.0 / k), abs=1e-12)
        assert M.brier_score(p, y) == pytest.approx(1 - 1.0 / k)

    @settings(max_examples=15, **COMMON)
    @given(k=st.integers(2, 5), seed=st.integers(0, 2**16))
    def test_single_instance(self, k, seed):
        """N = 1: the top-label ECE is |1[y = ŷ] − max p|."""
        rng = np.random.default_rng(seed)
        p = rng.dirichlet(np.ones(k), size=1)
        y = rng.integers(k, size=1)
        assert M.ece_confidence(p, y) == pytest.approx(abs(float(p.argmax() == y[0]) - p.max()), abs=1e-12)

    def test_confidence_zero_entries(self):
        """Class probabilities exactly 0 fall in the first bin (no crash, no index −1)."""
        p = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
        y = np.array([0, 1])
        assert M.ece_classwise(p, y, n_bins=5) == 0.0
        curve = M.reliability_curve(p, y, n_bins=5, kind="classwise", class_index=2)
        assert curve.counts[0] == 2 and curve.counts.sum() == 2

    def test_binary_entropy(self):
        np.testing.assert_array_equal(M.binary_entropy([0.0, 1.0]), [0.0, 0.0])
        assert M.binary_entropy(0.5) == pytest.approx(math.log(2))
        np.testing.assert_allclose(
            M.binary_entropy(np.float16([0.25])), [-(0.25 * math.log(0.25) + 0.75 * math.log(0.75))]
        )

    @settings(max_examples=10, **COMMON)
    @given(n=st.integers(1, 5), k=st.integers(2, 4), seed=st.integers(0, 2**16))
    def test_one_member(self, n, k, seed):
        """M = 1: the credal set is the member itself."""
        rng = np.random.default_rng(seed)
        ens = rng.dirichlet(np.ones(k), size=(n, 1))
        np.testing.assert_allclose(CR.convex_combination(ens, [1.0]), ens[:, 0])
        np.testing.assert_allclose(C.average_members(ens), ens[:, 0])
        assert CR.in_credal_set(ens, ens[:, 0]).all()
        np.testing.assert_allclose(CR.hull_distance(ens, ens[:, 0]), 0.0, atol=1e-9)
        assert CR.sample_weights(1, size=3, seed=0).tolist() == [[1.0]] * 3

    def test_float16_predictions(self):
        """Half-precision softmax outputs are accepted and give the float64 answer of the same values."""
        logits = torch.randn(200, 10, generator=torch.Generator().manual_seed(0)) * 2
        y = torch.randint(0, 10, (200,), generator=torch.Generator().manual_seed(1))
        p16 = torch.softmax(logits, dim=1).half()
        p64 = p16.double().numpy()
        assert np.abs(p64.sum(1) - 1).max() > 1e-4  # beyond the float64 tolerance, within float16's
        p64 /= p64.sum(1, keepdims=True)
        assert M.ece_confidence(p16, y) == pytest.approx(M.ece_confidence(p64, y.numpy()), abs=2e-3)
        assert M.accuracy(p16, y) == M.accuracy(p64, y.numpy())
        assert M.nll(p16, y) == pytest.approx(M.nll(p64, y.numpy()), rel=1e-2)
