"""The numbers Wu & Gales (2021) report, for the "Paper vs. this book" tables of their chapter.

Transcribed from the paper: Table 1 (ensembles of one topology on CIFAR-100, none / pre / post /
dyn., mean ± 2σ), Table 5 (the same on CIFAR-10), Tables 3 and 4 (single models on CIFAR-100 and
CIFAR-10, trained on 100 % or 90 % of the training images), Tables 2, 6 (topology ensembles with
Max-LL and AUC weights) and 7 (topology combination with structure and ensemble calibration), and
the appendix toy values. Values are in the paper's units (:data:`WG_UNITS`): accuracy in %, ACE,
ACCE and SKCE in 1e-4, ECE and ECCE in 1e-2; Table 7 prints ACE and ECE as plain numbers, which are
converted here to the same units. Figures 1-4 carry no printed numbers; their claims are
:data:`WG_PAPER_FINDINGS`.

References
----------
Wu, Gales. Should Ensemble Members Be Calibrated? arXiv:2101.05397 (2021), Tables 1-7, App. A.3.
"""

from __future__ import annotations

__all__ = ["WG_METRICS", "WG_UNITS", "WG_PAPER_TABLE1", "WG_PAPER_TABLE5", "WG_PAPER_SINGLE",
           "WG_PAPER_COMBINATION", "WG_PAPER_TOYS", "WG_PAPER_FINDINGS", "wg_paper_reference"]

#: Columns of Tables 1 and 5, in order (Tables 3-4 have no SKCE, Tables 2, 6, 7 only acc, NLL, ACE, ECE).
WG_METRICS = ("accuracy", "nll", "acce", "ace", "ecce", "ece", "skce")
#: Paper unit of each metric: printed value = raw value / unit.
WG_UNITS = {"accuracy": 1e-2, "nll": 1.0, "acce": 1e-4, "ace": 1e-4, "ecce": 1e-2, "ece": 1e-2, "skce": 1e-4}


def _parse_calibration(text: str) -> dict:
    """'TOPO method acc nll ± ...' lines -> {topology: {method: {metric: (mean, 2σ)}}}."""
    out: dict = {}
    for line in text.strip().splitlines():
        topo, method, acc, *rest = line.split()
        row = {"accuracy": (float(acc), float("nan"))}
        for name, (mean, two_sigma) in zip(WG_METRICS[1:], zip(rest[0::2], rest[1::2])):
            row[name] = (float(mean), float(two_sigma))
        out.setdefault(topo, {})[method] = row
    return out


#: Table 1 (CIFAR-100, ensembles of 10 members of one topology): topology -> method -> metric -> (mean, 2σ).
WG_PAPER_TABLE1 = _parse_calibration("""
LEN none 49.20 1.9741 0.0059 30.82 0.44 23.66 0.55 16.23 0.39 11.55 0.39 23.97 0.06
LEN pre 49.17 1.9641 0.0137 23.15 0.86 8.54 1.85 13.23 0.19 3.24 0.37 27.24 0.42
LEN post 49.20 1.9285 0.0068 21.72 0.61 5.73 1.24 13.22 0.23 2.19 0.45 28.41 0.44
LEN dyn 49.20 1.9280 0.0107 21.19 0.73 4.45 1.66 12.86 0.28 2.33 1.05 28.81 0.30
DSN100 none 81.32 0.6699 0.0015 16.31 0.42 5.79 0.38 8.92 0.39 2.54 0.19 53.71 0.14
DSN100 pre 81.29 0.6912 0.0084 16.89 0.36 6.86 0.59 8.79 0.30 2.08 0.38 55.32 0.47
DSN100 post 81.32 0.6852 0.0080 16.73 0.38 6.29 0.68 8.56 0.25 1.83 0.32 57.64 1.25
DSN100 dyn 81.32 0.6781 0.0058 16.11 0.60 4.94 1.03 8.41 0.35 1.31 0.53 57.17 0.69
DSN121 none 82.69 0.6314 0.0022 15.74 0.24 3.64 0.35 8.58 0.18 1.58 0.24 59.30 0.07
DSN121 pre 82.70 0.6312 0.0056 15.79 0.38 3.58 0.80 8.58 0.18 1.62 0.20 59.21 0.82
DSN121 post 82.69 0.6324 0.0044 15.81 0.43 3.76 0.65 8.57 0.17 1.56 0.23 59.61 1.30
DSN121 dyn 82.69 0.6315 0.0041 15.63 0.43 3.26 0.34 8.65 0.29 1.71 0.18 57.87 0.53
RSN none 83.45 0.6231 0.0023 16.95 0.20 7.31 0.26 9.28 0.26 3.22 0.19 57.01 0.14
RSN pre 83.41 0.6129 0.0018 15.41 0.43 2.52 0.63 8.75 0.17 1.88 0.26 60.67 0.70
RSN post 83.45 0.6118 0.0016 15.48 0.28 3.28 0.52 8.75 0.15 1.82 0.20 60.75 0.56
RSN dyn 83.45 0.6097 0.0023 15.63 0.31 2.83 0.56 8.68 0.31 1.20 0.41 59.36 0.74
""")

