r"""The criteria of the EU chapter's rows beyond Tables 1-2's two-sided agreement.

* **One-sided claims are judged one-sidedly.** A claim "a > b" on per-seed values (paired differences, usually)
  agrees when the mean exceeds the threshold by more than Student's one-sided 95% quantile (:math:`S - 1` df)
  times the standard error over the :math:`S` seeds, differs when it falls below it by as much, and is
  inconclusive between (:func:`one_sided`). A two-sided agreement with a number (Tables 1-2) keeps the two-sided
  quantile (:func:`credalbook.papers.eu.compare_summary`).
* **The paper's own numbers judged alike** (:func:`paper_decides`): an order claim between two of the paper's
  "mean ± sd" over its seeds, with the same one-sided rule on the unpaired (Welch) standard error, since the paper
  gives no per-seed pairs.
* **A cause moves our number onto the paper's** (:func:`moved_onto`): per-seed values of the same design with
  one setting changed (or with the floor subtracted) agree with the paper's mean ± sd by the two-sided rule.
"""

from __future__ import annotations

import math

import numpy as np

from credalbook.papers.criteria import INCONCLUSIVE, Judgement, mean_se, ordered, sign_claim
from credalbook.papers.premises import not_decided_by_paper

__all__ = [
    "decides_text",
    "moved_onto",
    "one_sided",
    "paper_decides",
    "t_one_sided",
    "unless_paper_undecided",
    "welch_one_sided",
    "within_bounds",
]


def t_one_sided(df: float) -> float:
    """Student's one-sided 95% quantile with ``df`` degrees of freedom (the normal's 1.645 for df = ∞).

    >>> round(t_one_sided(5), 3), round(t_one_sided(math.inf), 3)
    (2.015, 1.645)
    """
    from scipy.stats import t

    if not df > 0:
        raise ValueError(f"df must be > 0; got {df!r}")
    return float(t.ppf(0.95, df)) if math.isfinite(df) else 1.6448536269514722


def one_sided(values, *, relation: str, name: str, threshold: float = 0.0, unit: str = "seed") -> Judgement:
    """Judge the one-sided claim ``mean(values) relation threshold`` on per-seed values (see the module docstring);
    ``unit`` names what the values are replicates of, in the tolerance's source ("seed", or e.g. "interval" for the
    values of a curve's intervals).

    Examples
    --------
    >>> one_sided([0.02, 0.03, 0.025, 0.028, 0.022, 0.03], relation=">", name="d").verdict
    'agrees'
    >>> one_sided([0.02, -0.01, 0.01], relation=">", name="d").verdict
    'inconclusive'
    >>> one_sided([0.02], relation=">", name="d").verdict
    'inconclusive'
    >>> one_sided([0.02, 0.03, 0.025], relation=">", name="d", unit="interval").tolerance_source.split("× ")[1]
    'the standard error over 3 intervals (0.0029)'
    """
    mean, se, n = mean_se(values)
    if n < 2:
        return Judgement(
            INCONCLUSIVE,
            f"{name} {relation} {threshold:g}: {mean:.4g} (one {unit}: no standard error)",
            None,
            f"the spread over {unit}s (needs at least 2 {unit}s)",
            n,
        )
    z = t_one_sided(n - 1)
    source = f"Student-t one-sided 95% quantile {z:.3f} ({n - 1} df) × the standard error over {n} {unit}s ({se:.2g})"
    if threshold == 0.0:
        return sign_claim(mean, relation=relation, se=se, z=z, name=name, replicates=n, tolerance_source=source)
    return ordered(
        mean, threshold, relation=relation, se_a=se, z=z, names=(name, f"{threshold:g}"), replicates=n,
        tolerance_source=source,
    )  # fmt: skip


def _welch(se_a: float, n_a: int, se_b: float, n_b: int) -> float:
    var = se_a**2 + se_b**2
    den = (se_a**4 / (n_a - 1) if se_a > 0 else 0.0) + (se_b**4 / (n_b - 1) if se_b > 0 else 0.0)
    return var**2 / den if den > 0 else math.inf


def welch_one_sided(a, b, *, relation: str, names=("a", "b")) -> Judgement:
    """One-sided order claim between two unpaired sets of per-seed values (Welch's standard error and df)."""
    ma, sa, na = mean_se(a)
    mb, sb, nb = mean_se(b)
    if min(na, nb) < 2:
        return Judgement(INCONCLUSIVE, f"{names[0]} {relation} {names[1]}: {ma:.4g} vs {mb:.4g} (one seed)", None,
                         "the spread over seeds (needs at least 2 seeds each)", min(na, nb))  # fmt: skip
    z = t_one_sided(_welch(sa, na, sb, nb))
    src = (
        f"Student-t one-sided 95% quantile {z:.3f} (Welch df) × the unpaired standard error ({math.hypot(sa, sb):.2g})"
    )
    return ordered(ma, mb, relation=relation, se_a=sa, se_b=sb, z=z, names=names, replicates=min(na, nb),
                   tolerance_source=src)  # fmt: skip


