"""The "Paper vs. this book" rows of the CIFAR-100 regime on Fashion-MNIST (:mod:`credalbook.papers.wu_gales.regime`):
its premises first (deep members over-confident, LeNet weaker and less over-confident, ensembling helping the deep
topologies and hurting LeNet, members fitting their training images), then Table 1's claims on its ensembles, each
note saying whether the premises held. Rows whose paper-scale members are not all recorded are *not run here*
(pending), never judged on part of them.
"""

from __future__ import annotations

from collections.abc import Mapping

from credalbook.papers.criteria import AGREES, combine, ordered, sign_claim
from credalbook.papers.report import Comparison
from credalbook.papers.wu_gales.reported import WG_PAPER_TABLE1
from credalbook.papers.wu_gales.rows import _Z, count_rule

__all__: list = []

_ART = "Regime premise"
_NAME = "CIFAR-100 regime on Fashion-MNIST"
_TESTS = "tests/papers/wu_gales/test_compare.py::TestRegime"
_SE = f"{_Z:g} × SE: bootstrap over the test instances ⊕ the spread over the members"
#: What a row rests on: the premise rows' keys.
PREMISES = ("overconfident", "lenet_weaker", "lenet_less_overconfident", "ensembling", "memorisation")


def regime_setting(reg: Mapping) -> str:
    """The regime's setting, for the notes of its rows."""
    p = reg["premises"]
    return (
        f"{_NAME}: {10 * reg.get('per_class', 450):,} training images ({reg.get('per_class', 450)} per class; "
        f"CIFAR-100: 450), {reg.get('n_val', 5000):,} validation, "
        f"{reg.get('n_test', 10000):,} test; parameters "
        + ", ".join(f"{t} {r['n_parameters']:,}" for t, r in p.items())
        + " (paper: LeNet-5 0.06 M, DenseNet-BC-100 0.8 M, DenseNet-121 7.0 M, WRN-28-10 36.5 M); "
        + f"{next(iter(p.values()))['epochs']} epochs (paper 300 / 300 / 200 for the DenseNets / WRN); "
        + f"{reg.get('n_runs', 10)} runs = leave-one-out {reg.get('subset', 9)}-member subsets of one set of "
        + f"{next(iter(p.values()))['n_members']}, so ±2σ is mostly the test bootstrap"
    )


