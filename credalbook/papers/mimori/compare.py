"""The "Paper vs. this book" rows of the Mimori et al. (2022) chapter, from a plain results dict.

The chapter assembles its results (numbers, the metric tables of
:func:`~credalbook.papers.mimori.evaluate_predictors` and their bootstrap resamples from
:func:`~credalbook.papers.mimori.bootstrap_metrics`) into one dict and calls :func:`compare`; the
paper's side of every row comes from ``reported.json`` (:func:`credalbook.papers.report.reported`).

Every row goes through a judge of :mod:`credalbook.papers.criteria`. Standard errors of differences
between predictors come from a paired bootstrap over the test instances, and, where the chapter pools
several training seeds (``n_seeds``), from a two-level bootstrap over seeds and test instances
(:func:`~credalbook.papers.mimori.pool_seeds`); those of Fig. 2 from its ten runs. Where a claim is "method X
helps", the row also judges X against the simplest control that would help too (``controls``). The paper's numbers are on other data (Mix-MNIST, Mix-CIFAR-10, the private MDS), so the rows
judge the direction of each of the paper's findings, not its digits, and say the setting in the note.

What holds by construction is not a row (it is asserted in ``tests/papers/mimori``): α-calibration
leaves the CPEs (Acc, L̂sq, ÊL, ĈE) unchanged; ts keeps accuracy; the mean Δ^D of App. F.2 has the
sign of T − 1; Prop. 2 (ÊL unbiased), Theorem 1 and Fig. 3 (the optimal log α0 narrows as λ_α grows)
are mathematical facts the chapter checks numerically.

References
----------
Mimori, Sasada, Matsui, Sato. Diagnostic Uncertainty Calibration: Towards Reliable Machine
Predictions in Medical Domain. arXiv:2007.01659 (2022).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from credalbook.papers.criteria import combine, ordered, sign_claim
from credalbook.papers.mimori.controls import best_constant_alpha0
from credalbook.papers.premises import not_decided_by_paper
from credalbook.papers.report import check_results, Comparison, reported

__all__ = ["POST_ROWS", "compare"]

#: The predictors of Table 2 (prior and posterior CPEs), in the paper's order.
POST_ROWS = ("Raw+α", "Raw+ts+α", "MCDO", "MCDO+ts", "TTA", "TTA+ts")

_CHAPTER = "03_mimori_label_histograms"
_KEYS = ("dataset", "data_name", "metrics", "boot", "fig2")
_BOOT = "paired bootstrap over the test instances"
_NAMES = {
    "EL": "ÊL",
    "CE": "ĈE",
    "CL": "ĈL",
    "L_sq": "L̂sq",
    "Acc": "Acc",
    "L_phi": "L̂φ",
    "CE_phi": "ĈEφ",
    "CE_phi mass": "ĈEφ (equal-mass bins)",
    "EL post": "ÊL post",
}
_REAL = {"mnist": "Mix-MNIST", "cifar10": "Mix-CIFAR-10"}


def _dot(value: float) -> str:
    """A value as the paper prints it: four decimals without the leading zero (``.2216``)."""
    return f"{value:.4f}".lstrip("0")


def _se(x) -> float:
    """Standard deviation of bootstrap replicates: the standard error of the statistic."""
    return float(np.std(np.asarray(x, dtype=float), ddof=1))


def _cfg_name(data_name, c) -> str:
    return f"{data_name}({c})" if c != "variable" else "MDS-like"


def _diff_claim(metrics, boot, c, a, b, key, relation, data_name):
    """``metric(a) − metric(b)`` ``relation`` 0, with its paired-bootstrap standard error."""
    d = metrics[c][a][key] - metrics[c][b][key]
    se = _se(boot[c][a][key] - boot[c][b][key])
    return sign_claim(
        d,
        relation=relation,
        se=se,
        name=f"{_NAMES[key]}({a}) − {_NAMES[key]}({b}) [{_cfg_name(data_name, c)}]",
        replicates=len(boot[c][a][key]),
        tolerance_source=f"2 × the {_BOOT}",
    )


def _q(claims: dict, key: str) -> str:
    """The paper's words for a claim, in quotation marks (``reported.json``, ``claims``)."""
    return f'"{claims[key]["paper"]}"'


def _verdicts(judgements) -> str:
    vs = [j.verdict for j in judgements]
    return ", ".join(f"{vs.count(v)} {v}" for v in ("agrees", "differs", "inconclusive") if vs.count(v))


@dataclass(frozen=True)
class _Setting:
    """What the rows share: the book's numbers and names, the paper's numbers and the note on the shared network."""

    dataset: str
    data_name: str
    metrics: dict
    boot: dict
    temperatures: dict
    numbers: dict
    same_net: str
    controls: dict = None
    controls_boot: dict = None
    dpe_gap: dict = None
    tta: dict = None
    mds_full: dict = None
    discordance: dict = None

    @property
    def claims(self) -> dict:
        """The paper's words per claim (``reported.json``, ``claims``)."""
        return self.numbers["claims"]["values"]

    @property
    def configs(self) -> list:
        """The validation settings, in the order of ``metrics``."""
        return list(self.metrics)

    @property
    def mix_cfgs(self) -> list:
        """The validation settings with a fixed number of labels (all but ``"variable"``)."""
        return [c for c in self.configs if c != "variable"]

    def diff(self, c, a, b, key, relation):
        """:func:`_diff_claim` of ``metric(a) − metric(b)`` in setting ``c`` (a or b may name a control)."""
        if self.controls and (a in self.controls.get(c, {}) or b in self.controls.get(c, {})):
            m = {c: {**self.metrics[c], **self.controls[c]}}
            bt = {c: {**self.boot[c], **self.controls_boot[c]}}
            return _diff_claim(m, bt, c, a, b, key, relation, self.data_name)
        return _diff_claim(self.metrics, self.boot, c, a, b, key, relation, self.data_name)

    def value(self, c, name, key) -> float:
        """The metric ``key`` of the predictor or control ``name`` in setting ``c``."""
        return (self.metrics[c] if name in self.metrics[c] else self.controls[c])[name][key]

    def has_control(self, c, name) -> bool:
        """Whether the control `name` of setting ``c`` was computed."""
        return bool(self.controls) and name in self.controls.get(c, {})


def _setting(results: dict, numbers: dict) -> _Setting:
    """The :class:`_Setting` of checked `results`, with the note that the validation settings share one network."""
    dataset, data_name, metrics = results["dataset"], results["data_name"], results["metrics"]
    same_net = (
        f"{data_name} stands in for Mix-MNIST and Mix-CIFAR-10 and the MDS-like setting (the same test images "
        "with 1 + Poisson labels) for MDS; the validation settings "
        + ", ".join(map(str, list(metrics)))
        + (
            f" share one network and one test split per seed ({results['n_seeds']} seeds pooled: standard errors from "
            "a two-level bootstrap over seeds and test instances)"
            if results.get("n_seeds", 1) > 1
            else " share one network and one test split (one seed: the standard errors leave out the variance of "
            "training)"
        )
        + ", so this is one verdict, not one per setting"
        + (
            ""
            if all("TTA" in m for m in metrics.values())
            else "; no TTA among these predictors: the network trains without augmentation (as the paper's "
            "Mix-MNIST), and TTA is judged in its own setting (Table 5's row) where there is one"
        )
    )
    if _REAL.get(dataset):
        same_net = same_net.replace(
            f"{data_name} stands in for Mix-MNIST and Mix-CIFAR-10 and", f"{data_name} is the paper's data;"
        )
    return _Setting(
        dataset,
        data_name,
        metrics,
        results["boot"],
        results.get("temperatures", {}),
        numbers,
        same_net,
        results.get("controls"),
        results.get("controls_boot"),
        results.get("dpe_gap"),
        results.get("tta"),
        results.get("mds_full"),
        results.get("discordance"),
    )


