"""What every "Paper vs. this book" row of the Wu & Gales chapter is judged with: the counting rule over
topologies (:func:`count_rule`), the standard errors of differences (bootstrap over the test instances and
the spread over runs, at z = 2) and the sizes said in the notes.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from credalbook.papers.criteria import AGREES, combine, DIFFERS, INCONCLUSIVE, Judgement, sign_claim
from credalbook.papers.wu_gales.resampling import paired_estimate

__all__ = ["count_rule"]

_Z = 2.0
_BOOT = "bootstrap over the test instances (paired) and the spread over runs"
_TESTS = "tests/papers/wu_gales/test_experiments.py"


def count_rule(
    parts: Mapping[str, Judgement],
    need: int,
    *,
    what: str = "topologies",
    source: str = "the paper's count in its table",
) -> Judgement:
    """Count per-case judgements: at least ``need`` of them must agree.

    Agrees when the cases that agree reach ``need``; differs when the agreeing and inconclusive
    cases together cannot reach it; inconclusive otherwise (:func:`~credalbook.papers.criteria.combine`
    with ``need``), with every case's verdict and criterion in the row's criterion.

    Examples
    --------
    >>> a, d, i = (Judgement(v, v) for v in ("agrees", "differs", "inconclusive"))
    >>> count_rule({"x": a, "y": a, "z": d}, 2).verdict, count_rule({"x": a, "y": i, "z": d}, 2).verdict
    ('agrees', 'inconclusive')
    >>> count_rule({"x": a, "y": d, "z": d}, 2).verdict
    'differs'
    """
    vs = [j.verdict for j in parts.values()]
    n, k = len(vs), vs.count(AGREES)
    verdict = combine(list(parts.values()), need=need).verdict
    each = "; ".join(f"{name}: {j.verdict} ({j.criterion})" for name, j in parts.items())
    crit = (
        f"at least {need} of {n} {what} agree: {k} agree, {vs.count(DIFFERS)} differ, "
        f"{vs.count(INCONCLUSIVE)} inconclusive [{each}]"
    )
    sources = "; ".join(dict.fromkeys([source] + [j.tolerance_source for j in parts.values() if j.tolerance_source]))
    reps = {j.replicates for j in parts.values() if j.replicates is not None}
    return Judgement(verdict, crit, None, sources, min(reps) if reps else None)


#: The paper's sizes (Sec. 4.3: 45,000 / 5,000 / 10,000 images; App. A.4: ten runs; Table 1: ten members).
_PAPER_SIZES = dict(n_val=5000, n_test=10000, members=10, n_runs=10)


def _where(results: Mapping) -> str:
    """The data, networks and (optional ``results["setting"]``) sizes behind a row, for its note."""
    out = f"{results['dataset']}, {results['networks']} networks"
    st = results.get("setting")
    if st:
        sub = ", ".join(f"{t} {k}" for t, k in st["subset"].items())
        out += (
            f"; {st['n_val']:,} validation / {st['n_test']:,} test images (paper {_PAPER_SIZES['n_val']:,} / "
            f"{_PAPER_SIZES['n_test']:,}); {st['n_runs']} runs of {sub} members (paper {_PAPER_SIZES['n_runs']} "
            f"runs of {_PAPER_SIZES['members']})"
        )
        members = st.get("members")
        if members and all(members.get(t) == k + 1 == st["n_runs"] for t, k in st["subset"].items()):
            out += (
                "; the runs are the leave-one-out subsets of one set of members per topology, so ±2σ is mostly "
                "the test bootstrap"
            )
        nets = st.get("networks")
        if nets:
            out += (
                "; parameters / epochs "
                + ", ".join(f"{t} {r['parameters']:,} / {r['epochs']}" for t, r in nets.items())
                + f" (paper: {_PAPER_NETWORKS})"
            )
    return out


#: The paper's networks (parameter counts from their original papers; epochs from their recipes, App. A.4).
_PAPER_NETWORKS = "LeNet-5 0.06 M, DenseNet-BC-100 0.8 M / 300, DenseNet-121 7.0 M / 300, WRN-28-10 36.5 M / 200 epochs"


def _need(paper_k: int, paper_n: int, n: int) -> int:
    """The paper's count, scaled to n cases when the book has fewer (at least 1)."""
    return paper_k if n == paper_n else max(1, math.ceil(paper_k * n / paper_n))


def _est(plain: Mapping, a: str, b: str | None = None, metric: str = "ece") -> tuple[float, float]:
    """Mean (over runs) of method a, or of a − b, and its standard error, from ``CalibrationStudy.plain()``."""
    A = plain[a][metric]
    if b is None:
        return paired_estimate(A["runs"], A["boot"])
    B = plain[b][metric]
    return paired_estimate(A["runs"], A["boot"], B["runs"], B["boot"])


def _sign(plain, a, b, relation, metric="ece", scale=100.0, unit="1e-2") -> Judgement:
    d, se = _est(plain, a, b, metric)
    return sign_claim(
        d * scale,
        relation=relation,
        se=se * scale,
        z=_Z,
        name=f"{a} − {b} ({unit})",
        tolerance_source=f"{_Z:g} × SE: {_BOOT}",
    )
