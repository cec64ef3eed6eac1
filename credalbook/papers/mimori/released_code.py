"""The authors' released estimators of ÊL and ĈL (a transcription), and where they are biased.

* :func:`released_code_el_cl` — ÊL and ĈL as ``lh_calib/evaluation.py`` of github.com/m1m0r1/lh_calib
  computes them;
* :func:`released_code_demo` — a perfect predictor, where the released estimators are biased and the
  book's are not.

References
----------
Mimori, Sasada, Matsui, Sato. Diagnostic Uncertainty Calibration: Towards Reliable Machine
Predictions in Medical Domain. arXiv:2007.01659 (2022).
"""

from __future__ import annotations

import math

import numpy as np

from credalbook._deprecation import swapped_label_hist
from credalbook._validation import check_positive_int
from credalbook.metrics.label_hist import cpe_loss_decomposition

__all__ = ["released_code_el_cl", "released_code_demo"]


@swapped_label_hist()
def released_code_el_cl(probs, label_hist, *, n_bins: int = 15) -> dict:
    r"""ÊL and ĈL as the authors' released code computes them (a transcription, for comparison only).

    ``lh_calib/evaluation.py`` of github.com/m1m0r1/lh_calib, ``LHEval.get_cpe_decomp1`` (lines
    192-242) with the sums of ``LHEval.summarize`` (lines 260-264) and the binning of
    ``EquallySpacedBinningScheme`` (``np.digitize`` on the 14 inner edges, lines 107-116). Two
    places differ from the paper's estimators (and from :func:`~credalbook.metrics.epistemic_loss`,
    :func:`~credalbook.metrics.cpe_loss_decomposition`):

    * **instances with one label** (lines 202-204): every instance's plug-in term
      :math:`(\hat\mu_{ik} - z_{ik})^2 / N` is summed (line 202), but its bias term
      :math:`\hat\mu_{ik}(1 - \hat\mu_{ik}) / (n_i - 1) / N` is *masked* where :math:`n_i = 1`
      (line 204; masked entries drop out of the bin sums, line 217, and of pandas' sum, line 262),
      so a single-label instance enters ÊL uncorrected — its plug-in term has expectation
      :math:`\sum_k Q_k(1 - Q_k)` too many — and N still counts it. The paper leaves such
      instances out (footnote 5: ÊL "can only be evaluated when more than one label per instance
      is available").
    * **bins with one instance** (lines 218-221): the bin keeps its plug-in calibration term
      :math:`(\hat\mu_{ik} - z_{ik})^2 / N`, and its bias term is NaN ("not available", line 221),
      which pandas' sum in ``summarize`` (line 264) skips, so the bin enters ĈL uncorrected. App. B.3
      of the paper says "We use 0 for the estimators with such bins"; the book does (bins with
      fewer than two instances contribute 0).

    The transcription reproduces ``LHEval(LabelHist(y), pred).summarize(use_order2=False)``'s
    ``el_debias`` and ``cl_debias`` to rounding (checked against the released file).

    Returns
    -------
    dict
        ``{"EL": ..., "CL": ...}`` (debiased, as their ``el_debias`` and ``cl_debias``).

    Examples
    --------
    One instance with a single label: their ÊL keeps its plug-in term (0.5² + 0.5²) / 2.

    >>> released_code_el_cl([[1.0, 0.0], [0.5, 0.5]], [[2, 0], [1, 0]])["EL"]
    0.25
    """
    y = np.asarray(label_hist, dtype=float)
    z = np.asarray(probs, dtype=float)
    n_inst = len(y)
    tot = y.sum(axis=1)
    mu = y / tot[:, None]
    el = ((mu - z) ** 2).sum() / n_inst
    many = tot > 1  # their masked array: n_i − 1 == 0 is masked
    el_bias = (mu[many] * (1 - mu[many]) / (tot[many] - 1)[:, None]).sum() / n_inst
    idx = np.digitize(z, np.linspace(0.0, 1.0, n_bins + 1)[1:-1])
    cl = cl_bias = 0.0
    for k in range(z.shape[1]):
        for b in range(n_bins):
            m = idx[:, k] == b
            size = int(m.sum())
            if size:
                cl += (mu[m, k].mean() - z[m, k].mean()) ** 2 * size / n_inst
            if size > 1:  # a bin with one instance: NaN, masked, i.e. no correction
                cl_bias += mu[m, k].var() * (size / (size - 1)) / n_inst
    return {"EL": float(el - el_bias), "CL": float(cl - cl_bias)}


def released_code_demo(*, n_runs: int = 400, seed: int = 0) -> dict:
    """Where the authors' released estimators are biased and the book's are not: a perfect predictor.

    A binary perfect predictor (``z = Q``, ``Q ~ U(0, 1)``, as in Fig. 2), so EL = CL = 0, in three
    settings: (a) 1 000 instances, half with one label and half with two; (b) 1 000 instances with
    MDS-like counts ``1 + Poisson(4.79)`` (mean 5.79, App. E.1's validation mean); (c) 20 instances
    with five labels each, so that most of the 15 bins hold one instance. Returns
    ``{setting: {"EL book", "EL released code", "CL book", "CL released code"}: (mean, standard
    error over n_runs)}``.

    Examples
    --------
    >>> out = released_code_demo(n_runs=20)
    >>> sorted(out)[0], sorted(out["(a) half single-labelled, N = 1000"])
    ('(a) half single-labelled, N = 1000', ['CL book', 'CL released code', 'EL book', 'EL released code'])
    """
    check_positive_int(n_runs, "n_runs")
    rng = np.random.default_rng(np.random.SeedSequence([seed, 2007]))
    settings = {
        "(a) half single-labelled, N = 1000": lambda: np.repeat([1, 2], 500),
        "(b) MDS-like counts 1 + Poisson(4.79), N = 1000": lambda: 1 + rng.poisson(4.79, 1000),
        "(c) 5 labels, N = 20 (most bins hold one instance)": lambda: np.full(20, 5),
    }
    out = {}
    for name, counts_of in settings.items():
        vals: dict = {}
        for _ in range(n_runs):
            counts = counts_of()
            q1 = rng.uniform(size=len(counts))
            q = np.stack([q1, 1 - q1], axis=1)
            y1 = rng.binomial(counts, q1)
            hist = np.stack([y1, counts - y1], axis=1)
            d = cpe_loss_decomposition(q, hist)
            theirs = released_code_el_cl(q, hist)
            for key, v in (
                ("EL book", d.el_debiased),
                ("CL book", d.cl_debiased),
                ("EL released code", theirs["EL"]),
                ("CL released code", theirs["CL"]),
            ):
                vals.setdefault(key, []).append(v)
        out[name] = {k: (float(np.mean(v)), float(np.std(v, ddof=1) / math.sqrt(n_runs))) for k, v in vals.items()}
    return out