def compare(results: dict, *, chapter: str = _CHAPTER) -> Comparison:
    """The chapter's comparison rows: each finding of the paper next to ours, judged by a criterion that can fail.

    Parameters
    ----------
    results : dict
        What the chapter computed, as plain numbers and arrays:

        - ``dataset`` (``"fashion_mnist"``, ``"mnist"``, ...) and ``data_name`` (``"Mix-Fashion-MNIST"``);
        - ``fig2``: ``n_instances``, ``n_labels`` and ``estimates``, ``{(quantity, estimator, n_labels):
          array (n_runs, len(n_instances))}`` of :class:`~credalbook.papers.mimori.DebiasingStudy`;
        - ``metrics``: ``{config: {predictor: {metric: value}}}`` for configs 2, 5 and ``"variable"``
          (:func:`~credalbook.papers.mimori.evaluate_predictors`, predictors in table order);
        - ``boot``: ``{config: {predictor: {metric: array (n_boot,)}}}``, the same metrics on shared
          bootstrap resamples of the test instances (:func:`~credalbook.papers.mimori.bootstrap_metrics`).
        - ``temperatures`` (optional): ``{config: T}`` of temperature scaling; where some T < 1 the row
          "ts degrades the DPEs" names the App. F.2 section as the cause when it differs.
        - ``controls``, ``controls_boot`` (optional): the same metrics and resamples (the same seed) for the
          controls of ``MimoriPredictions.controls`` ("X+γ", "MCDO+ts(ens)",
          "MCDO (Σ)", …): the α rows are judged against the constant DPE shrinkage as well, the ts row of Table 6
          names the ensemble-aware fit as its cause where that fit computes it.
        - ``tta`` (optional): ``{"metrics", "boot", "setting"}`` of the named TTA setting (a network trained and
          tested with strong augmentation); the TTA row is judged there. ``n_seeds`` (optional): seeds pooled by
          :func:`~credalbook.papers.mimori.pool_seeds`, said in the notes.
        - ``mds_full`` (optional): ``{"metrics", "boot"}`` ({predictor: …} of the "variable" setting) of the network
          trained on every label (``train_labels``), ``base_metrics``, ``base_boot`` of the one-label network of the
          same seed, ``train_labels`` and ``seed``: the rows of Table 6 (MDS-full) and Fig. 6 are judged on them.
        - ``dpe_gap`` (optional): ``{config: {predictor: array (N,)}}``, DPE minus the unbiased disagreement of
          each test instance (NaN where it has one label), for the App. F.2 row "DPEs without α overestimate".
    chapter : str
        The comparison's name (the results file's stem).

    Returns
    -------
    Comparison
        Rows for Fig. 2, Tables 1, 2, 4, 5, 6 (MDS-1 and MDS-full), App. F.2, Fig. 6 and the data sets.

    Raises
    ------
    TypeError
        If `results` is not a dict.
    ValueError
        If `results` lacks one of the keys above.

    Examples
    --------
    The paper's side of each row comes from ``reported.json``; ``results`` holds only our numbers:

    >>> from credalbook.papers.report import reported
    >>> reported("mimori")["table4"]["values"]["Mix-MNIST(2)"]["Raw+ts"]["EL"]
    0.0379
    """
    check_results(results, _KEYS)
    s = _setting(results, reported("mimori"))
    cmp = Comparison(chapter)
    _fig2(cmp, s, results["fig2"])
    _table4(cmp, s)
    _table6_ts(cmp, s)
    _table5(cmp, s)
    _table1_alpha(cmp, s)
    _table1_ts(cmp, s)
    _table2_posterior(cmp, s)
    _table2_ensembles(cmp, s)
    _table6_vs_ms(cmp, s)
    _claims_without_rows(cmp, s)
    _table6_full_fig6(cmp, s)
    _data_sets(cmp, s)
    return cmp


def _fig2(cmp: Comparison, s: _Setting, fig2: dict) -> None:
    """Fig. 2: debiased against plug-in EL and CL of a perfect predictor (ten runs: their standard error)."""
    sizes = list(fig2["n_instances"])
    for n in fig2["n_labels"]:
        parts = []
        for q in ("EL", "CL"):
            pl, db = (np.asarray(fig2["estimates"][(q, e, n)], dtype=float) for e in ("plug-in", "debiased"))
            runs = pl.shape[0]
            for j, size in enumerate(sizes):
                se_pl, se_db = (x[:, j].std(ddof=1) / np.sqrt(runs) for x in (pl, db))
                parts.append(
                    ordered(
                        abs(db[:, j].mean()),
                        pl[:, j].mean(),
                        relation="<",
                        se_a=se_db,
                        se_b=se_pl,
                        names=(f"|debiased {q}| (N={size})", f"plug-in {q}"),
                        replicates=runs,
                        tolerance_source=f"2 × the standard error over {runs} runs",
                    )
                )
        j = combine(
            parts, criterion=f"|mean debiased| < mean plug-in (the bias) for EL and CL at N = {sizes[0]} … {sizes[-1]}"
        )
        big = sizes.index(max(sizes))
        est = {k: np.asarray(v, dtype=float).mean(axis=0)[big] for k, v in fig2["estimates"].items() if k[2] == n}
        cmp.add(
            "Fig. 2",
            f"perfect predictor, {n} labels per instance: debiased EL and CL closer to the truth (0) than plug-in",
            paper=_q(s.claims, "fig2"),
            book=f"N = {max(sizes):,}: EL {est[('EL', 'plug-in', n)]:.4f} (plug-in) vs {est[('EL', 'debiased', n)]:.4f}; "
            f"CL {est[('CL', 'plug-in', n)]:.5f} vs {est[('CL', 'debiased', n)]:.5f}",
            judgement=j,
            note="the paper's setting (U(0, 1) positive probabilities, ten runs); each N and quantity must agree",
        )


