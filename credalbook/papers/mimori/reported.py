"""The numbers Mimori et al. (2022) report, for the "Paper vs. this book" tables of their chapter.

:data:`PAPER_VALUES` holds Tables 4 and 5 (CPE metrics of Mix-MNIST and Mix-CIFAR-10), Table 1 (DPE
metrics), Table 2 (EL of prior and posterior CPEs) and the vector / matrix scaling rows of Table 6
(MDS-1), transcribed from the paper; :data:`PAPER_DELTA_D` the mean DPE shifts of App. F.2. Three
accuracies of Table 6 are illegible in our copy of the paper and left out.

References
----------
Mimori, Sasada, Matsui, Sato. Diagnostic Uncertainty Calibration: Towards Reliable Machine
Predictions in Medical Domain. arXiv:2007.01659 (2022), Tables 1, 2, 4-6 and App. F.2.
"""

from __future__ import annotations

import math

from credalbook.papers.report import Table

__all__ = ["PAPER_VALUES", "PAPER_DELTA_D", "paper_values", "side_by_side"]

#: App. F.2: mean Δ^D between Raw+ts and Raw DPEs (Mix-MNIST(2), (5), Mix-CIFAR-10(2), (5), MDS).
PAPER_DELTA_D = {("Mix-MNIST", 2): 0.027, ("Mix-MNIST", 5): 0.025, ("Mix-CIFAR-10", 2): 0.101,
                 ("Mix-CIFAR-10", 5): 0.103, ("MDS", None): 0.019}

# ------------------------------------------------------------------------------------ paper numbers
_CPE = ("Acc", "L_sq", "EL", "CE")
_T4 = """Raw .9629 .1386 .0388 .0518 .9629 .1386 .0388 .0518
Raw+α .9629 .1386 .0388 .0518 .9629 .1386 .0388 .0518
Raw+ts .9629 .1376 .0379 .0473 .9629 .1376 .0379 .0475
Raw+ts+α .9629 .1376 .0379 .0473 .9629 .1376 .0379 .0475
MCDO .9635 .1392 .0395 .0425 .9635 .1392 .0395 .0425
MCDO+α .9621 .1391 .0394 .0442 .9644 .1387 .0389 .0463
MCDO+ts .9628 .1408 .0410 .0632 .9627 .1402 .0404 .0638
MCDO+ts+α .9624 .1412 .0415 .0653 .9629 .1407 .0409 .0631"""
_T5 = """Raw .7965 .3518 .2504 .1093 .7965 .3518 .2504 .1093
Raw+α .7965 .3518 .2504 .1093 .7965 .3518 .2504 .1093
Raw+ts .7965 .3437 .2423 .0687 .7965 .3438 .2423 .0685
Raw+ts+α .7965 .3437 .2423 .0688 .7965 .3438 .2423 .0685
MCDO .7983 .3488 .2474 .0955 .7983 .3488 .2474 .0955
MCDO+α .7968 .3488 .2474 .0962 .7965 .3493 .2479 .0973
MCDO+ts .7972 .3442 .2428 .0684 .7977 .3446 .2431 .0675
MCDO+ts+α .7965 .3445 .2430 .0650 .7975 .3444 .2430 .0723
TTA .8221 .3230 .2216 .0877 .8221 .3230 .2216 .0877
TTA+α .8241 .3221 .2206 .0884 .8277 .3223 .2209 .0894
TTA+ts .8257 .3467 .2452 .1688 .8279 .3466 .2451 .1707
TTA+ts+α .8277 .3446 .2432 .1697 .8245 .3460 .2446 .1726"""
_T1 = """Raw .0755 .0782 .0755 .0782 .1521 .2541 .1521 .2541 .1477 .0628
Raw+α .0724 .0524 .0724 .0531 .0880 .0357 .0877 .0322 .1454 .0406
Raw+ts .0775 .0933 .0773 .0923 .1968 .3310 .1978 .3324 .1482 .0663
Raw+ts+α .0699 .0344 .0702 .0379 .0863 .0208 .0861 .0164 .1445 .0261
MCDO .0749 .0728 .0749 .0728 .1518 .2539 .1518 .2539 .1470 .0562
MCDO+α .0700 .0277 .0700 .0285 .0873 .0275 .0870 .0241 .1450 .0346
MCDO+ts .0805 .1062 .0802 .1049 .1996 .3353 .2002 .3362 .1479 .0635
MCDO+ts+α .0690 .0155 .0691 .0188 .0863 .0196 .0861 .0167 .1442 .0186
TTA nan nan nan nan .1677 .2856 .1677 .2856 .1441 .0488
TTA+α nan nan nan nan .0860 .0245 .0857 .0231 .1428 .0334
TTA+ts nan nan nan nan .2421 .3957 .2430 .3968 .1448 .0553
TTA+ts+α nan nan nan nan .0872 .0467 .0870 .0398 .1422 .0197"""
_T2 = """Raw+α .0388 .0292 .0388 .0292 .2504 .0709 .2504 .0693 .0435 .0354
Raw+ts+α .0379 .0293 .0379 .0298 .2423 .0682 .2423 .0676 .0430 .0352
MCDO .0395 .0391 .0395 .0391 .2473 .2471 .2473 .2471 .0437 .0440
MCDO+ts .0410 .0406 .0404 .0400 .2428 .2425 .2431 .2428 .0435 .0438
TTA nan nan nan nan .2216 .2184 .2216 .2184 .0378 .0382
TTA+ts nan nan nan nan .2452 .2428 .2451 .2427 .0379 .0383"""
# Table 6, MDS-1, vs/ms rows (Acc, L_sq, EL, CE, L_phi, CE_phi); nan: illegible in our copy of the paper.
_T6 = """Raw+vs .9010 .2515 .0435 .0579 .1489 .0696
Raw+vs+α .9010 .2515 .0435 .0579 .1449 .0318
Raw+ms .8992 .2532 .0453 .0656 .1484 .0663
Raw+ms+α .8992 .2532 .0453 .0656 .1453 .0355
MCDO+vs nan .2521 .0441 .0589 .1487 .0664
MCDO+vs+α nan .2519 .0439 .0575 .1446 .0244
MCDO+ms .8970 .2536 .0456 .0678 .1479 .0612
MCDO+ms+α .8986 .2534 .0454 .0667 .1449 .0279
TTA+vs .9031 .2471 .0392 .0671 .1458 .0598
TTA+vs+α .9025 .2470 .0391 .0657 .1428 .0247
TTA+ms .9001 .2489 .0410 .0756 .1456 .0561
TTA+ms+α nan .2487 .0407 .0750 .1431 .0268"""


