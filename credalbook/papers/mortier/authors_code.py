r"""The authors' synthetic Type II experiment and their test, transcribed from their code, to run beside the book's.

Sources, transcribed function by function (MIT licence, © 2023 Thomas Mortier; BSD-3 licence, © Miquel
Perello-Nieto and the PyCalib contributors):

* tfmortie/calibration@686d453, ``calibration/src/test/final_experiments_alpha_fast.py``: ``get_ens_alpha``
  (l. 31-34), ``isCalibrated`` (l. 36-44), ``getBoundary`` (l. 46-58) and ``_simulation_ha`` (l. 91-135), which draws
  the datasets of S2 (``random=False``) and S3 (``random=True``) as ``main_final_t1t2`` calls it (``l=None``);
* the same repository, ``calibration/src/main/py/caltest.py``: ``sample_m`` (l. 65-71), ``sample_l`` (l. 85-92),
  ``confece_obj`` and ``classece_obj`` (l. 163-183), ``confece`` and ``classece`` (l. 330-364) and ``npbetest_alpha``
  (l. 554-605) with ``optim="cobyla"`` and ``l_prior=1``, as the experiment's ``NPBE_CONFECE5`` … ``NPBE_CLASSECE10``
  run it (D = 100);
* their ECE estimators, ``pycalib.metrics.conf_ECE`` and ``classwise_ECE`` (``caltest.py`` l. 8), as PyPI's
  ``pycalib`` 0.1.0.dev0 computes them (the release of 2021-08-20, current when the experiments ran in May 2022):
  ``conf_ECE`` bins the confidences into :math:`(b - 1/B, b]` for :math:`b = 1/B, 2/B, \dots` (``np.arange``),
  ``binary_ECE`` by ``np.digitize`` on ``np.linspace(0, 1 + 1e-8, B + 1)``, ``classwise_ECE`` the mean over classes.

What the released code does that the book's emulation of it does not (:func:`credalbook.synthetic.credal_scenario`
with ``segment_start="centre"``, ``outside_start="end"``; the instances permuted): ``_simulation_ha`` keeps one
variable ``l`` for the whole call. The first instance overwrites it with its ground truth
:math:`l\,\mathbf e_c + (1 - l)\,\mathbf p_b`; every later instance computes ``l*yc + (1-l)*yb`` from the previous
instance's vector. Where :math:`\mathbf p_b` is the corner (:math:`\mathbf p_e` outside the hull, ``getBoundary``
returns its last grid point) this gives the corner whatever ``l`` was; where :math:`\mathbf p_e` lies in the hull (as
the LP decides it) the truth is the boundary point with the previous instance's corner class set to 0 or 1, which
SciPy's ``multinomial`` completes through the last class (sum below 1) or rejects (sum above 1, then ``argmax``).
:func:`authors_h1_datasets` counts those instances.

Differences from running their files, each stated where it is used: one ``numpy.random.RandomState`` is passed
instead of NumPy's and Python's global generators (the same distributions; ``random.sample(P.tolist(), N)``, the
instances permuted, becomes ``RandomState.permutation``); SciPy here is 1.16 or later, whose ``minimize(method=
"COBYLA")`` runs PRIMA's reimplementation of Powell's COBYLA and whose ``linprog`` defaults to HiGHS (their Python
3.7 SciPy, 1.7 at most, ran Powell's Fortran COBYLA and the interior-point method); the datasets of one call of
:func:`authors_code_type2` are one call of ``_simulation_ha`` (the parts that split a study start ``l`` afresh).
"""

from __future__ import annotations

import time
import warnings

import numpy as np
from scipy.optimize import linprog, minimize
from scipy.stats import dirichlet, multinomial

from credalbook._validation import check_choice, check_positive_float, check_positive_int

__all__ = [
    "AUTHORS_ECE_TESTS",
    "authors_code_type2",
    "authors_h1_datasets",
    "authors_npbe_test",
    "merge_released",
    "pycalib_classwise_ece",
    "pycalib_conf_ece",
]

#: The four ECE tests of the experiment (``NPBE_CONFECE5`` … ``NPBE_CLASSECE10``): the book's name → (estimator, B).
AUTHORS_ECE_TESTS = {
    "ECE_conf (B=5)": ("conf", 5),
    "ECE_conf (B=10)": ("conf", 10),
    "ECE_cwise (B=5)": ("cwise", 5),
    "ECE_cwise (B=10)": ("cwise", 10),
}