def _table4(cmp: Comparison, s: _Setting) -> None:
    """Table 4 (and 5): ts lowers ÊL and ĈE of Raw."""
    metrics, t4 = s.metrics, s.numbers["table4"]["values"]
    parts = [s.diff(c, "Raw+ts", "Raw", k, "<") for c in s.mix_cfgs for k in ("EL", "CE")]
    cmp.add(
        "Table 4 (Table 5)",
        "ts lowers ÊL and ĈE of Raw",
        paper=_q(s.claims, "ts_cpe")
        + " Mix-MNIST(2): ÊL "
        + f"{_dot(t4['Mix-MNIST(2)']['Raw']['EL'])} → {_dot(t4['Mix-MNIST(2)']['Raw+ts']['EL'])}, "
        f"ĈE {_dot(t4['Mix-MNIST(2)']['Raw']['CE'])} → {_dot(t4['Mix-MNIST(2)']['Raw+ts']['CE'])}",
        book="; ".join(
            f"({c}) ÊL {metrics[c]['Raw']['EL']:.4f} → {metrics[c]['Raw+ts']['EL']:.4f}, "
            f"ĈE {metrics[c]['Raw']['CE']:.4f} → {metrics[c]['Raw+ts']['CE']:.4f}"
            for c in s.mix_cfgs
        ),
        judgement=combine(parts, criterion="ĈE and ÊL of Raw+ts below Raw's, per validation setting"),
        cause=(
            "the temperature scan below Table 4 (T fitted by the NLL is larger than the T the squared-loss "
            "metrics want)"
        ),
        note=s.same_net + "; 'kept accuracy' holds by construction (tested, not a row)",
    )


def _table6_ts(cmp: Comparison, s: _Setting) -> None:
    """Table 6: ts lowers ÊL and ĈL of Raw, MCDO and TTA (MDS; the MDS-like setting, where there is one)."""
    if "variable" not in s.metrics:
        return
    mv = s.metrics["variable"]
    bases = [b for b in ("Raw", "MCDO", "TTA") if b in mv]
    per_base = {b: [s.diff("variable", b + "+ts", b, k, "<") for k in ("EL", "CL")] for b in bases}
    parts = [j for b in bases for j in per_base[b]]
    failing = [b for b in bases if combine(per_base[b]).verdict == "differs"]
    causes, shown = [], []
    for b in failing:
        ens = f"{b}+ts(ens)"
        if b == "Raw":
            causes.append(
                "Raw: the temperature scan below Table 4 (the NLL-fitted T is larger than the squared loss wants)"
            )
        elif s.has_control("variable", ens):
            fixed = [s.diff("variable", ens, b, k, "<") for k in ("EL", "CL")]
            if combine(fixed).verdict != "differs":
                ce = s.controls["variable"][ens]
                causes.append(
                    f"{b}: the section on ensembles and temperature (T fitted to the validation ensemble mean: "
                    f"ÊL {mv[b]['EL']:.4f} → {ce['EL']:.4f}, ĈL {mv[b]['CL']:.4f} → {ce['CL']:.4f}; "
                    f"{_verdicts(fixed)})"
                )
                shown.append(b)
    cause = "; ".join(causes) if len(causes) == len(failing) else ""
    cmp.add(
        "Table 6 (MDS-1)",
        "ts lowers ÊL and ĈL of Raw, MCDO and TTA",
        paper=_q(s.claims, "ts_cpe_mds"),
        book="; ".join(
            f"{b}: ÊL {mv[b]['EL']:.4f} → {mv[b + '+ts']['EL']:.4f}, ĈL {mv[b]['CL']:.4f} → {mv[b + '+ts']['CL']:.4f}"
            for b in bases
        ),
        judgement=combine(parts),
        cause=cause,
        note=f"MDS-like setting: the {s.data_name} test images with a variable number of labels (MDS is private); "
        "ts is fitted on the deterministic network and applied to every MCDO / TTA member, as in the authors' "
        "pipeline (lh_mixed_calib.mk); the paper's own Table 6 has TTA+ts above TTA in ÊL on MDS-1 (.0378 → .0379)"
        + (
            ""
            if "TTA" in bases
            else "; judged on " + " and ".join(bases) + " only: this network trains without augmentation, so it has "
            "no TTA (as the paper's Mix-MNIST), and the TTA setting has no variable-count labels"
        ),
    )


def _table5(cmp: Comparison, s: _Setting) -> None:
    """Table 5 (and Table 6): TTA beats Raw and MCDO in Acc, L̂sq and ÊL (not run without TTA)."""
    metrics, data_name = s.metrics, s.data_name
    c0 = s.mix_cfgs[0]
    tta = s.tta or {}
    setting = ""
    if tta:  # the named TTA setting: its own network, trained and tested with strong augmentation
        metrics, setting = tta["metrics"], tta.get("setting", "a named TTA setting")
        s = _Setting(s.dataset, s.data_name, metrics, tta["boot"], {}, s.numbers, s.same_net)
    t5 = s.numbers["table5"]["values"]["Mix-CIFAR-10(2)"]
    paper_t5 = (
        _q(s.claims, "tta")
        + " (App. F.1; the same words for MDS, App. F.3). Mix-CIFAR-10(2): "
        + "; ".join(
            f"{_NAMES[k]} TTA {_dot(t5['TTA'][k])} vs Raw {_dot(t5['Raw'][k])}, MCDO {_dot(t5['MCDO'][k])}"
            for k in ("Acc", "L_sq", "EL")
        )
    )
    if "TTA" not in metrics[c0]:
        cmp.not_run(
            "Table 5 (Table 6)",
            "TTA beats Raw and MCDO in Acc, L̂sq and ÊL",
            paper=paper_t5,
            reason=f"no TTA for {data_name}: the network was trained without augmentation (as the paper's Mix-MNIST)",
            tested_by="tests/papers/mimori/test_experiments.py::TestMimoriPredictions",
        )
        return
    parts = [
        s.diff(c0, "TTA", b, k, ">" if k == "Acc" else "<") for b in ("Raw", "MCDO") for k in ("Acc", "L_sq", "EL")
    ]
    cmp.add(
        "Table 5 (Table 6)",
        "TTA beats Raw and MCDO in Acc, L̂sq and ÊL",
        paper=paper_t5,
        book="; ".join(
            f"{b}: Acc {metrics[c0][b]['Acc']:.4f}, L̂sq {metrics[c0][b]['L_sq']:.4f}, ÊL {metrics[c0][b]['EL']:.4f}"
            for b in ("Raw", "MCDO", "TTA")
        ),
        judgement=combine(parts),
        note=(
            f"{data_name}, the TTA setting: {setting}"
            if setting
            else f"{data_name} with mild flips, shifts and rotations (our choice; the paper trains Mix-CIFAR-10 and "
            "MDS with augmentation and runs TTA there)"
        )
        + ", test histograms of 10 labels; Table 6 makes the same claim for MDS, "
        "which on our data is the same network and images: one verdict",
    )


