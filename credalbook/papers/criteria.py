r"""How a "Paper vs. this book" row is judged: criteria that can fail, and the five verdicts.

A row of a chapter's comparison (:class:`~credalbook.papers.report.Comparison`) carries a
:class:`Judgement`: the criterion in words and numbers, its tolerance and where the tolerance comes
from (the replicates' standard error, the paper's ±2σ, a binomial band and its R), the replicate
count, and one verdict of :data:`VERDICTS`:

* ``"agrees"`` — the criterion is met, with this run's uncertainty inside it;
* ``"differs — cause shown"`` — the criterion fails, and a section or cell of the chapter shows why;
* ``"differs — cause unknown"`` — the criterion fails, and we do not know why;
* ``"inconclusive"`` — this run's uncertainty is wider than the difference the row judges;
* ``"not run here"`` — the paper's setting needs data or hardware the book cannot have (the code
  path exists and is tested on small data).

The judges below return a verdict of ``"agrees"``, ``"differs"`` or ``"inconclusive"``; the row
turns ``"differs"`` into one of the two ``differs`` verdicts by whether it names a cause.

Every judge refuses, with a ``ValueError``, a criterion that cannot fail (:class:`CannotFail`):

* an order claim ("a < b") is strict, so a tie — zeros included — never agrees;
* a closeness claim whose accepted interval covers every value the quantity can take;
* a count claim "at least ``need`` of ``n``" with ``need`` ≤ 0 or ``n`` = 0;
* a rate claim judged with a margin that covers [0, 1];
* a rate or count from no replicates.

Type I error rates are judged with Bradley's (1978) "liberal" robustness criterion: a test holds
its level α when its Type I error lies in [α/2, 3α/2] (Bradley, J. V. (1978), Robustness?, *British
Journal of Mathematical and Statistical Psychology* 31, 144–152). A rate from R replicates is
uncertain: its exact (Clopper–Pearson) 95% interval must lie inside the accepted region for
``"agrees"``, outside it for ``"differs"``, and is ``"inconclusive"`` otherwise — so a run with few
replicates cannot agree by the width of its band.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

import numpy as np

from credalbook._deprecation import renamed

__all__ = [
    "AGREES",
    "DIFFERS",
    "DIFFERS_SHOWN",
    "DIFFERS_UNKNOWN",
    "INCONCLUSIVE",
    "NOT_RUN",
    "VERDICTS",
    "CannotFail",
    "Judgement",
    "at_least",
    "close_to",
    "combine",
    "mean_se",
    "ordered",
    "rate_ci",
    "rate_claim",
    "sign_claim",
]

AGREES = "agrees"
DIFFERS_SHOWN = "differs — cause shown"
DIFFERS_UNKNOWN = "differs — cause unknown"
INCONCLUSIVE = "inconclusive"
NOT_RUN = "not run here"
#: The five verdicts of a row, in the order the count lists them.
VERDICTS = (AGREES, DIFFERS_SHOWN, DIFFERS_UNKNOWN, INCONCLUSIVE, NOT_RUN)
#: What a judge returns before the row decides whether a cause is shown.
DIFFERS = "differs"
_JUDGED = (AGREES, DIFFERS, INCONCLUSIVE)


class CannotFail(ValueError):
    """A criterion that holds whatever the data: a test of the code, not a row of the comparison."""


@dataclass(frozen=True)
class Judgement:
    """A criterion, applied: its words, its tolerance and the tolerance's source, and the verdict.

    Attributes
    ----------
    verdict : str
        ``"agrees"``, ``"differs"`` or ``"inconclusive"``.
    criterion : str
        What was checked, in words and numbers (e.g. "Type I error at α = 0.05 in [0.025, 0.075]
        (95% CI [0.010, 0.139])").
    tolerance : float or None
        The margin the criterion allows (None where it has none, e.g. a strict order of exact numbers).
    tolerance_source : str
        Where the margin comes from.
    replicates : int or None
        How many replicates the book's number rests on (None for a single computation).
    """

    verdict: str
    criterion: str
    tolerance: float | None = None
    tolerance_source: str = ""
    replicates: int | None = None

    def __post_init__(self):
        if self.verdict not in _JUDGED:
            raise ValueError(f"verdict must be one of {_JUDGED}; got {self.verdict!r}")
        if not isinstance(self.criterion, str) or not self.criterion.strip():
            raise ValueError("criterion must say in words what is checked; got an empty criterion")
        if self.tolerance is not None and not (
            isinstance(self.tolerance, numbers.Real) and math.isfinite(self.tolerance) and self.tolerance >= 0
        ):
            raise ValueError(f"tolerance must be a finite number >= 0 or None; got {self.tolerance!r}")
        if self.replicates is not None and (
            isinstance(self.replicates, bool)
            or not isinstance(self.replicates, numbers.Integral)
            or self.replicates < 1
        ):
            raise ValueError(f"replicates must be a positive int or None; got {self.replicates!r}")


def _finite(name, value) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number; got {type(value).__name__}")
    v = float(value)
    if not math.isfinite(v):
        raise ValueError(f"{name} must be finite; got {v} (a NaN cannot be judged)")
    return v


def _se(name, value) -> float:
    v = _finite(name, value)
    if v < 0:
        raise ValueError(f"{name} must be >= 0; got {v}")
    return v


def mean_se(values) -> tuple[float, float, int]:
    """Mean, standard error of the mean (``std(ddof=1)/√n``) and count of replicate values.

    >>> mean_se([1.0, 2.0, 3.0])
    (2.0, 0.5773502691896258, 3)
    """
    x = np.asarray(values, dtype=float).ravel()
    if x.size == 0 or not np.all(np.isfinite(x)):
        raise ValueError(f"values must be a non-empty array of finite numbers; got {x.size} values")
    se = float(x.std(ddof=1) / math.sqrt(x.size)) if x.size > 1 else float("nan")
    return float(x.mean()), se, int(x.size)


def ordered(
    a,
    b,
    *,
    relation: str,
    se_a=0.0,
    se_b=0.0,
    z: float = 2.0,
    names=("a", "b"),
    replicates: int | None = None,
    tolerance_source: str | None = None,
) -> Judgement:
    """Judge a strict order claim ``a < b`` (``relation="<"``) or ``a > b`` (``">"``).

    With ``d`` the claimed-positive difference (``b - a`` for "<") and ``m = z·√(se_a² + se_b²)``:
    agrees when ``d > m``, differs when ``d < -m``, inconclusive otherwise. A tie never agrees:
    with exact numbers (both standard errors 0) ``d = 0`` differs.

    Examples
    --------
    >>> ordered(0.10, 0.20, relation="<", se_a=0.01, se_b=0.02).verdict
    'agrees'
    >>> ordered(0.10, 0.12, relation="<", se_a=0.01, se_b=0.02).verdict
    'inconclusive'
    >>> ordered(0.0, 0.0, relation="<").verdict
    'differs'
    """
    if relation not in ("<", ">"):
        raise ValueError(f"relation must be '<' or '>' (a strict claim: a tie is not agreement); got {relation!r}")
    a, b = _finite("a", a), _finite("b", b)
    se_a, se_b, z = _se("se_a", se_a), _se("se_b", se_b), _se("z", z)
    d = b - a if relation == "<" else a - b
    m = z * math.hypot(se_a, se_b)
    verdict = AGREES if d > m else DIFFERS if (d < -m or (m == 0 and d == 0)) else INCONCLUSIVE
    na, nb = names
    if m > 0:
        source = tolerance_source or f"{z:g} × the combined standard error of {na} and {nb}"
        crit = f"{na} {relation} {nb} by more than {m:.3g}: {a:.4g} vs {b:.4g}"
    else:
        source = tolerance_source or "exact numbers (no sampling error)"
        crit = f"{na} {relation} {nb} strictly: {a:.4g} vs {b:.4g}"
    return Judgement(verdict, crit, m if m > 0 else None, source, replicates)


def sign_claim(
    value,
    *,
    relation: str,
    se=0.0,
    z: float = 2.0,
    name: str = "the difference",
    replicates: int | None = None,
    tolerance_source: str | None = None,
) -> Judgement:
    """Judge ``value > 0`` (``relation=">"``) or ``value < 0`` (``"<"``): :func:`ordered` against 0.

    >>> sign_claim(0.03, relation=">", se=0.01).verdict, sign_claim(0.0, relation=">").verdict
    ('agrees', 'differs')
    """
    if relation not in ("<", ">"):
        raise ValueError(f"relation must be '<' or '>'; got {relation!r}")
    other = "<" if relation == ">" else ">"
    j = ordered(
        0.0,
        value,
        relation=other,
        se_a=0.0,
        se_b=se,
        z=z,
        names=("0", name),
        replicates=replicates,
        tolerance_source=tolerance_source,
    )
    v = _finite("value", value)
    crit = f"{name} {relation} 0" + (f" by more than {j.tolerance:.3g}" if j.tolerance else " strictly") + f": {v:.4g}"
    return Judgement(j.verdict, crit, j.tolerance, j.tolerance_source, replicates)


def close_to(
    book,
    paper,
    *,
    tol,
    tolerance_source: str,
    relative: bool = False,
    bounds=None,
    name: str = "book",
    replicates: int | None = None,
) -> Judgement:
    """Judge ``|book - paper| <= tol`` (or ``<= tol·|paper|`` with ``relative=True``).

    ``bounds`` (lo, hi) are the values the quantity can take; a tolerance whose accepted interval
    covers them cannot fail and is refused (:class:`CannotFail`).

    Examples
    --------
    >>> close_to(0.07, 0.0697, tol=0.001, tolerance_source="rounding of the paper").verdict
    'agrees'
    >>> close_to(0.5, 0.2, tol=1.0, tolerance_source="x", bounds=(0, 1))
    Traceback (most recent call last):
    ...
    credalbook.papers.criteria.CannotFail: the accepted interval [-0.8, 1.2] covers every possible value [0, 1]: this criterion cannot fail
    """
    book, paper = _finite("book", book), _finite("paper", paper)
    tol = _se("tol", tol)
    width = tol * abs(paper) if relative else tol
    lo, hi = paper - width, paper + width
    if bounds is not None:
        blo, bhi = (_finite("bounds[0]", bounds[0]), _finite("bounds[1]", bounds[1]))
        if lo <= blo and hi >= bhi:
            raise CannotFail(
                f"the accepted interval [{lo:.3g}, {hi:.3g}] covers every possible value "
                f"[{blo:.3g}, {bhi:.3g}]: this criterion cannot fail"
            )
    verdict = AGREES if abs(book - paper) <= width else DIFFERS
    rel = f" ({tol:.3g} × |paper|)" if relative else ""
    crit = f"|{name} − paper| ≤ {width:.3g}{rel}: |{book:.4g} − {paper:.4g}| = {abs(book - paper):.3g}"
    return Judgement(verdict, crit, width, tolerance_source, replicates)


def at_least(k, n, need, *, what: str = "cases", tolerance_source: str = "the paper's count") -> Judgement:
    """Judge a count claim "at least ``need`` of ``n``" from ``k`` cases that hold.

    Each case must itself have been decided by a criterion that can fail; this judge counts them.
    ``need`` ≤ 0 or ``n`` = 0 cannot fail and is refused.

    >>> at_least(3, 4, 3).verdict, at_least(2, 4, 3).verdict
    ('agrees', 'differs')
    """
    for nm, v in (("k", k), ("n", n), ("need", need)):
        if isinstance(v, bool) or not isinstance(v, numbers.Integral):
            raise TypeError(f"{nm} must be an int; got {type(v).__name__}")
    if n < 1:
        raise CannotFail(f"n must be >= 1: a count over no cases cannot fail; got n={n}")
    if need < 1:
        raise CannotFail(f"need must be >= 1: 'at least {need} of {n}' cannot fail")
    if not 0 <= k <= n or need > n:
        raise ValueError(f"need 0 <= k <= n and need <= n; got k={k}, n={n}, need={need}")
    return Judgement(
        AGREES if k >= need else DIFFERS, f"at least {need} of {n} {what}: {k} of {n}", None, tolerance_source, None
    )


@renamed(level="ci")
def rate_ci(k, n, ci: float = 0.95) -> tuple[float, float]:
    """Exact (Clopper–Pearson) confidence interval of a binomial rate ``k / n``.

    >>> tuple(round(x, 4) for x in rate_ci(3, 60))
    (0.0104, 0.1392)
    """
    from scipy.stats import binomtest

    if (
        isinstance(k, bool)
        or isinstance(n, bool)
        or not isinstance(k, numbers.Integral)
        or not isinstance(n, numbers.Integral)
    ):
        raise TypeError("k and n must be ints (counts of replicates)")
    if n < 1:
        raise CannotFail(f"a rate from n={n} replicates cannot be judged")
    if not 0 <= k <= n:
        raise ValueError(f"k must be in [0, n]; got k={k}, n={n}")
    interval = binomtest(int(k), int(n)).proportion_ci(confidence_level=ci, method="exact")
    return float(interval.low), float(interval.high)


@renamed(level="ci")
def rate_claim(
    k, n, *, accept, ci: float = 0.95, name: str = "rate", tolerance_source: str = "Bradley's (1978) liberal criterion"
) -> Judgement:
    """Judge a rate ``k / n`` from ``n`` replicates against an accepted region ``accept = (lo, hi)``.

    The rate's exact ``ci`` interval inside ``[lo, hi]`` agrees, disjoint from it differs, and
    overlapping its edge is inconclusive. A region covering [0, 1] cannot fail and is refused.

    Examples
    --------
    Type I error at α = 0.05 judged with Bradley's [α/2, 3α/2]: 3 rejections in 60 cannot decide,
    150 in 3000 agree.

    >>> rate_claim(3, 60, accept=(0.025, 0.075)).verdict, rate_claim(150, 3000, accept=(0.025, 0.075)).verdict
    ('inconclusive', 'agrees')
    """
    lo, hi = (_finite("accept[0]", accept[0]), _finite("accept[1]", accept[1]))
    if lo > hi:
        raise ValueError(f"accept must be (lo, hi) with lo <= hi; got {accept}")
    if lo <= 0 and hi >= 1:
        raise CannotFail(f"accepted region [{lo:.3g}, {hi:.3g}] covers [0, 1]: this criterion cannot fail")
    c_lo, c_hi = rate_ci(k, n, ci)
    verdict = AGREES if (c_lo >= lo and c_hi <= hi) else DIFFERS if (c_hi < lo or c_lo > hi) else INCONCLUSIVE
    region = f"≥ {lo:.3g}" if hi >= 1 else f"≤ {hi:.3g}" if lo <= 0 else f"in [{lo:.3g}, {hi:.3g}]"
    crit = f"{name} {region}: {k}/{n} = {k / n:.3f}, exact {ci:.0%} interval [{c_lo:.3f}, {c_hi:.3f}]"
    return Judgement(verdict, crit, max(c_hi - c_lo, 0.0) / 2, f"{tolerance_source}; binomial interval, R = {n}", n)


def combine(judgements, *, rule: str = "all", need: int | None = None, criterion: str | None = None) -> Judgement:
    """One verdict from several (e.g. one per α level or per panel).

    ``rule="all"``: agrees when every part agrees, differs when any differs, inconclusive otherwise.
    ``rule="any"``: agrees when any part agrees, differs when every part differs, inconclusive otherwise.
    ``need=k`` (overrides ``rule``): agrees when at least ``k`` parts agree, differs when the parts that
    agree or are inconclusive cannot reach ``k``, inconclusive otherwise ("all" is ``k = n``, "any" ``k = 1``).

    >>> a, d, i = (Judgement(v, v) for v in ("agrees", "differs", "inconclusive"))
    >>> combine([a, i]).verdict, combine([a, d, i]).verdict, combine([d, i], rule="any").verdict
    ('inconclusive', 'differs', 'inconclusive')
    >>> combine([a, a, d], need=2).verdict, combine([a, i, d], need=2).verdict, combine([a, d, d], need=2).verdict
    ('agrees', 'inconclusive', 'differs')
    """
    parts = list(judgements)
    if not parts or not all(isinstance(j, Judgement) for j in parts):
        raise ValueError("judgements must be a non-empty sequence of Judgement")
    if rule not in ("all", "any"):
        raise ValueError(f"rule must be 'all' or 'any'; got {rule!r}")
    vs = [j.verdict for j in parts]
    if need is None:
        need = len(vs) if rule == "all" else 1
    else:
        at_least(0, len(vs), need)  # refuses need < 1, need > n
        rule = f"at least {need}"
    agree, open_ = vs.count(AGREES), vs.count(AGREES) + vs.count(INCONCLUSIVE)
    verdict = AGREES if agree >= need else DIFFERS if open_ < need else INCONCLUSIVE
    counts = ", ".join(f"{vs.count(v)} {v}" for v in _JUDGED if vs.count(v))
    text = criterion or "; ".join(j.criterion for j in parts)
    sources = "; ".join(dict.fromkeys(j.tolerance_source for j in parts if j.tolerance_source))
    reps = {j.replicates for j in parts if j.replicates is not None}
    return Judgement(verdict, f"{text} [{rule} of {len(parts)}: {counts}]", None, sources, min(reps) if reps else None)