def regime_rows(cmp: Comparison, results: Mapping, paper: dict) -> dict:
    """Add the premise rows; return premise key -> verdict ("pending" when the members are not all recorded)."""
    reg = results.get("regime")
    if reg is None:
        return {}
    claims = paper["findings"]
    if reg.get("pending"):
        for key, q in (
            ("overconfident", "single deep members over-confident: confidence − accuracy > 0 (DSN100, DSN121, RSN)"),
            ("lenet_weaker", "LeNet less accurate than each deep topology, by a large margin"),
            ("lenet_less_overconfident", "LeNet less over-confident than each deep topology"),
            ("ensembling", "ensembling lowers the deep topologies' ECE and raises LeNet's (Table 3 → Table 1)"),
            ("memorisation", "members fit their training images: training NLL below half the validation NLL"),
        ):
            cmp.not_run(
                f"{_ART} ({_NAME})",
                q,
                paper=claims["overconfident"]["claim"] if key != "ensembling" else claims["ensembling"]["claim"],
                reason=f"pending: the paper-scale members of the regime are being computed ({reg['pending']})",
                tested_by=_TESTS,
            )
        return {k: "pending" for k in PREMISES}
    p = reg["premises"]
    deep = [t for t in p if t != "LEN"]
    out = {}
    t3 = {t: r["90"] for t, r in paper["table3"]["rows"].items()}
    setting = regime_setting(reg)
    over = {
        t: sign_claim(
            100 * p[t]["member_gap"], relation=">", se=100 * p[t]["member_gap_se"], z=_Z, name=f"{t} conf. − acc. (pp)"
        )
        for t in deep
    }
    j = count_rule(over, len(deep), source=_SE)
    out["overconfident"] = j.verdict
    cmp.add(
        f"{_ART}: Tables 3 / 4, Sec. 1",
        "single deep members over-confident: confidence − accuracy > 0 (pp)",
        paper="ECE (1e-2, Table 3) " + ", ".join(f"{t} {t3[t]['ece']:g}" for t in deep),
        book=", ".join(f"{t} {100 * p[t]['member_gap']:+.2f} ± {100 * p[t]['member_gap_se']:.2f}" for t in deep),
        judgement=j,
        note=f"quote (Sec. 1): {claims['overconfident']['quote']!r}; {setting}",
    )
    if "LEN" in p:
        parts = {}
        for t in deep:
            parts[t] = _weaker(p, t, t3)
        j = count_rule(parts, len(deep), source=_SE)
        out["lenet_weaker"] = j.verdict
        cmp.add(
            f"{_ART}: Table 3",
            "LeNet less accurate than each deep topology, by a large margin (single members)",
            paper=", ".join(f"{t} {t3[t]['accuracy']:g}" for t in p),
            book=", ".join(f"{t} {100 * p[t]['member_accuracy']:.2f}" for t in p),
            judgement=j,
            note=f"margin: LeNet's error at least 1 + (r − 1)/2 times each deep one's, r the paper's smallest "
            f"ratio; {setting}",
        )
        less = {
            t: ordered(
                100 * p["LEN"]["member_gap"],
                100 * p[t]["member_gap"],
                relation="<",
                se_a=100 * p["LEN"]["member_gap_se"],
                se_b=100 * p[t]["member_gap_se"],
                z=_Z,
                names=("LEN conf. − acc.", f"{t} conf. − acc."),
            )
            for t in deep
        }
        j = count_rule(less, len(deep), source=_SE)
        out["lenet_less_overconfident"] = j.verdict
        cmp.add(
            f"{_ART}: App. A.4",
            "LeNet less over-confident than each deep topology (single members, conf. − acc., pp)",
            paper="LeNet 'is not as over-confident as DenseNet and ResNet' (App. A.4); ECE (1e-2, Table 3) "
            + ", ".join(f"{t} {t3[t]['ece']:g}" for t in p),
            book=", ".join(f"{t} {100 * p[t]['member_gap']:+.2f}" for t in p),
            judgement=j,
            note=f"LeNet's gap is reported as measured (no tuning); {setting}",
        )
    ens = {
        t: ordered(
            100 * (p[t]["member_ece"] + p[t]["ece_change"]),
            100 * p[t]["member_ece"],
            relation=">" if t == "LEN" else "<",
            se_a=100 * p[t]["ece_change_se"],
            z=_Z,
            names=(f"{t} ensemble ECE", "members' ECE"),
        )
        for t in p
    }
    j = count_rule(
        ens, len(ens), source=f"{_Z:g} × SE of the change: paired bootstrap over the test instances ⊕ members"
    )
    out["ensembling"] = j.verdict
    t1 = WG_PAPER_TABLE1
    cmp.add(
        f"{_ART}: Table 3 → Table 1",
        "ensembling ten copies lowers the deep topologies' ECE (1e-2) and raises LeNet's",
        paper=", ".join(f"{t} {t3[t]['ece']:g} → {t1[t]['none']['ece'][0]:g}" for t in p),
        book=", ".join(f"{t} {100 * p[t]['member_ece']:.2f} → {100 * p[t]['ensemble_ece']:.2f}" for t in p),
        judgement=j,
        note=f"quote (App. A.4, said of Table 4 → 5): {claims['ensembling']['quote']!r}; {_prop1_account(p, t3, t1)}; "
        f"{setting}",
    )
    if all("train_nll" in r for r in p.values()):
        mem = {
            t: ordered(
                p[t]["train_nll"],
                p[t]["val_nll"] / 2,
                relation="<",
                se_a=float(p[t]["train_nll_members"].std(ddof=1) / len(p[t]["train_nll_members"]) ** 0.5)
                if len(p[t]["train_nll_members"]) > 1
                else 0.0,
                se_b=float(p[t]["val_nll_members"].std(ddof=1) / 2 / len(p[t]["val_nll_members"]) ** 0.5)
                if len(p[t]["val_nll_members"]) > 1
                else 0.0,
                z=_Z,
                names=(f"{t} training NLL", "half its validation NLL"),
            )
            for t in deep
        }
        j = count_rule(mem, len(deep), source=f"{_Z:g} × SE over the members")
        out["memorisation"] = j.verdict
        cmp.add(
            f"{_ART}: App. A.4 training",
            "deep members fit their training images: training NLL below half the validation NLL",
            paper="the original recipes (200-300 epochs, no early stopping): CIFAR-100 members fit their "
            "450 images per class",
            book=", ".join(f"{t} {p[t]['train_nll']:.3f} / {p[t]['val_nll']:.3f}" for t in p),
            judgement=j,
            note="training NLL from each member's record (its training images without augmentation) / validation "
            f"NLL, mean over the members; the setting of today's members sits at 0.98 (no memorisation); {setting}",
        )
    return out