def _table1_alpha(cmp: Comparison, s: _Setting) -> None:
    """Table 1: α lowers L̂φ and ĈEφ for every base predictor (one row per loss)."""
    paper_counts = []
    for setting, paper in s.numbers["table1"]["values"].items():
        for key in ("L_phi", "CE_phi"):
            pb = [
                n
                for n in paper
                if not n.endswith("+α")
                and n + "+α" in paper
                and paper[n][key] is not None
                and paper[n + "+α"][key] is not None
            ]
            paper_counts.append((setting, key, sum(paper[n + "+α"][key] < paper[n][key] for n in pb), len(pb)))
    for key in ("L_phi", "CE_phi"):
        pairs = [(c, n) for c in s.configs for n in s.metrics[c] if not n.endswith("+α") and n + "+α" in s.metrics[c]]
        parts = [s.diff(c, n + "+α", n, key, "<") for c, n in pairs]
        ctrl_pairs = [(c, n) for c, n in pairs if s.has_control(c, n + "+γ")]
        ctrl = [s.diff(c, n + "+α", n + "+γ", key, "<") for c, n in ctrl_pairs]
        # causes of α losing to γ, each named before it was computed and each one setting changed:
        # (control suffix whose presence the candidate needs, the predictor judged "<" the other, the metric judged,
        #  words, why it would be the cause)
        candidates = [
            ("+α0", ("+α", "+α0"), key, "α against one α0 fitted by α's own objective (Eq. 50)",
             "the control's objective: γ is fitted by least squares to the validation DPEs' unbiased disagreement (it "
             "minimises L̂φ there), α to the histograms' NLL (Eq. 50), and fitted by α's objective the constant no "
             "longer beats α"),
            ("+α(conv.)", ("+α(conv.)", "+γ"), key, "α's head fitted to convergence against γ",
             "α's fitting schedule (App. E.4: Adam, lr 1e-3, at most 50 epochs, early stopping on 20 % of "
             "validation): fitted to convergence, α is no longer beaten by γ"),
            ("+α+γ", ("+α+γ", "+γ"), key, "α's DPEs times the least-squares constant against γ",
             "the overall level of α's DPEs: rescaled by one least-squares constant fitted on validation, α's DPEs "
             "are no longer beaten by γ, so what γ has over α is its level, not its shape"),
            ("+α(det.)", ("+α(det.)", "+γ"), key, "the ensembles' α0 from the deterministic features against γ",
             "the head's input under the ensembles: fitted on the deterministic network's features, the head is "
             "applied to each member's (Eq. 75, App. D.4: one α0 per member), where it extrapolates; with α0 predicted from "
             "the deterministic features and shared by the members, α is no longer beaten by γ"),
        ]  # fmt: skip
        if key == "CE_phi" and all("CE_phi mass" in s.metrics[c][n] for c, n in pairs):  # L̂φ has no bins
            candidates.append(
                ("+γ", ("+α", "+γ"), "CE_phi mass", "with 15 equal-mass bins of each predictor's DPEs, α against γ",
                 "the binning of ĈEφ: its 15 equal-width bins hold DPEs that α spreads differently from γ, and with "
                 "15 equal-mass bins of each predictor's own DPEs α is no longer beaten by γ")
            )  # fmt: skip
        tried = []  # (words, why, judgements, {base family: its judgements}, {base family: its mean difference})
        for suffix, (a, b), metric, words, why in candidates:
            kept = [(c, n) for c, n in pairs if s.has_control(c, n + suffix)]
            js = [s.diff(c, n + a, n + b, metric, "<") for c, n in kept]
            if js:
                gaps = _by_family([s.value(c, n + a, metric) - s.value(c, n + b, metric) for c, n in kept], kept)
                tried.append((words, why, js, _by_family(js, kept), {f: float(np.mean(g)) for f, g in gaps.items()}))
        theirs = [(st, k, n) for st, key2, k, n in paper_counts if key2 == key]
        book = f"{sum(j.verdict == 'agrees' for j in parts)} of {len(parts)} pairs lower by more than 2 SE ({_verdicts(parts)})"
        criterion = f"{_NAMES[key]}(X+α) < {_NAMES[key]}(X) for every base X and setting"
        if ctrl:
            book += (
                f"; against the constant shrinkage γ·φ fitted on validation: {sum(j.verdict == 'agrees' for j in ctrl)} "
                f"of {len(ctrl)} lower ({_verdicts(ctrl)})"
            )
            criterion += f", and {_NAMES[key]}(X+α) < {_NAMES[key]}(X+γ) (the control)"
        for words, _, js, fams, _ in tried:
            by_fam = ", ".join(f"{f} {sum(j.verdict == 'agrees' for j in g)} of {len(g)}" for f, g in fams.items())
            book += f"; {words}: {sum(j.verdict == 'agrees' for j in js)} of {len(js)} lower ({_verdicts(js)}; by base family, lower in {by_fam})"
        # the cause: every base family with a pair that differs against γ is covered by a candidate that, on every
        # pair of that family, no longer differs (the families: the single network's predictors, MC dropout's, ...)
        only_gamma = ctrl and combine(parts).verdict != "differs" and combine(ctrl).verdict == "differs"
        ctrl_fams = _by_family(ctrl, ctrl_pairs)
        ctrl_gap = _by_family(
            [s.value(c, n + "+α", key) - s.value(c, n + "+γ", key) for c, n in ctrl_pairs], ctrl_pairs
        )
        need = [f for f, g in ctrl_fams.items() if any(j.verdict == "differs" for j in g)]
        covers = {
            f: [
                f"{why} (the mean difference over the family's pairs {gaps[f]:+.4f}, against {np.mean(ctrl_gap[f]):+.4f} "
                f"for X+α − X+γ; {_verdicts(fams[f])})"
                for _, why, _, fams, gaps in tried
                if len(fams.get(f, ())) == len(ctrl_fams[f]) and combine(fams[f]).verdict != "differs"
            ]
            for f in need
        }
        shown = [f"{f} pairs: " + "; ".join(covers[f]) for f in need] if only_gamma and all(covers.values()) else []
        cause = "the section 'α against a constant': " + " — ".join(shown) if shown else ""
        cmp.add(
            "Table 1",
            f"α lowers {_NAMES[key]} of the DPEs of every base predictor",
            paper=_q(s.claims, "alpha_dpe")
            + f"; lower in {sum(k for _, k, _ in theirs)} of {sum(n for *_, n in theirs)} pairs of Table 1",
            book=book,
            judgement=combine(parts + ctrl, criterion=criterion),
            cause=cause,
            note=s.same_net
            + "; the control X+γ shrinks X's DPEs by one constant fitted on the validation histograms (least squares "
            "against their unbiased disagreement): almost any γ < 1 lowers L̂φ on Mix data, where two thirds of the "
            "instances have no disagreement, so α must beat it to show that its instance-wise α0 matters"
            + (
                "; shown beside it, not part of the criterion, each a candidate cause named before it was computed: "
                "X+α0 (one α0 fitted like α's head but without its features, on the same validation CPEs), "
                "X+α(conv.) (α's head fitted by full-batch L-BFGS to convergence), X+α+γ (α's DPEs times the "
                "least-squares constant fitted on its validation DPEs), X+α(det.) for the ensembles (α0 predicted from "
                "the deterministic network's features and shared by the members, instead of one per member from its "
                "own features), and X+α against X+γ with ĈEφ's bins of equal mass (15 per predictor, from its own DPEs) "
                "instead of the paper's equal width; a cause is named when every base family (the single network's "
                "predictors, MC dropout's) that loses to γ is covered by a candidate that no longer loses on any of "
                "its pairs"
                if tried
                else ""
            ),
        )


