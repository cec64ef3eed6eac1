"""Tests for the command line (credalbook.cli): ``credalbook evaluate`` on files written in tmp_path."""

import csv
import json
import re
import subprocess
import sys

import numpy as np
import pytest
import torch

from credalbook.cli import DEFAULT_TESTS, main, METRICS
from credalbook.metrics import (
    accuracy,
    bootstrap_ci,
    brier_score,
    ece_classwise,
    ece_confidence,
    LaplacianKernel,
    median_heuristic,
    nll,
    skce,
)
from credalbook.stats import calibration_test, set_calibration_test

N, K, M = 2000, 4, 3
R = 100  # resamples: small, the numbers are compared with direct library calls, not with truth


@pytest.fixture(scope="module")
def data():
    """Calibrated synthetic predictions: probs ~ Dirichlet(1), labels drawn from them; an ensemble around them."""
    rng = np.random.default_rng(2023)
    probs = rng.dirichlet(np.ones(K), size=N)
    labels = (rng.random(N)[:, None] > probs.cumsum(axis=1)).sum(axis=1)
    ens = np.stack([probs, rng.dirichlet(np.ones(K), size=N), 0.5 * probs + 0.5 / K], axis=1)
    return probs, labels, ens


def run(tmp_path, probs_file, labels_file, *extra, out="out"):
    """``main(["evaluate", ...])`` with the small test settings; returns (exit status, report or None)."""
    argv = [
        "evaluate",
        "--probs",
        str(probs_file),
        "--labels",
        str(labels_file),
        "--n-resamples",
        str(R),
        "--seed",
        "7",
        *extra,
    ]
    if out:
        argv += ["--out", str(tmp_path / out)]
    code = main(argv)
    report = tmp_path / (out or "-") / "report.json"
    return code, (json.loads(report.read_text()) if out and report.exists() else None)