def _parse(table: str, keys, metrics) -> dict:
    out: dict = {}
    for line in table.splitlines():
        name, *values = line.split()
        for j, key in enumerate(keys):
            row = out.setdefault(key, {}).setdefault(name, {})
            row.update(zip(metrics, map(float, values[j * len(metrics):(j + 1) * len(metrics)])))
    return out


def _paper_values() -> dict:
    five = [("Mix-MNIST", 2), ("Mix-MNIST", 5), ("Mix-CIFAR-10", 2), ("Mix-CIFAR-10", 5), ("MDS", None)]
    parts = [_parse(_T4, five[:2], _CPE), _parse(_T5, five[2:4], _CPE), _parse(_T1, five, ("L_phi", "CE_phi")),
             _parse(_T2, five, ("EL", "EL post")), _parse(_T6, five[4:], (*_CPE, "L_phi", "CE_phi"))]
    out: dict = {}
    for part in parts:
        for key, rows in part.items():
            for name, row in rows.items():
                known = {m: v for m, v in row.items() if not math.isnan(v)}
                if known:
                    out.setdefault(key, {}).setdefault(name, {}).update(known)
    return out


#: The paper's numbers, ``{(reference, n_labels): {predictor: {metric: value}}}`` from Tables 1, 2, 4, 5 and the
#: vs/ms rows of Table 6 (MDS-1; ``n_labels`` None). Metrics: Acc, L_sq, EL, CE, L_phi, CE_phi, EL post.
PAPER_VALUES = _paper_values()
_REFERENCE = {"mnist": "Mix-MNIST", "fashion_mnist": "Mix-MNIST", "digits": "Mix-MNIST", "cifar10": "Mix-CIFAR-10"}


def paper_values(dataset: str, config) -> tuple[str, dict]:
    """The paper's reference (name, rows) for our `dataset` and label `config` (2, 5 or "variable" → MDS).

    Examples
    --------
    >>> name, rows = paper_values("fashion_mnist", 2)
    >>> name, rows["Raw+ts"]["EL"]
    ('Mix-MNIST(2)', 0.0379)
    """
    if config == "variable":
        return "MDS", PAPER_VALUES[("MDS", None)]
    ref = _REFERENCE.get(dataset, "Mix-MNIST")
    return f"{ref}({config})", PAPER_VALUES.get((ref, config), {})


def side_by_side(book: dict, paper: dict, metrics, *, rows=None, index_name: str = "") -> Table:
    """A :class:`~credalbook.papers.report.Table` with the paper's and our value of each metric next to each other."""
    rows = [r for r in (rows or book) if r in book]
    return Table({r: {f"{m} {who}": src.get(r, {}).get(m, math.nan) for m in metrics
                      for who, src in (("paper", paper), ("book", book))} for r in rows}, index_name=index_name)