def _by_family(judgements: list, pairs: list) -> dict:
    """``{base family: [its judgements]}`` in order of appearance, for the judgements of ``pairs`` ``(config, name)``;
    a name's family is its base network's predictor, the part before the first "+" (``"MCDO+ts"`` → ``"MCDO"``)."""
    out: dict = {}
    for j, (_, n) in zip(judgements, pairs, strict=True):
        out.setdefault(n.split("+")[0], []).append(j)
    return out


def _table1_ts(cmp: Comparison, s: _Setting) -> None:
    """Table 1 / App. F.2: ts degrades the DPEs of Raw."""
    metrics, data_name = s.metrics, s.data_name
    sharpened = any(t < 1 for t in s.temperatures.values())
    parts = [s.diff(c, "Raw+ts", "Raw", k, ">") for c in s.configs for k in ("L_phi", "CE_phi")]
    m2 = s.numbers["table1"]["values"]["Mix-MNIST(2)"]
    cmp.add(
        "Table 1 / App. F.2",
        "ts raises L̂φ and ĈEφ of Raw (degrades its DPEs)",
        paper=_q(s.claims, "ts_dpe")
        + f"; Mix-MNIST(2): L̂φ {_dot(m2['Raw']['L_phi'])} → {_dot(m2['Raw+ts']['L_phi'])}, "
        f"ĈEφ {_dot(m2['Raw']['CE_phi'])} → {_dot(m2['Raw+ts']['CE_phi'])}",
        book="; ".join(
            f"{_cfg_name(data_name, c)}: L̂φ {metrics[c]['Raw']['L_phi']:.4f} → {metrics[c]['Raw+ts']['L_phi']:.4f}, "
            f"ĈEφ {metrics[c]['Raw']['CE_phi']:.4f} → {metrics[c]['Raw+ts']['CE_phi']:.4f}"
            for c in s.configs
        ),
        judgement=combine(parts),
        cause=("the App. F.2 section: the fitted T is below 1 (ts sharpens), so Δ^D < 0" if sharpened else ""),
        note=s.same_net
        + "; the mean Δ^D of App. F.2 has the sign of T − 1 by construction (tested; the chapter prints it)",
    )


def _table2_posterior(cmp: Comparison, s: _Setting) -> None:
    """Table 2: the α-calibrated posterior CPEs beat the prior ones."""
    metrics, boot, data_name = s.metrics, s.boot, s.data_name
    t2 = s.numbers["table2"]["values"]["Mix-MNIST(2)"]
    parts = [
        sign_claim(
            metrics[c][n]["EL post"] - metrics[c][n]["EL"],
            relation="<",
            se=_se(boot[c][n]["EL post"] - boot[c][n]["EL"]),
            name=f"ÊL post − ÊL of {n} [{_cfg_name(data_name, c)}]",
            replicates=len(boot[c][n]["EL"]),
            tolerance_source=f"2 × the {_BOOT}",
        )
        for c in s.configs
        for n in ("Raw+α", "Raw+ts+α")
        if n in metrics[c]
    ]
    ctrl, shown = [], []
    for c in s.configs:
        for n in ("Raw+α", "Raw+ts+α"):
            if n not in metrics[c] or "U_Q" not in metrics[c][n]:
                continue
            _, best = best_constant_alpha0(max(metrics[c][n]["EL"], 0.0), max(metrics[c][n]["U_Q"], 0.0))
            _, best_b = best_constant_alpha0(np.clip(boot[c][n]["EL"], 0, None), np.clip(boot[c][n]["U_Q"], 0, None))
            ctrl.append(
                sign_claim(
                    metrics[c][n]["EL post"] - float(best),
                    relation="<",
                    se=_se(boot[c][n]["EL post"] - best_b),
                    name=f"ÊL post of {n} − ÊL post of the best constant α0 [{_cfg_name(data_name, c)}]",
                    replicates=len(boot[c][n]["EL"]),
                    tolerance_source=f"2 × the {_BOOT}",
                )
            )
            if n == "Raw+α":
                shown.append(f"{_cfg_name(data_name, c)} best constant α0: {float(best):.4f}")
    el_paper = t2["Raw+α"]["EL"]
    u_book = [metrics[c]["Raw+α"]["U_Q"] for c in s.configs if "U_Q" in metrics[c]["Raw+α"]]
    cmp.add(
        "Table 2",
        "posterior ÊL below prior ÊL for the α-calibrated predictors",
        paper=_q(s.claims, "alpha_post") + "; Mix-MNIST(2) Raw+α: "
        f"{_dot(t2['Raw+α']['EL'])} → {_dot(t2['Raw+α']['EL post'])}",
        book="; ".join(
            f"{_cfg_name(data_name, c)} Raw+α {metrics[c]['Raw+α']['EL']:.4f} → {metrics[c]['Raw+α']['EL post']:.4f}"
            for c in s.configs
        )
        + ("; control: " + "; ".join(shown) if shown else ""),
        judgement=combine(
            parts + ctrl,
            criterion="ÊL post < ÊL prior"
            + (", and below the best constant α0's EL·ū/(EL + ū) (the control)" if ctrl else ""),
        ),
        note=s.same_net
        + "; with one constant α0 the posterior's EL is γ²·EL + (1 − γ)²·ū_Q (γ = α0/(α0 + 1), ū_Q = E[1 − ΣQ²]); "
        + (f"where EL > ū_Q (the book: ū_Q ≈ {np.mean(u_book):.4f}) " if u_book else "where EL > ū_Q ")
        + "the extra label alone helps, in the paper "
        f"(Mix-MNIST(2) EL {_dot(el_paper)}) it does not: the control is the best constant, "
        "which this row's α must beat",
    )


def _table2_ensembles(cmp: Comparison, s: _Setting) -> None:
    """Table 2: the extra label helps the ensembles less than α (relative ÊL reduction)."""
    metrics, boot, data_name = s.metrics, s.boot, s.data_name
    t2 = s.numbers["table2"]["values"]["Mix-MNIST(2)"]
    parts, shown = [], []
    for c in s.configs:
        ens = [n for n in POST_ROWS if "α" not in n and n in metrics[c]]
        drop = {n: 1 - metrics[c][n]["EL post"] / metrics[c][n]["EL"] for n in ("Raw+α", *ens)}
        best = max(ens, key=drop.get)
        bd = {n: 1 - boot[c][n]["EL post"] / boot[c][n]["EL"] for n in ("Raw+α", best)}
        parts.append(
            ordered(
                drop["Raw+α"],
                drop[best],
                relation=">",
                se_a=_se(bd["Raw+α"] - bd[best]),
                names=(f"relative ÊL reduction of Raw+α [{_cfg_name(data_name, c)}]", f"of {best}"),
                replicates=len(bd[best]),
                tolerance_source=f"2 × the {_BOOT} (of the difference)",
            )
        )
        sigma = s.controls.get(c, {}).get(f"{best} (Σ)") if s.controls else None
        shown.append(
            f"{_cfg_name(data_name, c)}: Raw+α {drop['Raw+α']:.0%}, best ensemble {best} {drop[best]:.0%}"
            + (f" ({1 - sigma['EL post'] / sigma['EL']:.0%} with the authors' Σ-likelihood)" if sigma else "")
        )
    cmp.add(
        "Table 2",
        "the extra label helps ensembles less than α (relative ÊL reduction)",
        paper=_q(s.claims, "ensemble_post") + "; Mix-MNIST(2): Raw+α "
        f"{1 - t2['Raw+α']['EL post'] / t2['Raw+α']['EL']:.0%}, MCDO {1 - t2['MCDO']['EL post'] / t2['MCDO']['EL']:.0%}",
        book="; ".join(shown),
        judgement=combine(parts),
        note=s.same_net
        + "; our ensembles reweight members by Bayes' rule (Eq. 77), the authors' code by Σ_k f_k^{y_k} "
        "(predictions.py:59-60), nearly uniform weights: the book column gives both (the chapter's section on the "
        "Σ-likelihood computes them)",
    )


