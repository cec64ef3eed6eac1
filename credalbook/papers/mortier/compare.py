"""The "Paper vs. this book" rows of the Mortier et al. (2023) chapter, from a plain results dict.

The paper's numbers and claims come from ``credalbook/papers/mortier/reported.json`` (through
:func:`~credalbook.papers.report.reported`); the chapter supplies only its own numbers.
"""

from __future__ import annotations

from collections.abc import Mapping

from credalbook.papers.report import check_results, Comparison, reported, reported_table_rows

__all__ = ["compare", "paper_table1", "RESULT_KEYS"]

#: The keys :func:`compare` needs in ``results``.
RESULT_KEYS = ("skce_excess", "skce_excess_code", "binned_excess", "hl_s2", "s2_ece", "s3_ece", "mean_type1", "gap",
               "table1", "dataset")


def paper_table1(dataset: str = "CIFAR-10", arch: str = "VGG") -> dict:
    """The rows of Table 1 for one dataset and architecture: classifier → column → value.

    Parameters
    ----------
    dataset : str, default "CIFAR-10"
        A dataset of Table 1 ("CIFAR-10", "CALTECH-101", "CALTECH-256", "PLANTCLEF2015", "BACTERIA",
        "PROTEINS").
    arch : str, default "VGG"
        "MOB" (MobileNetV2) or "VGG" (VGG16) for the image datasets, "-" for the others.

    Returns
    -------
    dict
        Columns as in :func:`~credalbook.papers.mortier.evaluate_classifier_set` (``avg_acc``, …,
        ``h0_conf`` as "REJ." / "¬REJ.", …).

    Examples
    --------
    >>> paper_table1("CIFAR-10", "MOB")["DE"]["avg_ece_conf"]
    0.168
    """
    return reported_table_rows("mortier", "table1", dataset=dataset, arch=arch)