def pycalib_conf_ece(probs, labels, n_bins: int) -> float:
    """``pycalib.metrics.conf_ECE(labels, probs, n_bins)`` of pycalib 0.1.0.dev0 (``ECE`` with ``ece_full=False``).

    The confidences fall into the bins :math:`(b - 1/B, b]` for :math:`b` in ``np.arange(1/B, 1 + 1/B, 1/B)``, the
    first closed at 0; a bin's accuracy counts the instances whose ``argmax`` is the label.

    >>> pycalib_conf_ece(np.array([[0.9, 0.1], [0.1, 0.9]]), np.array([0, 1]), 2)  # pycalib's doctest: 0.1
    0.09999999999999998
    """
    probs = np.asarray(probs, dtype=float)
    labels = np.asarray(labels)
    preds = np.argmax(probs, axis=1)
    confs = np.max(probs, axis=1)
    bin_size = 1 / n_bins
    n = len(confs)
    ece = 0.0
    for upper in np.arange(bin_size, 1 + bin_size, bin_size):
        lower = upper - bin_size
        sel = ((confs > lower) | (lower == 0)) & (confs <= upper)
        if sel.any():
            len_bin = int(sel.sum())
            acc = float(np.sum(preds[sel] == labels[sel])) / len_bin
            ece += abs(acc - float(np.sum(confs[sel])) / len_bin) * len_bin / n
    return float(ece)


def pycalib_classwise_ece(probs, labels, n_bins: int) -> float:
    """``pycalib.metrics.classwise_ECE(np.eye(K)[labels], probs, 1, n_bins)`` of pycalib 0.1.0.dev0: the mean over the
    classes of ``binary_ECE``, which bins by ``np.digitize(p, np.linspace(0, 1 + 1e-8, B + 1)) - 1``.

    >>> y = np.array([0, 0, 0, 1, 1, 1]); p1 = np.array([.9, .8, .7, .3, .2, .1])
    >>> round(pycalib_classwise_ece(np.c_[p1, 1 - p1], y, 2), 8)  # pycalib's doctest: 0.2
    0.2
    """
    probs = np.asarray(probs, dtype=float)
    onehot = np.eye(probs.shape[1])[np.asarray(labels)]
    edges = np.linspace(0, 1 + 1e-8, n_bins + 1)
    per_class = []
    for c in range(probs.shape[1]):
        p, y = probs[:, c], onehot[:, c]
        idx = np.digitize(p, edges) - 1
        ece = 0.0
        for i in np.unique(idx):
            sel = idx == i
            ece += abs(np.mean(p[sel]) - np.mean(y[sel])) * np.sum(sel) / len(p)
        per_class.append(ece)
    return float(np.mean(per_class))


def _estimator(kind: str):
    return pycalib_conf_ece if kind == "conf" else pycalib_classwise_ece


def _sample_m(p, rs) -> int:
    """``sample_m``: a label from the categorical ``p``; ``argmax(p)`` where SciPy rejects ``p``."""
    try:
        with warnings.catch_warnings():  # rows off 1 by rounding: SciPy completes them through the last class
            warnings.simplefilter("ignore", FutureWarning)
            return int(np.argmax(multinomial(1, p).rvs(size=1, random_state=rs)[0, :]))
    except ValueError:
        return int(np.argmax(p))


def _is_calibrated(members, p) -> bool:
    """``isCalibrated``: is ``p`` a convex combination of the rows of ``members`` (``linprog``'s feasibility)?"""
    m = len(members)
    a = np.r_[members.T, np.ones((1, m))]
    b = np.r_[p, np.ones(1)]
    return bool(linprog(np.zeros(m), A_eq=a, b_eq=b).success)


def _get_boundary(members, mu, yc) -> tuple[np.ndarray, bool]:
    """``getBoundary`` (and whether ``mu`` itself was found in the hull): the last grid point of ``mu`` → ``yc`` in
    the hull, ``L[-1] = yc`` when the first check fails."""
    grid = np.stack([lam * yc + (1 - lam) * mu for lam in np.linspace(0, 1, 100)])
    bi = 0
    inside = True
    for i in range(len(grid)):
        if not _is_calibrated(members, grid[i, :]):
            bi = i - 1
            inside = i > 0
            break
    return grid[bi, :], inside