def _rel_change(rows: dict, n: str) -> float:
    """``|ÊL(n) − ÊL(base)| / ÊL(base)`` of a vs / ms row ``n`` against the predictor it maps (``X+vs`` → ``X``)."""
    return abs(rows[n]["EL"] - rows[n.split("+")[0]]["EL"]) / rows[n.split("+")[0]]["EL"]


def _table6_vs_ms(cmp: Comparison, s: _Setting) -> None:
    """Table 6 (MDS-1): vs / ms change ÊL little (the MDS-like setting, where it has vs / ms rows)."""
    t6 = s.numbers["table6"]["values"]["MDS-1"]
    p_rows = [n for n in t6 if ("+vs" in n or "+ms" in n) and "α" not in n and t6[n]["EL"] is not None]
    p_max = max(p_rows, key=lambda n: _rel_change(t6, n))
    paper_max = _rel_change(t6, p_max)
    if "variable" not in s.metrics or not any("+vs" in n or "+ms" in n for n in s.metrics["variable"]):
        return
    mv, bv = s.metrics["variable"], s.boot["variable"]
    rows = [n for n in mv if ("+vs" in n or "+ms" in n) and "α" not in n]
    b_max = max(rows, key=lambda n: _rel_change(mv, n))
    base_of = b_max.split("+")[0]
    calibrates = abs(mv[b_max]["CL"] - mv[base_of]["CL"]) >= 0.5 * abs(mv[b_max]["EL"] - mv[base_of]["EL"])
    t6_vm = {n: row["EL"] for n, row in t6.items() if ("+vs" in n or "+ms" in n) and row["EL"] is not None}
    t6_el = list(t6_vm.values())
    b_rel = np.max([np.abs(bv[n]["EL"] - bv[n.split("+")[0]]["EL"]) / bv[n.split("+")[0]]["EL"] for n in rows], axis=0)
    cmp.add(
        "Table 6 (MDS-1)",
        "vs / ms change ÊL little: largest relative change against the predictor they map",
        paper=_q(s.claims, "vs_ms") + "; largest in Table 6: "
        f"{p_max} {_dot(t6[p_max]['EL'])} vs {p_max.split('+')[0]} {_dot(t6[p_max.split('+')[0]]['EL'])} ({paper_max:.1%})",
        book=f"{b_max} {mv[b_max]['EL']:.4f} vs {b_max.split('+')[0]} {mv[b_max.split('+')[0]]['EL']:.4f} "
        f"({_rel_change(mv, b_max):.1%})",
        judgement=ordered(
            _rel_change(mv, b_max),
            paper_max,
            relation="<",
            se_a=_se(b_rel),
            names=("the book's largest relative ÊL change", "the paper's largest"),
            replicates=len(b_rel),
            tolerance_source=f"2 × the {_BOOT} of the book's largest change; the paper's number as printed",
        ),
        cause=(
            "the calibration-dispersion map (Fig. 5a): the change is in ĈL — vs / ms calibrate "
            "the class biases of the under-trained network"
            if calibrates
            else ""
        ),
        note="each vs / ms row against its own base (X+vs against X). Table 6's vs / ms rows span ÊL "
        f"{_dot(min(t6_el))}-{_dot(max(t6_el))} around Raw's {_dot(t6['Raw']['EL'])} — a change of up to "
        f"{(t6['Raw']['EL'] - min(t6_el)) / t6['Raw']['EL']:.1%} if {min(t6_vm, key=t6_vm.get)} is set "
        "against Raw — so a bound of 10 % is not the paper's; MDS-like setting: the "
        f"{s.data_name} test images with a variable number of labels",
    )
    raw_rows = [n for n in ("Raw+vs", "Raw+ms") if n in mv]
    if "Raw+ts" in mv and raw_rows:
        _vs_ms_against_ts(cmp, s, raw_rows, t6)


def _vs_ms_against_ts(cmp: Comparison, s: _Setting, raw_rows: list, t6: dict) -> None:
    """Table 6: vs / ms change ÊL of Raw no more than ts does (the control: ts's own change)."""
    mv, bv = s.metrics["variable"], s.boot["variable"]
    worst = max(raw_rows, key=lambda n: abs(mv[n]["EL"] - mv["Raw"]["EL"]))
    d_vm, d_ts = abs(mv[worst]["EL"] - mv["Raw"]["EL"]), abs(mv["Raw+ts"]["EL"] - mv["Raw"]["EL"])
    b_vm = np.max([np.abs(bv[n]["EL"] - bv["Raw"]["EL"]) for n in raw_rows], axis=0)
    b_ts = np.abs(bv["Raw+ts"]["EL"] - bv["Raw"]["EL"])
    p_vm = max(abs(t6[n]["EL"] - t6["Raw"]["EL"]) for n in ("Raw+vs", "Raw+ms") if t6.get(n, {}).get("EL") is not None)
    p_ts = abs(t6["Raw+ts"]["EL"] - t6["Raw"]["EL"])
    judgement = ordered(
        d_vm,
        d_ts + 0.0,
        relation="<",
        se_a=_se(b_vm - b_ts),
        names=("the largest |ΔÊL| of Raw+vs / Raw+ms", "|ΔÊL| of Raw+ts"),
        replicates=len(b_ts),
        tolerance_source=f"2 × the {_BOOT} of the difference",
    )
    if p_vm >= p_ts:  # the paper's own Table 6 fails this reading: not counted against the book
        judgement = not_decided_by_paper(
            judgement,
            f"they fail this criterion (MDS-1: the largest |ΔÊL| of Raw+vs / Raw+ms {_dot(p_vm)} ≥ Raw+ts's "
            f"{_dot(p_ts)}; Table 6 gives no spreads)",
        )
    cmp.add(
        "Table 6 (MDS-1)",
        "vs / ms change ÊL of Raw no more than ts does (ts's own change as the yardstick)",
        paper=_q(s.claims, "vs_ms") + f"; MDS-1: |ΔÊL| of Raw+vs / Raw+ms at most {_dot(p_vm)}, of Raw+ts {_dot(p_ts)}",
        book=f"{worst}: |ΔÊL| {d_vm:.4f}; Raw+ts: {d_ts:.4f}",
        judgement=judgement,
        note="on Raw, where the member-wise application to MCDO / TTA members plays no part; MDS-like setting; "
        "not counted against the book when the paper's own numbers do not meet the criterion",
    )