def paper_decides(a, b, *, relation: str, seeds: int = 6, names=("a", "b")) -> Judgement:
    """Judge the paper's own claim ``a relation b`` from two of its "mean ± sd" over ``seeds`` seeds each.

    The one-sided rule of :func:`one_sided` on the unpaired (Welch) standard error: the paper gives no per-seed
    pairs. Table 1's ρ_epi, 0.121 ± 0.028 (Ê_E) against 0.108 ± 0.023 (Ê_M), does not decide "Ê_E has superior
    epistemic correlation":

    >>> paper_decides((0.121, 0.028), (0.108, 0.023), relation=">").verdict
    'inconclusive'
    >>> paper_decides((0.101, 0.014), (0.065, 0.015), relation=">").verdict
    'agrees'
    """
    (ma, sda), (mb, sdb) = (tuple(float(v) for v in a), tuple(float(v) for v in b))
    sa, sb = sda / math.sqrt(seeds), sdb / math.sqrt(seeds)
    z = t_one_sided(_welch(sa, seeds, sb, seeds))
    src = (
        f"the paper's own numbers: Student-t one-sided 95% quantile {z:.3f} (Welch df) × the unpaired standard "
        f"error of its two means over {seeds} seeds ({math.hypot(sa, sb):.2g})"
    )
    return ordered(ma, mb, relation=relation, se_a=sa, se_b=sb, z=z, names=names, tolerance_source=src)


def unless_paper_undecided(book: Judgement, paper) -> Judgement:
    """``book`` as it is when the paper's own numbers decide its claim (every judgement of :func:`paper_decides` in
    ``paper`` agrees), else *inconclusive*, not counted against the book
    (:func:`~credalbook.papers.premises.not_decided_by_paper`).

    >>> own = paper_decides((0.121, 0.028), (0.108, 0.023), relation=">")
    >>> unless_paper_undecided(Judgement("differs", "ρ_E > ρ_M"), own).verdict
    'inconclusive'
    """
    js = [paper] if isinstance(paper, Judgement) else list(paper)
    if not js or not all(isinstance(j, Judgement) for j in js):
        raise ValueError("paper must be a Judgement or a non-empty list of them (from paper_decides)")
    if all(j.verdict == "agrees" for j in js):
        return book
    return not_decided_by_paper(book, "; ".join(f"{j.criterion} ({j.verdict})" for j in js if j.verdict != "agrees"))


def decides_text(j: Judgement) -> str:
    """A row's note on whether the paper's own numbers decide its claim."""
    word = {"agrees": "decide it", "inconclusive": "do not decide it", "differs": "contradict it"}[j.verdict]
    return f"the paper's own numbers {word} ({j.criterion}; {j.tolerance_source})"


def moved_onto(values, paper, *, paper_seeds: int = 6) -> Judgement:
    """Whether per-seed ``values`` (a changed design, or ours minus the floor) agree with the paper's (mean, sd).

    The two-sided rule of Tables 1-2 (:func:`credalbook.papers.eu.compare_summary`).

    >>> moved_onto([0.10, 0.11, 0.12], (0.108, 0.023)).verdict
    'agrees'
    """
    from credalbook.papers.eu.studies import _paper_agreement

    return _paper_agreement(np.asarray(values, dtype=np.float64), paper, paper_seeds=paper_seeds)


def within_bounds(values, lo: float, hi: float, *, paper_se: float = 0.0, name: str = "book") -> Judgement:
    r"""Whether the mean of per-seed ``values`` lies in ``[lo, hi]``, up to Student's two-sided 95% quantile
    (:math:`S - 1` df) times the combined standard error of our mean and of the bounds (``paper_se``).

    The EECE floor as a cause: for noise symmetric about 0, an estimate whose true calibration error is
    :math:`c` has an expected EECE between :math:`\max(c, \mathrm{floor})` and :math:`c + \mathrm{floor}`
    (Jensen and the triangle inequality, per interval), so our calibrated EECE is explained by the floor of our
    test sets when it lies in :math:`[\max(c_{paper}, f), c_{paper} + f]`.

    >>> within_bounds([0.040, 0.041, 0.039], 0.0243, 0.0425).verdict
    'agrees'
    >>> within_bounds([0.060, 0.061, 0.059], 0.0243, 0.0425).verdict
    'differs'
    """
    from scipy.stats import t

    from credalbook.papers.criteria import AGREES, DIFFERS

    mean, se, n = mean_se(values)
    if n < 2:
        return Judgement(INCONCLUSIVE, f"{name} in [{lo:.4g}, {hi:.4g}]: {mean:.4g} (one seed)", None,
                         "the spread over seeds (needs at least 2 seeds)", n)  # fmt: skip
    z = float(t.ppf(0.975, n - 1))
    tol = z * math.hypot(se, paper_se)
    d = max(lo - mean, 0.0, mean - hi)
    return Judgement(
        AGREES if d <= tol else DIFFERS,
        f"{name} in [{lo:.4g}, {hi:.4g}] up to {tol:.3g}: {mean:.4g}",
        tol,
        f"Student-t two-sided 95% quantile {z:.2f} ({n - 1} df) × the combined standard error ({math.hypot(se, paper_se):.2g})",
        n,
    )