def authors_h1_datasets(
    scenario: str = "S2",
    *,
    n_datasets: int = 1,
    n_instances: int = 100,
    n_members: int = 10,
    n_classes: int = 10,
    u: float = 0.01,
    rs: np.random.RandomState,
) -> tuple[list, dict]:
    """The datasets of one ``_simulation_ha`` call: S2 (the corner of :math:`\\mathbf p_e`'s largest class) or S3 (a
    random corner), with the released code's ``l`` carried from instance to instance (module docstring).

    Returns
    -------
    datasets : list of (ndarray (N, M, K), ndarray (N,))
    counts : dict
        ``"instances"``; ``"inside"``: instances whose :math:`\\mathbf p_e` the LP finds in the hull (their truth is
        not the corner); ``"not_a_distribution"``: instances whose truth did not sum to 1 (SciPy completed it
        through the last class or ``argmax`` was taken).

    Examples
    --------
    >>> data, counts = authors_h1_datasets(n_datasets=2, n_instances=5, n_members=3, n_classes=3, u=0.5,
    ...                                    rs=np.random.RandomState(0))
    >>> [d[0].shape for d in data], counts["instances"]
    ([(5, 3, 3), (5, 3, 3)], 10)
    """
    check_choice(scenario, "scenario", ("S2", "S3"))
    if not isinstance(rs, np.random.RandomState):
        raise TypeError(f"rs must be a numpy.random.RandomState; got {type(rs).__name__}")
    k = check_positive_int(n_classes, "n_classes", minimum=2)
    m = check_positive_int(n_members, "n_members")
    u = check_positive_float(u, "u")
    counts = {"instances": 0, "inside": 0, "not_a_distribution": 0}
    out = []
    l_var = None  # `l` of _simulation_ha: None at the call, a vector after the first instance
    for _ in range(check_positive_int(n_datasets, "n_datasets")):
        ps, ys = [], []
        for _ in range(check_positive_int(n_instances, "n_instances")):
            a = k * rs.dirichlet([1 / k] * k, 1)[0, :] / u  # get_ens_alpha(K, u, [1/K]*K)
            while np.any(a <= 0):
                a = k * rs.dirichlet([1 / k] * k, 1)[0, :] / u
            mu = (a * u) / k
            pm = mu.reshape(1, -1) if m == 1 else rs.dirichlet(a, m)
            c = int(np.argmax(mu)) if scenario == "S2" else int(rs.randint(0, k, 1)[0])
            yc = np.eye(k)[c, :]
            if m == 1:
                yb, inside = mu, True
            else:
                yb, inside = _get_boundary(pm, mu, yc)
            if l_var is None:
                l_var = rs.rand(1)[0]
            l_var = l_var * yc + (1 - l_var) * yb
            counts["instances"] += 1
            counts["inside"] += int(inside)
            counts["not_a_distribution"] += int(abs(float(np.sum(l_var)) - 1) > 1e-12)
            ps.append(pm)
            ys.append(_sample_m(l_var, rs))
        out.append((np.stack(ps), np.array(ys)))
    return out, counts


def authors_npbe_test(
    ens_probs, labels, alphas, *, kind: str, n_bins: int, rs: np.random.RandomState, n_resamples: int = 100
) -> tuple[np.ndarray, float, np.ndarray]:
    """``npbetest_alpha`` with ``optim="cobyla"``, ``l_prior=1`` and the pycalib ECE ``kind`` (``"conf"``,
    ``"cwise"``) with ``n_bins`` bins: the instances permuted, Dir(1) weights and labels drawn per null replicate,
    :math:`t` the ECE at SciPy's COBYLA result (started at uniform weights; Σλ = 1 and 0 ≤ λ ≤ 1 as inequality
    constraints), rejected where :math:`|t| > q` with ``np.quantile``'s linear interpolation.

    Returns
    -------
    decisions : ndarray (len(alphas),) of int
        1 where H0 is rejected.
    t : float
    weights : ndarray (M,)
        COBYLA's result as it is (not projected on the simplex).
    """
    check_choice(kind, "kind", ("conf", "cwise"))
    est = _estimator(kind)
    p = np.asarray(ens_probs, dtype=float)
    y = np.asarray(labels)
    n, m, _ = p.shape
    stats = np.zeros(check_positive_int(n_resamples, "n_resamples"))
    for b in range(n_resamples):
        p_b = p[rs.permutation(n)]  # random.sample(P.tolist(), N): without replacement
        lam = dirichlet([1] * m).rvs(size=1, random_state=rs)[0, :]
        pbar_b = np.matmul(np.swapaxes(p_b, 1, 2), lam)
        y_b = np.array([_sample_m(row, rs) for row in pbar_b])
        stats[b] = est(pbar_b, y_b, n_bins)
    q_alpha = np.quantile(stats, 1 - np.asarray(alphas, dtype=float))

    def objective(x):
        return est(np.matmul(np.swapaxes(p, 1, 2), x), y, n_bins)

    cons = [{"type": "ineq", "fun": lambda x: np.sum(x) - 1.0}, {"type": "ineq", "fun": lambda x: -(np.sum(x) - 1.0)}]
    for i in range(m):
        cons.append({"type": "ineq", "fun": lambda x, i=i: x[i] - 0})
        cons.append({"type": "ineq", "fun": lambda x, i=i: 1 - x[i]})
    weights = np.array(minimize(objective, np.full(m, 1 / m), method="COBYLA", constraints=cons).x)
    t = objective(weights)
    return (np.abs(t) > q_alpha).astype(int), float(t), weights


