"""The "Paper vs. this book" rows of the Jürgens et al. chapter, from a plain results dict.

The paper's numbers and claims come from ``credalbook/papers/juergens/reported.json`` (through
:func:`~credalbook.papers.report.reported`); the chapter supplies only its own numbers.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from credalbook.papers.report import check_results, Comparison, reported, reported_table_rows

__all__ = ["compare", "paper_table1", "RESULT_KEYS"]

#: The keys :func:`compare` needs in ``results``.
RESULT_KEYS = ("gap", "below", "power", "skce_power", "null_means", "null_se", "landscape_miss", "app_b_rejection",
               "centre_share", "table1", "dataset")

#: Settings of Figs. 3 and 4, in the order of the chapter's rows.
_FIGURES = (("binary", "Fig. 3"), ("multiclass", "Fig. 4"))


def paper_table1(dataset: str = "CIFAR-10", arch: str = "ResNet-18") -> dict:
    """The rows of Table 1 for one dataset and backbone: set → estimator row → column → value.

    The estimator rows are ``"row 1"`` and ``"row 2"`` in printed order (our copy of the paper lost
    which is L2 and which KL; see ``reported("juergens")["table1"]["caveats"]``).

    Parameters
    ----------
    dataset : {"CIFAR-10", "CIFAR-100"}
    arch : {"ResNet-18", "VGG-19"}

    Returns
    -------
    dict
        Columns as in :func:`~credalbook.papers.juergens.evaluate_instance_test` (``mean_acc``,
        ``mean_h0``, ``mean_p``, ``mean_ce`` and the same with ``lambda_``).

    Examples
    --------
    >>> paper_table1()["DE"]["row 1"]["lambda_acc"]
    0.873
    """
    return reported_table_rows("juergens", "table1", dataset=dataset, arch=arch)


def compare(results: Mapping, *, chapter: str = "02_juergens_instance_calibration") -> Comparison:
    r"""The chapter's "Paper vs. this book" rows (Figs. 3-6, App. B, Fig. 8, Table 1).

    Parameters
    ----------
    results : mapping
        The chapter's numbers (plain floats, strings, lists and dicts; see ``RESULT_KEYS``):

        * ``gap``: setting ("binary", "multiclass") → {"new": …, "Mortier": …}, the mean
          :math:`|\text{rate} - \alpha|` over the H0 panels (L2, KL, MMD);
        * ``below``: setting → {"Mortier": …}, the mean rejection rate − α over the H0 panels;
        * ``power``, ``skce_power``: setting → mean power at α = 0.05 of the new test (L2, KL, MMD;
          and SKCE alone) over the H1 panels;
        * ``null_means``, ``null_se``: estimator name ("L2-CE", "KL-CE", "MMD", "SKCE") → mean and
          standard error of its values under H0 (Fig. 5);
        * ``landscape_miss``: estimator ("lp", "kl", "mmd", "skce") → L1 distance of the grid
          minimum from the truth in the simplex (Fig. 6);
        * ``app_b_rejection``: the three combinations' rejection rates at α = 0.05 (App. B);
        * ``centre_share``: sampler ("weights", "triangulation") → share of samples in the
          central quarter of the polytope (Fig. 8);
        * ``table1``: row name → a row of :func:`~credalbook.papers.juergens.evaluate_instance_test`
          (``mean_h0``, ``lambda_h0``, ``mean_acc``, ``lambda_acc`` are used);
        * ``dataset``: the name of the Table 1 data.
    chapter : str
        Names the results file.

    Returns
    -------
    Comparison
        Fourteen rows; the verdicts are the chapter's criteria.

    Examples
    --------
    >>> per = {"binary": 0.9, "multiclass": 0.9}
    >>> res = dict(gap={s: {"new": 0.02, "Mortier": 0.1} for s in per}, below={s: {"Mortier": -0.1} for s in per},
    ...            power=per, skce_power={s: 0.5 for s in per},
    ...            null_means={"L2-CE": 0.1, "KL-CE": 0.1, "MMD": 0.0, "SKCE": 0.0},
    ...            null_se={"L2-CE": 0.01, "KL-CE": 0.01, "MMD": 0.01, "SKCE": 0.01},
    ...            landscape_miss={"lp": 0.1, "kl": 0.1, "mmd": 0.1, "skce": 0.5}, app_b_rejection=[0.05, 0.05, 1.0],
    ...            centre_share={"weights": 0.6, "triangulation": 0.25},
    ...            table1={"A": {"mean_h0": "REJ.", "lambda_h0": "¬REJ.", "mean_acc": 0.8, "lambda_acc": 0.81}},
    ...            dataset="digits")
    >>> c = compare(res)
    >>> len(c.rows), c.n_agree
    (14, 14)
    """
    check_results(results, RESULT_KEYS)
    claim = {k: v["paper"] for k, v in reported("juergens")["claims"].items()}
    r = results
    gap, below, power, skce_power = r["gap"], r["below"], r["power"], r["skce_power"]

    cmp = Comparison(chapter)
    for s, fig_name in _FIGURES:
        cmp.add(fig_name, "new test's Type I error follows α more closely than Mortier's: mean |rate − α| (new vs Mortier; L2, KL, MMD)",
                paper=claim["h0_new_closer"], book=f"{gap[s]['new']:.3f} vs {gap[s]['Mortier']:.3f}",
                agrees=bool(gap[s]["new"] < gap[s]["Mortier"]))
        cmp.add(fig_name, "Mortier's test is conservative: mean (rejection rate − α) over the H0 panels",
                paper=claim["h0_mortier_conservative"], book=below[s]["Mortier"], agrees=bool(below[s]["Mortier"] < 0))
        cmp.add(fig_name, "high power at all three H1 distances: mean power of the new test at α = 0.05 (L2, KL, MMD)",
                paper=claim["h1_high_power"], book=power[s], agrees=bool(power[s] > 0.8),
                note="" if power[s] > 0.8 else "the smallest shifts (H1-1: ε ≤ 0.05, δ = 0.02) go undetected with 400 test instances; see the figure")
        cmp.add(fig_name, "SKCE unreliable: its power at α = 0.05 (new test) against the others'",
                paper=claim["h1_skce_unreliable"], book=f"{skce_power[s]:.2f} vs {power[s]:.2f}",
                agrees=bool(skce_power[s] < power[s]))

    null_means, null_se = r["null_means"], r["null_se"]
    lp_means = [k for k in null_means if k in ("L2-CE", "KL-CE")]
    cmp.add("Fig. 5", "L2 and KL biased upwards under H0, SKCE and MMD centred at 0 (means)",
            paper=claim["fig5_null_means"], book=", ".join(f"{k} {v:.3g}" for k, v in null_means.items()),
            agrees=bool(all(null_means[k] > 3 * null_se[k] for k in lp_means)
                        and all(abs(null_means[k]) < 4 * null_se[k] for k in ("SKCE", "MMD"))))
    miss = r["landscape_miss"]
    worst = max(miss[e] for e in ("lp", "kl", "mmd"))
    cmp.add("Fig. 6", "L2, KL, MMD smallest near the truth; SKCE noisier (L1 distance of the grid minimum)",
            paper=claim["fig6_landscape"], book=f"{worst:.3f} vs SKCE {miss['skce']:.3f}",
            agrees=bool(worst < miss["skce"]))
    calib = list(r["app_b_rejection"])
    cmp.add("App. B", "two different combinations calibrated, a third not: rejection rates at α = 0.05",
            paper=claim["app_b_combinations"], book=", ".join(f"{c:.2f}" for c in calib),
            agrees=bool(max(calib[:2]) <= 0.2 and calib[2] >= 0.8))
    share = r["centre_share"]
    cmp.add("Fig. 8", "uniform weights pile up in the centre: share in the central quarter (weights vs uniform)",
            paper=claim["fig8_centre"], book=f"{share['weights']:.2f} vs {share['triangulation']:.2f}",
            agrees=bool(share["weights"] > share["triangulation"] + 0.1))

    table = r["table1"]
    n_mean_rej = sum(row["mean_h0"] == "REJ." for row in table.values())
    n_lam_rej = sum(row["lambda_h0"] == "REJ." for row in table.values())
    cmp.add("Table 1", "the mean predictor is rejected at least as often as the learned λ(x) (rows rejected)",
            paper=claim["table1_mean_rejected"], book=f"{n_mean_rej} vs {n_lam_rej} of {len(table)}",
            agrees=bool(n_mean_rej >= n_lam_rej), note=f"{r['dataset']}, small CNN backbones, not CIFAR/ResNet")
    acc_gain = float(np.mean([row["lambda_acc"] - row["mean_acc"] for row in table.values()]))
    cmp.add("Table 1", "λ(x) slightly increases accuracy (mean difference)", paper=claim["table1_accuracy"],
            book=acc_gain, agrees=bool(acc_gain >= 0))
    return cmp