def compare(results: Mapping, *, chapter: str = "01_mortier_set_calibration") -> Comparison:
    r"""The chapter's "Paper vs. this book" rows (Fig. 1 right, App. Figs. 2-4, Table 1).

    Parameters
    ----------
    results : mapping
        The chapter's numbers (plain floats, strings and dicts; see ``RESULT_KEYS``):

        * ``skce_excess``, ``skce_excess_code``, ``binned_excess``: the largest excess of the S1
          rejection rate over the upper 95% binomial band, Fig. 1 setting (SKCE_ul as in the
          paper, SKCE_ul as in the authors' code, the worst of the binned tests);
        * ``hl_s2``: mean Type II error of the HL tests in S2 at α = 0.05; ``s2_ece``, ``s3_ece``:
          mean Type II error of the ECE tests in S2 and S3 at α = 0.05;
        * ``mean_type1``, ``gap``: figure name ("Fig. 1" … "Fig. 4") → mean Type I error over the
          twelve levels, and mean :math:`|\text{Type I} - \alpha|`;
        * ``table1``: classifier name ("S", "DN(0.1)", "DN(0.6)", "DE") → a row of
          :func:`~credalbook.papers.mortier.evaluate_classifier_set` (``h0_conf``, ``avg_ece_conf``,
          ``ece_conf`` are used);
        * ``dataset``: the name of the Table 1 data.
    chapter : str
        Names the results file.

    Returns
    -------
    Comparison
        Thirteen rows; the verdicts are the chapter's criteria.

    Examples
    --------
    >>> row = {"h0_conf": "REJ.", "avg_ece_conf": 0.1, "ece_conf": 0.05}
    >>> res = dict(skce_excess=0.1, skce_excess_code=0.2, binned_excess=-0.01, hl_s2=0.9, s2_ece=0.5, s3_ece=0.1,
    ...            mean_type1={f"Fig. {i}": 0.2 for i in range(1, 5)}, gap={f"Fig. {i}": 0.2 for i in range(1, 5)},
    ...            table1={n: row for n in ("S", "DE", "DN(0.1)", "DN(0.6)")}, dataset="digits")
    >>> c = compare(res)
    >>> len(c.rows), c.rows[-1].paper
    (13, '0.1680 → 0.0150 (CIFAR-10, MOB)')
    """
    check_results(results, RESULT_KEYS)
    paper = reported("mortier")
    claim = {k: v["paper"] for k, v in paper["claims"].items()}
    r = results
    skce_excess, skce_excess_code, binned_excess = r["skce_excess"], r["skce_excess_code"], r["binned_excess"]
    hl_s2, s2_ece, s3_ece, mean_type1, gap, dataset = r["hl_s2"], r["s2_ece"], r["s3_ece"], r["mean_type1"], r["gap"], r["dataset"]

    cmp = Comparison(chapter)
    cmp.add("Fig. 1 right", "SKCE_ul: Type I error exceeds α (max over α of rate − upper 95% band)",
            paper=claim["fig1_skce_type1"], book=skce_excess, agrees=bool(skce_excess > 0),
            note="the unbiased estimator's null sample is evaluated at λ0, the statistic at a minimum")
    cmp.add("Fig. 1 right (authors' code)", "SKCE_ul Type I error with Dir(1/M) weights and permuted instances "
            "(max over α of rate − upper band)", paper=claim["fig1_skce_type1"], book=skce_excess_code,
            agrees=bool(skce_excess_code > 0), note="the reading of Alg. 1 in the released code")
    cmp.add("Fig. 1 right", "HL, ECE tests: Type I error at or below α (max over α of rate − upper band)",
            paper=claim["fig1_binned_type1"], book=binned_excess, agrees=bool(binned_excess <= 0))
    cmp.add("Fig. 1 right", "HL has low power in S2: mean Type II error of HL (5, 10 bins) at α = 0.05",
            paper=claim["fig1_hl_power_s2"], book=hl_s2, agrees=bool(hl_s2 > 0.5))
    cmp.add("Fig. 1 right", "S3 easier than S2: mean Type II of the ECE tests at α = 0.05 (S2 → S3)",
            paper=claim["fig1_s3_vs_s2"], book=f"{s2_ece:.3f} → {s3_ece:.3f}", agrees=bool(s3_ece < s2_ece))
    cmp.add("Fig. 1 right", "ECE_conf and ECE_cwise reliable for both errors: their mean Type II in S3 at α = 0.05",
            paper=claim["fig1_ece_reliable"], book=s3_ece, agrees=bool(s3_ece < 0.3))

    cmp.add("App. Fig. 2", "larger sets (u = 0.1 vs 0.01) more conservative: mean Type I over α",
            paper=claim["fig2_larger_sets"], book=f"{mean_type1['Fig. 1']:.3f} → {mean_type1['Fig. 2']:.3f}",
            agrees=bool(mean_type1["Fig. 2"] < mean_type1["Fig. 1"]))
    cmp.add("App. Fig. 3", "M = 100 changes little: mean |Type I − α| (M = 10 → 100)",
            paper=claim["fig3_members"], book=f"{gap['Fig. 1']:.3f} → {gap['Fig. 3']:.3f}",
            agrees=bool(abs(gap["Fig. 3"] - gap["Fig. 1"]) < 0.1), note="Fig. 3 here uses the batched search minimiser")
    cmp.add("App. Fig. 4", "K = 100 brings the Type I error closer to α: mean |Type I − α| (K = 10 → 100)",
            paper=claim["fig4_classes"], book=f"{gap['Fig. 1']:.3f} → {gap['Fig. 4']:.3f}",
            agrees=bool(gap["Fig. 4"] < gap["Fig. 1"]),
            note="bootstrap with replacement biases the ECE_cwise null at K = 100 (table above)")

    table1 = r["table1"]
    s_row, de_row, dn1, dn6 = (table1[name] for name in ("S", "DE", "DN(0.1)", "DN(0.6)"))
    cmp.add("Table 1", "single network S rejected for ECE_conf", paper=claim["table1_single_rejected"],
            book=s_row["h0_conf"], agrees=s_row["h0_conf"] == "REJ.", note=f"{dataset}, small CNN backbone")
    cmp.add("Table 1", "deep ensemble DE not rejected for ECE_conf", paper=claim["table1_de_not_rejected"],
            book=de_row["h0_conf"], agrees=de_row["h0_conf"] == "¬REJ.", note=f"{dataset}, small CNN backbone")
    cmp.add("Table 1", "DN(0.6) better confidence-calibrated than DN(0.1): average ECE_conf on the test split",
            paper=claim["table1_dropout_rate"], book=f"{dn1['avg_ece_conf']:.4f} vs {dn6['avg_ece_conf']:.4f}",
            agrees=bool(dn6["avg_ece_conf"] < dn1["avg_ece_conf"]))
    de_paper = paper["table1"]["rows"]["CIFAR-10"]["MOB"]["DE"]
    cmp.add("Table 1", "DE: weighted average better confidence-calibrated than the plain average (ECE_conf)",
            paper=f"{de_paper['avg_ece_conf']:.4f} → {de_paper['ece_conf']:.4f} (CIFAR-10, MOB)",
            book=f"{de_row['avg_ece_conf']:.4f} → {de_row['ece_conf']:.4f}",
            agrees=bool(de_row["ece_conf"] <= de_row["avg_ece_conf"]))
    return cmp