def authors_code_type2(
    scenario: str = "S2",
    *,
    n_datasets: int,
    tests=tuple(AUTHORS_ECE_TESTS),
    alphas=(0.05,),
    n_instances: int = 100,
    n_members: int = 10,
    n_classes: int = 10,
    u: float = 0.01,
    n_resamples: int = 100,
    seed: int = 0,
    chunk: int = 0,
) -> dict:
    """The Type II errors of the authors' tests on the authors' S2 or S3 datasets, both as their code computes them.

    Parameters
    ----------
    scenario : {"S2", "S3"}
    n_datasets : int
        R, one ``_simulation_ha`` call.
    tests : sequence of str
        Keys of ``AUTHORS_ECE_TESTS``.
    alphas : sequence of float
    n_instances, n_members, n_classes, u, n_resamples
        N, M, K, u and D (Fig. 1: 100, 10, 10, 0.01, 100).
    seed, chunk : int
        The ``RandomState`` is seeded from ``(seed, chunk)``: chunks of one study are independent.

    Returns
    -------
    dict
        ``"R"``; ``"counts"``: test → non-rejections per level (Type II = counts / R); ``"alphas"``; ``"t"``: test →
        the R statistics; ``"instances"``, ``"inside"``, ``"not_a_distribution"`` (``authors_h1_datasets``);
        ``"config"``; ``"seconds"``.

    Examples
    --------
    >>> r = authors_code_type2(n_datasets=2, tests=["ECE_conf (B=5)"], n_instances=20, n_members=3,
    ...                        n_classes=3, u=0.5, n_resamples=10)
    >>> r["R"], len(r["counts"]["ECE_conf (B=5)"])
    (2, 1)
    """
    tests = list(tests)
    for name in tests:
        check_choice(name, "tests", tuple(AUTHORS_ECE_TESTS))
    if not tests:
        raise ValueError("tests must name at least one test")
    alphas = [float(a) for a in alphas]
    if not alphas or not all(0 < a < 1 for a in alphas):
        raise ValueError(f"alphas must be levels in (0, 1); got {alphas!r}")
    start = time.perf_counter()
    state = np.random.SeedSequence(
        [check_positive_int(seed, "seed", minimum=0), check_positive_int(chunk, "chunk", minimum=0)]
    )
    rs = np.random.RandomState(state.generate_state(1)[0])
    data, counts = authors_h1_datasets(
        scenario, n_datasets=n_datasets, n_instances=n_instances, n_members=n_members, n_classes=n_classes, u=u, rs=rs
    )
    kept = {name: np.zeros(len(alphas), dtype=int) for name in tests}
    stats = {name: [] for name in tests}
    for p, y in data:
        for name in tests:  # the order of the experiment's dict of tests
            kind, n_bins = AUTHORS_ECE_TESTS[name]
            decisions, t, _ = authors_npbe_test(p, y, alphas, kind=kind, n_bins=n_bins, rs=rs, n_resamples=n_resamples)
            kept[name] += 1 - decisions
            stats[name].append(t)
    return {
        "scenario": scenario,
        "R": len(data),
        "alphas": alphas,
        "counts": {name: v.tolist() for name, v in kept.items()},
        "t": {name: np.asarray(v) for name, v in stats.items()},
        **counts,
        "config": dict(
            n_instances=n_instances,
            n_members=n_members,
            n_classes=n_classes,
            u=u,
            n_resamples=n_resamples,
            seed=seed,
            chunk=chunk,
        ),  # fmt: skip
        "seconds": time.perf_counter() - start,
    }


def merge_released(values) -> dict:
    """One study from the chunks of :func:`authors_code_type2` (their values, one scenario and the same levels):
    datasets, non-rejections and instance counts summed.

    >>> a = {"scenario": "S2", "R": 2, "alphas": [0.05], "counts": {"t": [1]}, "instances": 4, "inside": 1,
    ...      "not_a_distribution": 1}
    >>> merge_released([a, a])["counts"], merge_released([a, a])["R"]
    ({'t': [2]}, 4)
    """
    values = list(values)
    if not values:
        raise ValueError("values must hold at least one chunk")
    first = values[0]
    for v in values[1:]:
        if v["scenario"] != first["scenario"] or list(v["alphas"]) != list(first["alphas"]):
            raise ValueError("values must be chunks of one study: the same scenario and levels")
        if set(v["counts"]) != set(first["counts"]):
            raise ValueError("values must be chunks of one study: the same tests")
    return {
        "scenario": first["scenario"],
        "alphas": list(first["alphas"]),
        "R": sum(int(v["R"]) for v in values),
        "counts": {name: np.sum([v["counts"][name] for v in values], axis=0).tolist() for name in first["counts"]},
        **{key: sum(int(v[key]) for v in values) for key in ("instances", "inside", "not_a_distribution")},
    }