#: Table 5 (CIFAR-10), same layout as :data:`WG_PAPER_TABLE1`.
WG_PAPER_TABLE5 = _parse_calibration("""
LEN none 80.11 0.6067 0.0031 187.73 3.22 181.18 1.86 9.55 0.26 9.18 0.17 447.50 1.78
LEN pre 80.04 0.5915 0.0062 76.68 6.11 53.50 5.10 4.01 0.24 1.91 0.34 546.65 5.03
LEN post 80.11 0.5664 0.0033 57.84 3.90 24.00 4.62 3.66 0.21 1.15 0.31 568.86 6.55
LEN dyn 80.11 0.5718 0.0071 57.79 5.58 25.45 8.26 3.74 0.36 1.29 0.52 568.94 7.07
DSN100 none 96.19 0.1230 0.0013 28.01 2.23 13.30 1.95 1.47 0.10 0.55 0.13 871.27 0.72
DSN100 pre 96.19 0.1227 0.0013 27.92 2.56 13.00 2.17 1.46 0.10 0.54 0.12 870.62 0.91
DSN100 post 96.19 0.1228 0.0015 28.27 2.94 13.27 1.80 1.47 0.13 0.55 0.13 870.24 3.31
DSN100 dyn 96.19 0.1224 0.0015 27.15 2.58 11.16 1.93 1.43 0.13 0.45 0.11 867.59 3.52
DSN121 none 96.35 0.1202 0.0010 27.98 1.17 15.31 1.46 1.43 0.12 0.69 0.14 895.02 0.59
DSN121 pre 96.35 0.1198 0.0012 27.85 1.33 15.08 1.46 1.42 0.12 0.67 0.13 894.55 0.98
DSN121 post 96.35 0.1194 0.0027 27.37 2.67 14.54 2.73 1.41 0.14 0.64 0.21 892.48 8.64
DSN121 dyn 96.35 0.1191 0.0012 27.66 1.56 14.60 2.42 1.42 0.15 0.66 0.14 894.06 3.28
RSN none 96.51 0.1081 0.0008 25.14 1.34 11.73 1.39 1.37 0.10 0.58 0.10 894.64 1.07
RSN pre 96.51 0.1073 0.0009 24.54 2.04 10.01 1.12 1.32 0.10 0.50 0.11 891.23 1.80
RSN post 96.51 0.1069 0.0007 23.96 1.35 8.83 0.96 1.32 0.15 0.50 0.09 881.57 4.60
RSN dyn 96.51 0.1070 0.0007 23.84 1.84 8.57 1.54 1.30 0.15 0.47 0.13 883.58 5.70
""")


def _parse_single(text: str) -> dict:
    out: dict = {}
    for line in text.strip().splitlines():
        data, topo, share, *values = line.split()
        out.setdefault(data, {}).setdefault(topo, {})[int(share)] = dict(
            zip(("accuracy", "nll", "acce", "ace", "ecce", "ece"), map(float, values)))
    return out


#: Tables 3 (CIFAR-100) and 4 (CIFAR-10): dataset -> topology -> % of training images -> metric -> value.
WG_PAPER_SINGLE = _parse_single("""
cifar100 LEN 100 42.47 2.2730 21.07 7.62 13.05 1.82
cifar100 LEN 90 42.12 2.2652 22.80 10.11 13.20 2.86
cifar100 DSN100 100 76.71 1.1022 30.54 25.85 14.53 12.65
cifar100 DSN100 90 76.00 1.0591 30.22 24.55 13.91 11.72
cifar100 DSN121 100 80.00 0.8438 23.39 17.29 11.52 8.59
cifar100 DSN121 90 78.87 0.8981 24.83 19.00 11.99 9.41
cifar100 RSN 100 80.99 0.7711 18.67 8.68 10.25 5.02
cifar100 RSN 90 80.06 0.7985 18.72 8.83 10.23 4.76
cifar10 LEN 100 75.07 0.7329 60.85 23.97 3.55 1.24
cifar10 LEN 90 75.31 0.7280 77.17 44.49 4.16 2.09
cifar10 DSN100 100 95.39 0.2003 61.04 54.74 3.04 2.77
cifar10 DSN100 90 94.92 0.2181 65.50 60.54 3.27 2.99
cifar10 DSN121 100 95.66 0.1832 61.56 56.63 3.01 2.87
cifar10 DSN121 90 95.53 0.1993 62.79 57.16 3.06 2.89
cifar10 RSN 100 95.98 0.1524 51.67 46.70 2.61 2.35
cifar10 RSN 90 95.52 0.1692 58.07 52.70 2.89 2.62
""")