def _claims_without_rows(cmp: Comparison, s: _Setting) -> None:
    """Sec. 7.2, App. F.1, F.2 and F.3: the claims judged here that earlier had no row."""
    ens = [b for b in ("MCDO", "TTA") if all(b in s.metrics[c] for c in s.configs)]
    if ens:
        parts = [s.diff(c, b, "Raw", k, ">") for c in s.configs for b in ens for k in ("L_phi", "CE_phi")]
        cmp.add(
            "Sec. 7.2 (Table 1)",
            "MCDO and TTA alone do not improve the DPE metrics (not every L̂φ, ĈEφ of MCDO / TTA below Raw's)",
            paper='"in contrast to MCDO and TTA, which had not solely improved the metrics"',
            book="; ".join(
                f"{_cfg_name(s.data_name, c)} {b}: L̂φ {s.metrics[c][b]['L_phi']:.4f} vs Raw "
                f"{s.metrics[c]['Raw']['L_phi']:.4f}, ĈEφ {s.metrics[c][b]['CE_phi']:.4f} vs "
                f"{s.metrics[c]['Raw']['CE_phi']:.4f}"
                for c in s.configs[:1]
                for b in ens
            ),
            judgement=combine(parts, rule="any", criterion="L̂φ or ĈEφ of MCDO / TTA above Raw's in some setting"),
            note=s.same_net,
        )
        cal = [f"{b}+{c}" for b in ens for c in ("ts", "vs", "ms") if f"{b}+{c}" in s.metrics[s.configs[0]]]
        parts = [s.diff(c, n, n.split("+")[0], "EL", ">") for c in s.configs for n in cal]
        cmp.add(
            "App. F.1 (Tables 4, 5)",
            "ts / vs / ms do not consistently lower ÊL of the ensembles (some calibrated ensemble above its base)",
            paper='"the effect of calibration methods for CPEs with ensemble-based predictions was not consistent, '
            'which might be because calibration was not ensemble-aware"',
            book="; ".join(
                f"{n} {s.metrics[s.configs[0]][n]['EL']:.4f} vs {s.metrics[s.configs[0]][n.split('+')[0]]['EL']:.4f}"
                for n in cal
            )
            + f" [{_cfg_name(s.data_name, s.configs[0])}]",
            judgement=combine(
                parts, rule="any", criterion="ÊL(X+cal) > ÊL(X) for some ensemble X, calibrator, setting"
            ),
            note=s.same_net + "; the ensemble-aware temperature (section on ensembles and temperature) is the paper's "
            "suggested remedy",
        )
    if s.dpe_gap:
        parts = []
        for c, gaps in s.dpe_gap.items():
            for n, g in gaps.items():
                g = np.asarray(g, dtype=float)
                g = g[np.isfinite(g)]
                parts.append(
                    sign_claim(
                        float(g.mean()),
                        relation=">",
                        se=float(g.std(ddof=1) / np.sqrt(len(g))),
                        name=f"mean DPE − observed disagreement of {n} [{_cfg_name(s.data_name, c)}]",
                        replicates=len(g),
                        tolerance_source="2 × the standard error over the test instances",
                    )
                )
        first = next(iter(s.dpe_gap))
        cmp.add(
            "App. F.2 (Fig. 1)",
            "DPEs without α overestimate the observed disagreement",
            paper='"DPEs without α-calibration systematically overestimate the empirical disagreement probabilities"',
            book="; ".join(f"{n}: {float(np.nanmean(g)):+.4f}" for n, g in s.dpe_gap[first].items())
            + f" (mean DPE − observed, {_cfg_name(s.data_name, first)})",
            judgement=combine(
                parts, criterion="mean DPE above the mean unbiased disagreement, every predictor without α"
            ),
            note=s.same_net,
        )
    _vs_accuracy(cmp, s)


def _vs_accuracy(cmp: Comparison, s: _Setting) -> None:
    """App. F.3: vs has the highest accuracy (MDS-like, Raw and its calibrators)."""
    if "variable" not in s.metrics or "Raw+vs" not in s.metrics["variable"]:
        return
    mv = s.metrics["variable"]
    t6 = s.numbers["table6"]["values"]["MDS-1"]
    others = [n for n in mv if not n.endswith("+α") and n != "Raw+vs" and "+" in n and n.startswith("Raw")] + ["Raw"]
    best = max(others, key=lambda n: mv[n]["Acc"])
    paper_acc = {n: r["Acc"] for n, r in t6.items() if "α" not in n and r.get("Acc") is not None}
    p_best = max(paper_acc, key=paper_acc.get)
    judgement = s.diff("variable", "Raw+vs", best, "Acc", ">")
    # the paper's own evidence, by the book's criterion (2 SE of a paired difference of accuracies): McNemar's SE
    # sqrt((ρ − d²)/n) needs the share ρ of test images on which the two predictors disagree, which the paper does not
    # give; the book's own ρ for the same two predictors stands in for it, and the row says so
    raw_legible = {n: a for n, a in paper_acc.items() if n.startswith("Raw") and n != "Raw+vs"}
    illegible = " and ".join(n for n in mv if n in others and n not in paper_acc)  # in the table's order
    note = "MDS-like setting; the paper's word is 'slightly': its own margin is a fraction of a point"
    if raw_legible and s.discordance:
        runner = max(raw_legible, key=raw_legible.get)
        d, n = paper_acc["Raw+vs"] - raw_legible[runner], int(s.numbers["mds_data"]["values"]["test_images"])
        rho = s.discordance.get(runner)
        if rho is not None:
            se = math.sqrt(max(rho - d * d, 0.0) / n)
            needed = d * d * (1 + n / 4)  # d > 2 SE iff ρ < d²(1 + n/4)
            decided = sign_claim(d, relation=">", se=se).verdict == "agrees"  # the book's criterion, on the paper
            own = (
                f"its margin {_dot(d)} (Raw+vs over {runner}, MDS-1, {n:,} test images"
                + (f"; {illegible} illegible) " if illegible else ") ")
                + f"is {'beyond' if decided else 'within'} 2 SE = {2 * se:.4f} when the two disagree on "
                f"{rho:.1%} of the images, as on the book's; it decides the claim only if they disagree on fewer "
                f"than {needed:.1%}"
            )
            note += (
                f"; the paper's own numbers: {own} (McNemar's SE of a paired difference; the paper gives no spreads)"
            )
            if not decided:
                judgement = not_decided_by_paper(judgement, own)
                note += "; not counted against the book when the paper's own numbers do not decide it"
    cmp.add(
        "App. F.3 (Table 6)",
        "vs has the highest accuracy (Raw+vs against Raw, Raw+ts, Raw+ms)",
        paper='"vector scaling was slightly better at obtaining the highest accuracy than the other methods"; '
        f"highest in MDS-1: {p_best} {_dot(paper_acc[p_best])}",
        book=f"Raw+vs {mv['Raw+vs']['Acc']:.4f}, best other {best} {mv[best]['Acc']:.4f}",
        judgement=judgement,
        note=note,
    )