def _prop1_account(p: Mapping, t3: Mapping, t1: Mapping) -> str:
    """Eq. 18 / Prop. 1 applied to each topology: the ensemble's confidence − accuracy is at most the members' minus
    the accuracy that ensembling gains, so ensembling can turn members under-confident only where its accuracy gain
    exceeds their over-confidence. States both numbers (ours; the paper's LeNet, Table 3 → Table 1, beside)."""
    ours = ", ".join(
        f"{t} {100 * (r['ensemble_accuracy'] - r['member_accuracy']):+.2f} vs {100 * r['member_gap']:+.2f}"
        for t, r in p.items()
    )
    gain = t1["LEN"]["none"]["accuracy"][0] - t3["LEN"]["accuracy"]
    return (
        "Prop. 1 accounting (the ensemble's confidence − accuracy is at most the members' minus the accuracy "
        f"ensembling gains): accuracy gain vs the members' confidence − accuracy (pp) {ours}; the paper's LeNet gains "
        f"{gain:+.2f} pp ({t3['LEN']['accuracy']:g} → {t1['LEN']['none']['accuracy'][0]:g} %) against a member ECE of "
        f"{t3['LEN']['ece']:g}"
    )


def _weaker(p: Mapping, t: str, t3: Mapping):
    r = min((1 - t3["LEN"]["accuracy"] / 100) / (1 - t3[s]["accuracy"] / 100) for s in t3 if s != "LEN")
    f = 1 + (r - 1) / 2
    a_len, s_len = p["LEN"]["member_accuracy"], p["LEN"]["member_accuracy_se"]
    order = ordered(
        a_len,
        p[t]["member_accuracy"],
        relation="<",
        se_a=s_len,
        se_b=p[t]["member_accuracy_se"],
        z=_Z,
        names=("LEN accuracy", f"{t} accuracy"),
    )
    size = ordered(
        1 - a_len,
        f * (1 - p[t]["member_accuracy"]),
        relation=">",
        se_a=s_len,
        se_b=f * p[t]["member_accuracy_se"],
        z=_Z,
        names=("LEN error", f"{f:.2f} × {t} error"),
    )
    return combine([order, size], rule="all")


def premise_note(held: Mapping) -> str:
    """What a dependent row says of its premises."""
    if not held:
        return ""
    if set(held.values()) == {"pending"}:
        return "premises pending"
    return "premises: " + ", ".join(f"{k.replace('_', ' ')} {'held' if v == AGREES else v}" for k, v in held.items())