_TOPOLOGIES = ("LEN", "DSN100", "DSN121", "RSN")


def _parse_combination(text: str, *, raw: bool = False) -> list:
    """'table weighting w_LEN w_DSN100 w_DSN121 w_RSN struct ens acc nll ace ece' -> row dicts."""
    rows = []
    for line in text.strip().splitlines():
        table, weighting, *w, struct, ens, acc, nll, ace, ece = line.split()
        weights = {t: float(v) for t, v in zip(_TOPOLOGIES, w) if v != "-"}
        rows.append(dict(table=table, weighting=weighting, topologies=tuple(weights), weights=weights,
                         structure=None if struct == "-" else struct, ensemble=None if ens == "-" else ens,
                         accuracy=float(acc), nll=float(nll),
                         ace=float(ace) / (1e-4 if raw else 1.0), ece=float(ece) / (1e-2 if raw else 1.0)))
    return rows


#: Tables 2 (Max LL), 6 (AUC) and 7 (CIFAR-100): one dict per row with ``table``, ``weighting``
#: ("ml", "auc", "uniform"), ``topologies``, ``weights``, ``structure`` / ``ensemble`` calibration
#: (None, "post", "dyn"), accuracy (%), NLL, ACE (1e-4) and ECE (1e-2).
WG_PAPER_COMBINATION = _parse_combination("""
2 ml 0.02 0.19 0.30 0.49 post - 83.75 0.5766 4.97 2.24
2 ml 0.02 0.19 0.30 0.49 post post 83.75 0.5698 1.42 1.20
2 ml - 0.22 0.30 0.48 post - 83.80 0.5741 3.74 2.00
2 ml - 0.22 0.30 0.48 post post 83.80 0.5714 1.52 1.29
2 ml - - 0.44 0.56 post - 83.86 0.5816 3.64 2.06
2 ml - - 0.44 0.56 post post 83.86 0.5801 2.36 1.35
6 auc 0.20 0.26 0.27 0.27 post - 83.30 0.6649 20.84 10.07
6 auc 0.20 0.26 0.27 0.27 post post 83.30 0.6096 2.60 2.00
6 auc - 0.33 0.33 0.34 post - 83.55 0.5776 3.67 1.89
6 auc - 0.33 0.33 0.34 post post 83.55 0.5787 3.03 1.38
6 auc - - 0.49 0.51 post - 83.78 0.5820 3.54 2.03
6 auc - - 0.49 0.51 post post 83.78 0.5805 2.30 1.34
""") + _parse_combination("""
7 uniform - 0.33 0.33 0.33 - - 83.54 0.5846 0.0007 0.0334
7 uniform - 0.33 0.33 0.33 - post 83.54 0.5769 0.0002 0.0132
7 uniform - 0.33 0.33 0.33 - dyn 83.54 0.5751 0.0002 0.0099
7 uniform - 0.33 0.33 0.33 post - 83.57 0.5779 0.0004 0.0189
7 uniform - 0.33 0.33 0.33 post post 83.57 0.5778 0.0002 0.0118
7 uniform - 0.33 0.33 0.33 dyn - 83.59 0.5771 0.0004 0.0211
7 uniform - 0.33 0.33 0.33 dyn dyn 83.59 0.5730 0.0002 0.0112
7 ml - 0.22 0.39 0.39 - - 83.78 0.5822 0.0007 0.0327
7 ml - 0.22 0.39 0.39 - post 83.78 0.5724 0.0002 0.0135
7 ml - 0.22 0.39 0.39 - dyn 83.78 0.5705 0.0002 0.0113
7 ml - 0.22 0.30 0.48 post - 83.80 0.5741 0.0004 0.0200
7 ml - 0.22 0.30 0.48 post post 83.80 0.5714 0.0002 0.0129
7 ml - 0.23 0.31 0.46 dyn - 83.75 0.5741 0.0004 0.0211
7 ml - 0.23 0.31 0.46 dyn dyn 83.75 0.5700 0.0002 0.0153
7 uniform 0.25 0.25 0.25 0.25 - - 83.34 0.7238 0.0032 0.1551
7 uniform 0.25 0.25 0.25 0.25 - post 83.34 0.6043 0.0003 0.0196
7 uniform 0.25 0.25 0.25 0.25 - dyn 83.34 0.6027 0.0002 0.0122
7 uniform 0.25 0.25 0.25 0.25 post - 83.25 0.6947 0.0025 0.1224
7 uniform 0.25 0.25 0.25 0.25 post post 83.25 0.6262 0.0004 0.0218
7 uniform 0.25 0.25 0.25 0.25 dyn - 83.22 0.6978 0.0026 0.1258
7 uniform 0.25 0.25 0.25 0.25 dyn dyn 83.22 0.6184 0.0002 0.0137
7 ml 0.01 0.19 0.42 0.38 - - 83.74 0.5859 0.0008 0.0374
7 ml 0.01 0.19 0.42 0.38 - post 83.74 0.5710 0.0001 0.0114
7 ml 0.01 0.19 0.42 0.38 - dyn 83.74 0.5703 0.0001 0.0085
7 ml 0.02 0.19 0.30 0.49 post - 83.75 0.5766 0.0005 0.0224
7 ml 0.02 0.19 0.30 0.49 post post 83.75 0.5698 0.0001 0.0120
7 ml 0.02 0.21 0.30 0.47 dyn - 83.77 0.5784 0.0006 0.0282
7 ml 0.02 0.21 0.30 0.47 dyn dyn 83.77 0.5698 0.0002 0.0167
""", raw=True)