def _table6_full_fig6(cmp: Comparison, s: _Setting) -> None:
    """Table 6 (MDS-full) and Fig. 6: not run (MDS-full has no analogue here)."""
    t6 = s.numbers["table6"]["values"]["MDS-1"]
    full = s.numbers["table6"]["values"].get("MDS-full", {})
    if s.mds_full:
        _mds_full_rows(cmp, s, t6, full)
        return
    cmp.not_run(
        "Table 6 (MDS-full)",
        "training on all labels improves L̂sq, ÊL and L̂φ over MDS-1; α still improves the DPEs",
        paper=_q(s.claims, "mds_full") + "; Raw: L̂sq "
        f"{_dot(t6['Raw']['L_sq'])} → {_dot(full['Raw']['L_sq'])}, ÊL {_dot(t6['Raw']['EL'])} → {_dot(full['Raw']['EL'])}"
        if full
        else _q(s.claims, "mds_full"),
        reason="MDS is private, and no honest analogue exists here: the book's base network trains on one label per "
        "instance (train_mix_network), and a Mix network trained on label histograms is not implemented",
        tested_by="tests/papers/mimori/test_experiments.py::TestMimoriPredictions (the MDS-1 pipeline with variable "
        "label counts)",
    )
    cmp.not_run(
        "Fig. 6",
        "calibration-dispersion map and DPE reliability diagram for MDS-full",
        paper="Fig. 6: " + _q(s.claims, "fig6"),
        reason="MDS-full (private, every training label) has no analogue here; the chapter draws Fig. 5's panels for "
        "the MDS-like setting",
        tested_by="tests/papers/mimori/test_figures.py::TestPlotCalibrationDispersionMap, ::TestPlotDPEReliability",
    )


def _mds_full_rows(cmp: Comparison, s: _Setting, t6: dict, full: dict) -> None:
    """Table 6 (MDS-full) and Fig. 6 on the variable-count Mix: a network trained on every label (label replication)
    against the one-label network of the same seed, the same test images and histograms (a paired bootstrap)."""
    mf = s.mds_full
    one, one_b = mf["base_metrics"], mf["base_boot"]
    fm, fb = mf["metrics"], mf["boot"]
    m = {"variable": {**{f"{n} [1]": r for n, r in one.items()}, **{f"{n} [full]": r for n, r in fm.items()}}}
    b = {"variable": {**{f"{n} [1]": r for n, r in one_b.items()}, **{f"{n} [full]": r for n, r in fb.items()}}}
    name = f"variable-count Mix trained on every label (mean {mf['train_labels']:g} per image, label replication)"
    gain = [
        _diff_claim(m, b, "variable", "Raw [full]", "Raw [1]", k, "<", s.data_name) for k in ("L_sq", "EL", "L_phi")
    ]
    alpha = [
        _diff_claim(m, b, "variable", f"{n}+α [full]", f"{n} [full]", k, "<", s.data_name)
        for n in fm
        if not n.endswith("+α") and f"{n}+α" in fm
        for k in ("L_phi", "CE_phi")
    ]
    cmp.add(
        "Table 6 (MDS-full)",
        "training on all labels improves L̂sq, ÊL and L̂φ over MDS-1; α still improves the DPEs",
        paper=_q(s.claims, "mds_full")
        + (
            f"; Raw: L̂sq {_dot(t6['Raw']['L_sq'])} → {_dot(full['Raw']['L_sq'])}, ÊL {_dot(t6['Raw']['EL'])} → "
            f"{_dot(full['Raw']['EL'])}"
            if full
            else ""
        ),
        book=f"Raw: L̂sq {one['Raw']['L_sq']:.4f} → {fm['Raw']['L_sq']:.4f}, ÊL {one['Raw']['EL']:.4f} → "
        f"{fm['Raw']['EL']:.4f}, L̂φ {one['Raw']['L_phi']:.4f} → {fm['Raw']['L_phi']:.4f}; α lowers the DPE losses "
        f"in {sum(j.verdict == 'agrees' for j in alpha)} of {len(alpha)} pairs",
        judgement=combine(
            gain + alpha,
            criterion="L̂sq, ÊL, L̂φ of Raw lower when trained on every label; "
            "L̂φ(X+α) < L̂φ(X) and ĈEφ(X+α) < ĈEφ(X) for every base X of the full network",
        ),
        note=f"{name}; MDS-1 is the one-label network of the same seed ({mf.get('seed', 0)}) on the same test images "
        "and histograms, so the bootstrap is paired; one seed",
    )
    fig6 = [
        _diff_claim(m, b, "variable", f"{n}+α [full]", f"{n} [full]", "CE_phi", "<", s.data_name)
        for n in fm
        if not n.endswith("+α") and f"{n}+α" in fm
    ]
    cmp.add(
        "Fig. 6",
        "MDS-full: α moves every predictor's DPE reliability towards the diagonal (lower ĈEφ)",
        paper="Fig. 6: " + _q(s.claims, "fig6") + '; App. F.3: "This improvement of DPE calibration was also visually '
        'confirmed with reliability diagrams in Fig. 5 and 6"',
        book=f"{sum(j.verdict == 'agrees' for j in fig6)} of {len(fig6)} predictors with a lower ĈEφ with α",
        judgement=combine(fig6, criterion="ĈEφ(X+α) < ĈEφ(X) for every base X of the full network"),
        note=f"{name}; the chapter draws both panels of Fig. 6 for it",
    )


#: The paper's data sets (Sec. 7.1): name -> (the book's dataset key or None, why not run here, the tests).
_DATA_SETS = {
    "Mix-MNIST": (
        "mnist",
        "the MNIST files are not on this machine (the book builds on Fashion-MNIST; "
        "make_mix_dataset('mnist') runs them when supplied)",
        "tests/data/test_images.py::TestLoadMnist, tests/data/test_mix.py::TestMakeMixDataset",
    ),
    "Mix-CIFAR-10": (
        "cifar10",
        "the CIFAR-10 files are not on this machine (make_mix_dataset('cifar10') runs them when supplied)",
        "tests/data/test_images.py::TestLoadCifar::test_cifar10, tests/data/test_mix.py::TestMakeMixDataset",
    ),
    "MDS": (
        None,
        "MDS is private (App. E.1); the chapter simulates its variable label counts on Mix test images",
        "tests/data/test_mix.py::TestVariableLabelCounts, tests/papers/mimori/test_experiments.py::TestMimoriPredictions",
    ),
}
#: The tables and figures of each data set.
_DATA_TABLES = {"Mix-MNIST": "Tables 1, 2, 4", "Mix-CIFAR-10": "Tables 1, 2, 5", "MDS": "Tables 1, 2, 6, Figs. 1, 5"}


def _data_sets(cmp: Comparison, s: _Setting) -> None:
    """Sec. 7.1: the paper's data sets other than the one the chapter ran on (not run here)."""
    for name, (key, reason, tests) in _DATA_SETS.items():
        if key == s.dataset:
            continue
        tables = _DATA_TABLES[name]
        cmp.not_run(
            "Sec. 7.1 (data)",
            f"the paper's numbers on {name} ({tables})",
            paper=f"{name}: {tables}",
            reason=reason,
            tested_by=tests,
            note=f"the rows above judge the paper's findings on {s.data_name}"
            + (" and the MDS-like setting" if name == "MDS" else ""),
        )