class TestEvaluate:
    def test_main(self, tmp_path, data, capsys):
        probs, labels, _ = data
        np.save(tmp_path / "p.npy", probs)
        np.save(tmp_path / "y.npy", labels)
        code, report = run(tmp_path, tmp_path / "p.npy", tmp_path / "y.npy")
        assert code == 0
        assert set(report) >= {"credalbook_version", "inputs", "settings", "models", "set_test", "timings_s", "files"}
        assert report["inputs"] == {
            "probs": str(tmp_path / "p.npy"),
            "labels": str(tmp_path / "y.npy"),
            "logits": False,
            "ensemble": False,
            "n": N,
            "n_classes": K,
            "n_members": None,
        }
        model = report["models"]["model"]
        assert list(model["metrics"]) == list(METRICS) and list(model["tests"]) == list(DEFAULT_TESTS)
        # every number is one library call with the same seed
        expected = {
            "accuracy": bootstrap_ci(probs, labels, accuracy, ci=0.95, n_resamples=R, seed=7),
            "nll": bootstrap_ci(probs, labels, nll, ci=0.95, n_resamples=R, seed=7),
            "brier_score": bootstrap_ci(probs, labels, brier_score, ci=0.95, n_resamples=R, seed=7),
            "ece_confidence": ece_confidence(probs, labels, n_bins=10, ci=0.95, n_resamples=R, seed=7),
            "ece_classwise": ece_classwise(probs, labels, n_bins=10, ci=0.95, n_resamples=R, seed=7),
        }
        for name, est in expected.items():
            got = model["metrics"][name]
            assert (got["value"], got["low"], got["high"], got["n_resamples"]) == (est.value, est.low, est.high, R), (
                name
            )
        kernel = LaplacianKernel(median_heuristic(probs))
        est = skce(probs, labels, kernel=kernel, estimator="linear", ci=0.95, n_resamples=R, seed=7)
        got = model["metrics"]["skce"]
        assert (got["value"], got["low"], got["high"]) == (est.value, est.low, est.high)
        assert got["value"] == model["tests"]["skce_linear"]["statistic"]  # the same estimate
        for name, method, options in [
            ("consistency", "consistency", {"measure": "ece_confidence"}),
            ("skce_linear", "skce_linear", {}),
            ("hosmer_lemeshow", "hosmer_lemeshow", {}),
        ]:
            res = calibration_test(
                probs, labels, method=method, n_bins=10, n_resamples=R, alpha=0.05, seed=7, **options
            )
            got = model["tests"][name]
            assert (got["statistic"], got["pvalue"], got["rejected"]) == (res.statistic, res.pvalue, res.rejected), name
        # files
        out = tmp_path / "out"
        with open(out / "metrics.csv") as fh:
            rows = list(csv.DictReader(fh))
        assert [r["metric"] for r in rows] == list(METRICS)
        assert float(rows[0]["value"]) == model["metrics"]["accuracy"]["value"]
        with open(out / "tests.csv") as fh:
            assert [r["test"] for r in csv.DictReader(fh)] == list(DEFAULT_TESTS)
        pngs = sorted(p.name for p in out.glob("*.png"))
        assert {
            "reliability_model.png",
            "reliability_classwise_model.png",
            "null_model_consistency.png",
            "null_model_skce_linear.png",
            "null_model_hosmer_lemeshow.png",
        } <= set(pngs)
        assert all((out / f).stat().st_size > 1000 for f in pngs)
        assert set(report["files"]) == {"report.json", "metrics.csv", "tests.csv", *pngs}
        # the printed table holds the same numbers
        printed = capsys.readouterr().out
        assert "ECE confidence (B=10)" in printed and f"{model['metrics']['accuracy']['value']:#.4g}" in printed

    def test_options(self, tmp_path, data, capsys):
        probs, labels, _ = data
        np.save(tmp_path / "p.npy", probs)
        np.save(tmp_path / "y.npy", labels)
        code, report = run(
            tmp_path,
            tmp_path / "p.npy",
            tmp_path / "y.npy",
            "--tests",
            "skce_linear",
            "--metrics",
            "ece_confidence,nll",
            "--no-ci",
            "--n-bins",
            "5",
            "--no-plots",
        )
        assert code == 0
        model = report["models"]["model"]
        assert list(model["tests"]) == ["skce_linear"] and list(model["metrics"]) == ["ece_confidence", "nll"]
        assert model["metrics"]["ece_confidence"]["value"] == ece_confidence(probs, labels, n_bins=5)
        assert model["metrics"]["ece_confidence"]["low"] is None
        # the old metric names still work, with a deprecation message, and give the same report
        with pytest.warns(FutureWarning, match="--metrics 'ece_top_label' was renamed to 'ece_confidence'"):
            code, old = run(
                tmp_path,
                tmp_path / "p.npy",
                tmp_path / "y.npy",
                "--tests",
                "skce_linear",
                "--metrics",
                "ece_top_label,nll",
                "--no-ci",
                "--n-bins",
                "5",
                "--no-plots",
                out="old",
            )
        assert code == 0 and old["models"] == report["models"]
        with pytest.warns(FutureWarning, match="'brier' was renamed to 'brier_score'"):
            code, old = run(
                tmp_path,
                tmp_path / "p.npy",
                tmp_path / "y.npy",
                "--tests",
                "none",
                "--metrics",
                "brier",
                "--no-ci",
                "--no-plots",
                out="old_brier",
            )
        assert code == 0 and list(old["models"]["model"]["metrics"]) == ["brier_score"]
        assert not list((tmp_path / "out").glob("*.png"))
        capsys.readouterr()
        code, report = run(tmp_path, tmp_path / "p.npy", tmp_path / "y.npy", "--tests", "none", out=None)
        assert code == 0 and "statistic" not in capsys.readouterr().out
        # without --n-resamples: 1000 resamples at N = 2000 (default_n_resamples)
        assert (
            main(
                [
                    "evaluate",
                    "--probs",
                    str(tmp_path / "p.npy"),
                    "--labels",
                    str(tmp_path / "y.npy"),
                    "--tests",
                    "skce_linear",
                    "--metrics",
                    "accuracy",
                    "--out",
                    str(tmp_path / "auto"),
                ]
            )
            == 0
        )
        report = json.loads((tmp_path / "auto" / "report.json").read_text())
        assert report["settings"]["n_resamples"] == 1000
        assert report["models"]["model"]["metrics"]["accuracy"]["n_resamples"] == 1000

    def test_formats_and_logits(self, tmp_path, data):
        """.npz (with --key), .csv and .pt give the report of .npy; --logits gives the report of their softmax."""
        probs, labels, _ = data
        logits = np.log(probs) + np.random.default_rng(1).normal(size=(N, 1))  # softmax(logits) == probs
        softmax = torch.softmax(torch.from_numpy(logits), dim=-1).numpy()
        np.save(tmp_path / "p.npy", softmax)
        np.save(tmp_path / "y.npy", labels)
        np.savez(tmp_path / "both.npz", logits=logits, labels=labels)
        np.savetxt(tmp_path / "z.csv", logits, delimiter=",", fmt="%.17g", header="a,b,c,d", comments="")
        np.savetxt(tmp_path / "y.csv", labels, fmt="%d", header="label", comments="")
        torch.save({"logits": torch.from_numpy(logits)}, tmp_path / "z.pt")
        extra = ("--tests", "consistency,skce_linear", "--no-plots")
        _, ref = run(tmp_path, tmp_path / "p.npy", tmp_path / "y.npy", *extra, out="ref")
        for i, (p_file, y_file, more) in enumerate(
            [
                ("both.npz", "both.npz", ("--key", "logits", "--labels-key", "labels")),
                ("z.csv", "y.csv", ()),
                ("z.pt", "y.npy", ()),
            ]
        ):
            code, report = run(tmp_path, tmp_path / p_file, tmp_path / y_file, "--logits", *more, *extra, out=f"o{i}")
            assert code == 0 and report["inputs"]["logits"] is True
            assert report["models"] == ref["models"], p_file  # the same softmax in float64: equal numbers
        np.testing.assert_allclose(softmax, probs, rtol=1e-12)

    def test_ensemble(self, tmp_path, data, capsys):
        probs, labels, ens = data
        np.save(tmp_path / "ens.npy", ens)
        np.save(tmp_path / "y.npy", labels)
        code, report = run(
            tmp_path,
            tmp_path / "ens.npy",
            tmp_path / "y.npy",
            "--ensemble",
            "--tests",
            "consistency",
            "--metrics",
            "accuracy,ece_confidence",
        )
        assert code == 0
        assert list(report["models"]) == ["member_0", "member_1", "member_2", "mean"]
        assert report["inputs"]["n_members"] == M
        for model, p in [("member_1", ens[:, 1]), ("mean", ens.mean(axis=1))]:
            est = ece_confidence(p, labels, n_bins=10, ci=0.95, n_resamples=R, seed=7)
            got = report["models"][model]["metrics"]["ece_confidence"]
            assert (got["value"], got["low"], got["high"]) == (est.value, est.low, est.high)
        # member 0 is calibrated, member 1 is not (independent Dirichlet draws)
        assert report["models"]["member_1"]["tests"]["consistency"]["pvalue"] < 0.05
        res = set_calibration_test(
            ens, labels, measure="ece_confidence", n_bins=10, n_resamples=R, alpha=0.05, seed=7, chunk_size=None
        )  # without --n-jobs: the one stream the command always drew
        st = report["set_test"]
        assert (st["statistic"], st["pvalue"], st["rejected"]) == (res.statistic, res.pvalue, res.rejected)
        assert st["rejected"] is False and len(st["weights"]) == M  # member 0 is in the set
        assert "set of 3 members" in capsys.readouterr().out
        assert (tmp_path / "out" / "null_set.png").exists() and (tmp_path / "out" / "reliability_mean.png").exists()

    def test_help(self):
        done = subprocess.run(
            [sys.executable, "-m", "credalbook", "evaluate", "--help"], capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 0, done.stderr
        for option in (
            "--probs",
            "--labels",
            "--logits",
            "--ensemble",
            "--out",
            "--n-resamples",
            "--n-bins",
            "--alpha",
            "--seed",
            "--n-jobs",
            "--tests",
            "--no-plots",
            "--key",
        ):
            assert option in done.stdout
        assert main(["--version"]) == 0

    def test_help_imports_nothing_heavy(self):
        # parsing (--help, --version, a bad option) answers before the metrics, tests or plotting are imported
        code = (
            "import contextlib, io, sys\n"
            "import credalbook.cli\n"
            "parser = credalbook.cli.build_parser()\n"
            "for argv in (['--help'], ['evaluate', '--help'], ['--version']):\n"
            "    with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
            "        parser.parse_args(argv)\n"
            "with contextlib.redirect_stderr(io.StringIO()):\n"
            "    assert credalbook.cli.main(['evaluate', '--probs', 'p.npy']) == 2\n"
            "print(' '.join(sorted(sys.modules)))\n"
        )
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        loaded = set(done.stdout.split())
        assert "credalbook.cli.parser" in loaded  # the walk saw the modules
        heavy = {"torch", "matplotlib", "scipy", "joblib", "dask"}
        heavy |= {"credalbook.metrics", "credalbook.stats", "credalbook.plotting", "credalbook.data"}
        assert not loaded & heavy, f"parsing imports {sorted(loaded & heavy)}"


def _write(tmp_path, name, content):
    path = tmp_path / name
    if isinstance(content, (bytes, str)):
        path.write_bytes(content if isinstance(content, bytes) else content.encode())
    elif isinstance(content, dict) or isinstance(content, torch.Tensor):
        torch.save(content, path)
    elif isinstance(content, tuple):  # several arrays in an npz
        np.savez(path, *content)
    else:
        np.save(path, content, allow_pickle=True)
    return path


_P = np.full((10, 2), 0.5)
_Y = np.zeros(10, dtype=np.int64)


class TestErrors:
    @pytest.mark.parametrize(
        "which, name, content, extra, message",
        [
            ("probs", "p.npy", None, (), "does not exist"),
            ("probs", "p.txt", "0.5,0.5\n", (), r"unknown file type '.txt'"),
            ("probs", "p.csv", "0.5,0.5\n0.5,x\n", (), "is not numeric: line 2 reads '0.5,x'"),
            ("probs", "p.npz", (_P, _P), (), r"holds 2 arrays \(arr_0, arr_1\); choose one with --key"),
            ("probs", "p.npy", np.array([{"a": 1}], dtype=object), (), "Python objects"),
            ("probs", "p.pt", {"m": torch.nn.Linear(2, 2)}, (), "refuses to unpickle"),
            (
                "probs",
                "p.npy",
                _P[None],
                (),
                r"shape \(N, K\) \(an \(N, M, K\) array needs --ensemble\); got shape \(1, 10, 2\)",
            ),
            ("probs", "p.npy", _P, ("--ensemble",), r"shape \(N, M, K\) with --ensemble; got shape \(10, 2\)"),
            (
                "probs",
                "p.npy",
                _P * 1.2,
                (),
                r"probs must sum to 1 along the last axis; row 0 sums to 1.2 \(logits\? pass --logits\)",
            ),
            ("probs", "p.npy", np.where(np.eye(10, 2) > 0, np.nan, 0.5), (), "probs must be finite"),
            ("probs", "p.npy", np.array([[np.inf, 0.0]] * 10), ("--logits",), "logits must be finite"),
            ("probs", "p.npy", np.full((10, 1), 1.0), (), "at least 2 classes"),
            ("labels", "y.npy", np.zeros(9, dtype=int), (), r"labels must have shape \(10,\) to match the predictions"),
            ("labels", "y.npy", np.full(10, 2), (), r"labels must lie in \[0, 2\)"),
            ("labels", "y.npy", np.full(10, 0.5), (), "labels must hold integer class indices"),
            ("labels", "y.npy", np.zeros((10, 2)), (), "must hold a 1-dimensional array"),
            ("labels", "y.csv", "", (), "is empty"),
        ],
    )
    def test_malformed_files(self, tmp_path, capsys, which, name, content, extra, message):
        good = {"probs": _write(tmp_path, "good_p.npy", _P), "labels": _write(tmp_path, "good_y.npy", _Y)}
        bad = tmp_path / name if content is None else _write(tmp_path, name, content)
        files = {**good, which: bad}
        code = main(
            [
                "evaluate",
                "--probs",
                str(files["probs"]),
                "--labels",
                str(files["labels"]),
                *extra,
                "--tests",
                "none",
                "--no-ci",
            ]
        )
        err = capsys.readouterr().err
        assert code == 2
        assert err.count("\n") == 1 and "Traceback" not in err, err  # one line
        assert err.startswith("credalbook evaluate: error: ")
        assert f"file '{bad}': " in err, err  # names the file
        assert re.search(message, err), err

    @pytest.mark.parametrize(
        "extra, message",
        [
            (("--n-bins", "0"), "argument --n-bins: must be a positive integer; got '0'"),
            (("--alpha", "1.5"), r"argument --alpha: must be a number in \(0, 1\)"),
            (
                ("--tests", "consistency,foo"),
                "argument --tests: unknown 'foo'; choose from consistency, consistency_classwise, skce_linear",
            ),
            (("--n-jobs", "0"), "argument --n-jobs: must be a non-zero integer"),
            (("--seed", "-3"), "argument --seed: must be a non-negative integer"),
            (("--bogus",), "unrecognized arguments: --bogus"),
        ],
    )
    def test_bad_options(self, tmp_path, capsys, extra, message):
        p, y = _write(tmp_path, "p.npy", _P), _write(tmp_path, "y.npy", _Y)
        assert main(["evaluate", "--probs", str(p), "--labels", str(y), *extra]) == 2
        err = capsys.readouterr().err
        assert re.search(message, err) and "Traceback" not in err, err

    def test_option_that_does_not_fit_the_data(self, tmp_path, capsys):
        p, y = _write(tmp_path, "p.npy", _P), _write(tmp_path, "y.npy", _Y)  # 10 instances, 20 HL groups
        assert (
            main(
                [
                    "evaluate",
                    "--probs",
                    str(p),
                    "--labels",
                    str(y),
                    "--tests",
                    "hosmer_lemeshow",
                    "--n-bins",
                    "20",
                    "--no-ci",
                    "--metrics",
                    "accuracy",
                ]
            )
            == 2
        )
        err = capsys.readouterr().err
        assert err.startswith("credalbook evaluate: error: test hosmer_lemeshow: ") and err.count("\n") == 1, err
        assert "at least 20 instances" in err, err