#: App. A.3: Alg. 1's ensemble ACE (Fig. 4, K = 4, M = 10, b = 2, N = 10⁶), Alg. 2's sample and
#: theoretical ACE (Eqs. 46-50), Example 1's all-label (0) and top-label (≠ 0) errors.
WG_PAPER_TOYS = {"alg1_ensemble_ace": 0.0697, "alg2_sample_ace": 0.0, "alg2_theoretical_ace": 9 / 32,
                 "example1_ace": 0.0}

#: The paper's qualitative findings (Sec. 4.3 and App. A.4) that the chapter checks.
WG_PAPER_FINDINGS = {
    "fig1_temperature": "the ensemble's optimal temperature is smaller than the members' (Fig. 1, middle row)",
    "fig1_reliability": "the ensemble of calibrated members is under-confident: its curve lies above the diagonal",
    "fig1_accuracy": "the ensemble's accuracy is flat over a wide range of member temperatures",
    "table1": "pre, post and dyn. all improve the ensemble's ECE, dyn. best; post/dyn. never change accuracy",
    "fig3": "more regions tend to improve the calibration of dynamic temperature scaling",
    "table2": "Max-LL weights favour the strongest topology (RSN) and give LeNet almost none",
    "table6": "AUC weights are much more even than Max-LL weights",
    "fig2": "an ensemble of calibrated structures is not calibrated; ensemble calibration lowers its ECE",
}


def wg_paper_reference(dataset: str) -> dict:
    """The paper's tables that a dataset is compared with.

    CIFAR-100 is compared with Tables 1 and 3; every other dataset (CIFAR-10, and 10-class data such
    as Fashion-MNIST) with the CIFAR-10 Tables 5 and 4. Returns ``ensemble_name``, ``ensemble`` (as
    :data:`WG_PAPER_TABLE1`), ``single_name`` and ``single``: the single models trained on 90 % of
    the images in the same layout (topology -> ``"none"`` -> metric -> (value, NaN)).

    Examples
    --------
    >>> wg_paper_reference("cifar100")["ensemble_name"], wg_paper_reference("fashion_mnist")["single_name"]
    ('Table 1 (CIFAR-100)', 'Table 4 (CIFAR-10)')
    >>> wg_paper_reference("cifar10")["single"]["LEN"]["none"]["accuracy"]
    (75.31, nan)
    """
    c100 = str(dataset).lower().replace("-", "").replace("_", "") == "cifar100"
    key = "cifar100" if c100 else "cifar10"
    single = {t: {"none": {m: (v, float("nan")) for m, v in rows[90].items()}}
              for t, rows in WG_PAPER_SINGLE[key].items()}
    return dict(ensemble_name="Table 1 (CIFAR-100)" if c100 else "Table 5 (CIFAR-10)",
                ensemble=WG_PAPER_TABLE1 if c100 else WG_PAPER_TABLE5,
                single_name="Table 3 (CIFAR-100)" if c100 else "Table 4 (CIFAR-10)", single=single)
