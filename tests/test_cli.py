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
        *map(str, extra),
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
            "binary": False,
            "key": None,
            "labels_key": None,
            "models": {"model": {"file": str(tmp_path / "p.npy"), "logits": False, "shape": [N, K], "binary": False}},
            "setup": report["inputs"]["setup"],
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
        assert set(report["files"]) == {"report.json", "report.html", "metrics.csv", "tests.csv", *pngs}
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
        import html as html_module

        page = html_module.unescape((tmp_path / "out" / "report.html").read_text())
        assert 'set_calibration_test(ens_probs, labels, measure="ece_confidence", n_bins=10, n_resamples=100' in page
        assert "ece_confidence(ens_probs.mean(axis=1), labels, n_bins=10" in page and "ens_probs[:, 1]" in page

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
                r"shape \(N, K\), or \(N,\) scores P\(y = 1\) \(an \(N, M, K\) array needs --ensemble\); got shape \(1, 10, 2\)",
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


def _softmax(z):
    return torch.softmax(torch.from_numpy(z), dim=-1).numpy()


@pytest.fixture(scope="module")
def two_models(tmp_path_factory, data):
    """A calibrated model A (probabilities) and an over-confident model B (logits: twice A's log-probabilities)."""
    probs, labels, _ = data
    folder = tmp_path_factory.mktemp("two")
    logits_b = 2.0 * np.log(probs) + 1.0
    np.save(folder / "a.npy", probs)
    np.save(folder / "b.npy", logits_b)
    np.save(folder / "y.npy", labels)
    return folder, probs, _softmax(logits_b), labels


class TestSeveralModels:
    def test_main(self, tmp_path, two_models, capsys):
        folder, pa, pb, labels = two_models
        a, b, y = folder / "a.npy", folder / "b.npy", folder / "y.npy"
        code, named = run(tmp_path, f"A={a}", y, "--probs", f"B={b}", "--logits-of", "B", "--no-plots", out="named")
        assert code == 0
        code, listed = run(
            tmp_path, a, y, "--probs", b, "--name", "A", "--name", "B", "--logits-of", "B", "--no-plots", out="listed"
        )
        assert code == 0 and listed["models"] == named["models"] and listed["comparison"] == named["comparison"]
        assert list(named["models"]) == ["A", "B"]
        assert named["inputs"]["models"]["B"]["logits"] is True and named["inputs"]["models"]["A"]["logits"] is False
        for name, p in [("A", pa), ("B", pb)]:
            est = ece_confidence(p, labels, n_bins=10, ci=0.95, n_resamples=R, seed=7)
            got = named["models"][name]["metrics"]["ece_confidence"]
            assert (got["value"], got["low"], got["high"]) == (est.value, est.low, est.high), name
        from credalbook.stats import compare_models, DEFAULT_METRICS

        expected = compare_models(
            {"A": pa, "B": pb},
            labels,
            metrics=tuple(m for m in METRICS if m in DEFAULT_METRICS),  # in the order of --metrics
            n_bins=10,
            ci=0.95,
            n_resamples=R,
            seed=7,
            baseline="A",
        ).to_rows()
        assert named["comparison"]["rows"] == expected and named["comparison"]["baseline"] == "A"
        assert "comparison with A (paired bootstrap)" in capsys.readouterr().out
        # --baseline B: B first in each metric's rows, the difference of A is minus that of B above
        code, rev = run(
            tmp_path,
            f"A={a}",
            y,
            "--probs",
            f"B={b}",
            "--logits-of",
            "B",
            "--baseline",
            "B",
            "--no-plots",
            "--tests",
            "none",
            out="rev",
        )
        assert code == 0 and rev["comparison"]["baseline"] == "B"
        ece_rows = {r["model"]: r for r in rev["comparison"]["rows"] if r["metric"] == "ece_confidence"}
        ece_named = {r["model"]: r for r in named["comparison"]["rows"] if r["metric"] == "ece_confidence"}
        assert ece_rows["A"]["difference"] == pytest.approx(-ece_named["B"]["difference"], abs=1e-15)

    def test_figures_and_page(self, tmp_path, two_models):
        folder, *_ = two_models
        code, report = run(
            tmp_path,
            f"A={folder / 'a.npy'}",
            folder / "y.npy",
            "--probs",
            f"B={folder / 'b.npy'}",
            "--logits-of",
            "B",
            "--tests",
            "consistency",
            "--metrics",
            "ece_confidence,accuracy",
        )
        out = tmp_path / "out"
        assert code == 0 and (out / "reliability_comparison.png").stat().st_size > 1000
        page = (out / "report.html").read_text()
        assert page.count("data:image/png;base64,") == len([f for f in report["files"] if f.endswith(".png")])
        assert 'id="comparison"' in page and "compare_models(models, labels," in page

    @pytest.mark.parametrize(
        "extra, message",
        [
            (("--name", "A"), "--name given 1 times for 2 --probs files"),
            (("--logits-of", "C"), "--logits-of 'C': no model of that name"),
            (("--baseline", "C"), "--baseline 'C': no model of that name"),
            (("--ensemble",), "--ensemble reads one --probs file"),
        ],
    )
    def test_bad_options(self, tmp_path, two_models, capsys, extra, message):
        folder, *_ = two_models
        argv = [
            "evaluate",
            "--probs",
            str(folder / "a.npy"),
            "--probs",
            str(folder / "b.npy"),
            "--labels",
            str(folder / "y.npy"),
            "--tests",
            "none",
            "--no-ci",
            "--logits",
            *extra,
        ]
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1 and "Traceback" not in err, err

    def test_mismatched_n(self, tmp_path, two_models, capsys):
        folder, pa, _, _ = two_models
        np.save(tmp_path / "short.npy", pa[:-5])
        argv = [
            "evaluate",
            "--probs",
            f"A={folder / 'a.npy'}",
            "--probs",
            f"B={tmp_path / 'short.npy'}",
            "--labels",
            str(folder / "y.npy"),
            "--tests",
            "none",
            "--no-ci",
        ]
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert f"probs file '{tmp_path / 'short.npy'}' (model B): N = {N - 5} instances" in err, err
        assert f"(model A) has N = {N}" in err and err.count("\n") == 1


class TestBinary:
    def test_default_tests(self, tmp_path):
        """Binary models get the binary tests by default; their p-values are the library's."""
        from credalbook.stats import calibration_test

        rng = np.random.default_rng(6)
        scores = rng.random(N)
        outcome = rng.random(N) < scores**2  # over-confident in the positive class
        np.save(tmp_path / "s.npy", scores)
        np.save(tmp_path / "y.npy", outcome)
        code, report = run(tmp_path, tmp_path / "s.npy", tmp_path / "y.npy", "--no-plots", "--no-ci")
        tests = report["models"]["model"]["tests"]
        assert code == 0 and list(tests) == ["consistency", "spiegelhalter", "hosmer_lemeshow_c"]
        for method in ("spiegelhalter", "hosmer_lemeshow_c"):
            want = calibration_test(scores, outcome, method=method, n_resamples=R, seed=7)
            assert tests[method]["pvalue"] == want.pvalue and tests[method]["rejected"] == want.rejected
        code, report = run(
            tmp_path, tmp_path / "s.npy", tmp_path / "y.npy", "--no-plots", "--no-ci", "--tests", "skce_linear", out="b"
        )
        assert code == 0 and list(report["models"]["model"]["tests"]) == ["skce_linear"]

    def test_main(self, tmp_path):
        rng = np.random.default_rng(5)
        scores = rng.random(N)
        outcome = rng.random(N) < scores**1.5  # over-confident in the positive class
        np.save(tmp_path / "s.npy", scores)
        np.save(tmp_path / "y.npy", outcome)  # bool labels
        code, report = run(tmp_path, tmp_path / "s.npy", tmp_path / "y.npy", "--tests", "consistency", "--no-plots")
        assert code == 0 and report["inputs"]["binary"] is True and report["inputs"]["n_classes"] == 2
        assert report["inputs"]["models"]["model"]["shape"] == [N]
        stacked = np.column_stack([1 - scores, scores])
        labels = outcome.astype(np.int64)
        est = ece_confidence(stacked, labels, n_bins=10, ci=0.95, n_resamples=R, seed=7)
        got = report["models"]["model"]["metrics"]["ece_confidence"]
        assert (got["value"], got["low"], got["high"]) == (est.value, est.low, est.high)
        assert report["models"]["model"]["metrics"]["accuracy"]["value"] == np.mean((scores > 0.5) == outcome)
        namespace = _library_namespace(report)  # the report's own calls on its own reading of the inputs
        assert float(eval(report["models"]["model"]["calls"]["metrics"]["ece_confidence"], namespace)) == est.value
        # logits: sigmoid in float64
        np.save(tmp_path / "z.npy", np.log(scores) - np.log1p(-scores))
        code, logit = run(
            tmp_path,
            tmp_path / "z.npy",
            tmp_path / "y.npy",
            "--logits",
            "--tests",
            "none",
            "--metrics",
            "nll",
            "--no-ci",
            "--no-plots",
            out="z",
        )
        assert code == 0
        assert logit["models"]["model"]["metrics"]["nll"]["value"] == pytest.approx(nll(stacked, labels), rel=1e-12)
        namespace = _library_namespace(logit)
        assert (
            eval(logit["models"]["model"]["calls"]["metrics"]["nll"], namespace)
            == logit["models"]["model"]["metrics"]["nll"]["value"]
        )

    def test_errors(self, tmp_path, capsys):
        y = _write(tmp_path, "y.npy", _Y)
        bad = _write(tmp_path, "s.npy", np.linspace(0, 1.5, 10))
        assert main(["evaluate", "--probs", str(bad), "--labels", str(y), "--tests", "none", "--no-ci"]) == 2
        err = capsys.readouterr().err
        assert "probs given as binary scores P(y = 1) must lie in [0, 1]" in err and "(logits? pass --logits" in err, (
            err
        )


class TestDirection:
    def test_main(self, tmp_path, two_models, capsys):
        from credalbook.metrics import describe_direction, signed_calibration_error

        folder, _, pb, labels = two_models
        code, report = run(
            tmp_path,
            folder / "b.npy",
            folder / "y.npy",
            "--logits",
            "--tests",
            "consistency",
            "--metrics",
            "signed_calibration_error",
            "--no-plots",
        )
        assert code == 0
        est = signed_calibration_error(pb, labels, kind="confidence", ci=0.95, n_resamples=R, seed=7)
        got = report["models"]["model"]["metrics"]["signed_calibration_error"]
        assert (got["value"], got["low"], got["high"]) == (est.value, est.low, est.high)
        # sharpened twice: mean confidence exceeds accuracy, the whole interval above 0
        assert est.low > 0
        line = report["models"]["model"]["tests"]["consistency"]["decision_line"]
        res = calibration_test(
            pb, labels, method="consistency", measure="ece_confidence", n_bins=10, n_resamples=R, seed=7
        )
        assert line == res.decision_line() and line.endswith(f": {describe_direction(est)}")
        assert re.fullmatch(
            r"reject H0 at α = 0.05 \(p = 0.0099\): over-confident \(confidence exceeds accuracy by .*\)", line
        )
        assert line in capsys.readouterr().out


def _library_namespace(report):
    namespace = {}
    exec("\n".join(report["inputs"]["setup"]), namespace)
    return namespace


class TestReportPage:
    def test_reproducing_calls(self, tmp_path, two_models):
        """Every metric and test of report.html comes with a call that, run, gives the reported number."""
        import html as html_module

        folder, *_ = two_models
        code, report = run(
            tmp_path,
            f"A={folder / 'a.npy'}",
            folder / "y.npy",
            "--probs",
            f"B={folder / 'b.npy'}",
            "--logits-of",
            "B",
            "--no-plots",
            "--tests",
            "consistency,skce_linear",
        )
        assert code == 0
        page = html_module.unescape((tmp_path / "out" / "report.html").read_text())
        namespace = _library_namespace(report)
        for entry in report["models"].values():
            assert set(entry["calls"]["metrics"]) == set(entry["metrics"]) and entry["metrics"]
            for name, call in entry["calls"]["metrics"].items():
                assert call in page, call
                value = eval(call, namespace)
                assert float(value) == entry["metrics"][name]["value"], call
                assert (value.low, value.high) == (entry["metrics"][name]["low"], entry["metrics"][name]["high"]), call
            for name, call in entry["calls"]["tests"].items():
                assert call in page and eval(call, namespace).pvalue == entry["tests"][name]["pvalue"], call
            split = eval(entry["calls"]["ece_split"], namespace)
            assert entry["calls"]["ece_split"] in page and entry["ece_split"]["text"] in page
            assert (split.over, split.under) == (entry["ece_split"]["over"], entry["ece_split"]["under"])
            # the split adds up to the reported top-label ECE (the same bins), up to the order of the sums
            assert split.over + split.under == pytest.approx(entry["metrics"]["ece_confidence"]["value"], rel=1e-12)
        assert report["comparison"]["call"] in page
        assert eval(report["comparison"]["call"], namespace).to_rows() == report["comparison"]["rows"]

    def test_page_is_self_contained(self, tmp_path, data):
        probs, labels, _ = data
        np.save(tmp_path / "p.npy", probs)
        np.save(tmp_path / "y.npy", labels)
        code, report = run(
            tmp_path, tmp_path / "p.npy", tmp_path / "y.npy", "--tests", "skce_linear", "--metrics", "ece_confidence"
        )
        page = (tmp_path / "out" / "report.html").read_text()
        assert code == 0 and page.startswith("<!DOCTYPE html>")
        assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", page) and "<link" not in page
        assert "http://" not in page and "https://" not in page
        assert 'id="metrics"' in page and 'id="tests-model"' in page and 'id="inputs"' in page
        assert "ece_confidence(probs, labels, n_bins=10, ci=0.95, n_resamples=100, seed=7)" in page
        pngs = [f for f in report["files"] if f.endswith(".png")]
        assert page.count('src="data:image/png;base64,') == len(pngs) == 3

    def test_escaped(self):
        from credalbook.cli.report_page import render_page

        report = {
            "inputs": {
                "models": {"<b>x</b>": {"file": "a&b.npy", "logits": False, "shape": [3, 2], "binary": False}},
                "n": 3,
                "n_classes": 2,
                "labels": "<y>.npy",
                "ensemble": False,
            },
            "settings": {"ci": None, "alpha": 0.05},
            "models": {},
        }
        page = render_page(report, ".")
        assert "<b>x</b>" not in page and "&lt;b&gt;x&lt;/b&gt;" in page and "a&amp;b.npy" in page


from tests.book.test_book import CHROMIUM_FLAGS  # noqa: E402  (the book's offline browser settings)


def _browse(page, tmp_path):
    """Load ``page`` in headless Chromium; return the DOM after its scripts ran."""
    import shutil

    exe = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    if exe is None:
        pytest.skip("no chromium binary on PATH: the browser check of report.html needs headless Chromium")
    base = [exe, *CHROMIUM_FLAGS, f"--user-data-dir={tmp_path / 'profile'}", "--window-size=1280,1600"]
    done = subprocess.run([*base, "--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=120, check=True)
    return done.stdout


@pytest.mark.slow
def test_report_page_in_chromium(tmp_path, two_models):
    """report.html in headless Chromium: its tables are in the DOM and every inlined figure decoded."""
    folder, *_ = two_models
    code, report = run(
        tmp_path,
        f"A={folder / 'a.npy'}",
        folder / "y.npy",
        "--probs",
        f"B={folder / 'b.npy'}",
        "--logits-of",
        "B",
        "--tests",
        "consistency,skce_linear",
    )
    assert code == 0
    dom = _browse(tmp_path / "out" / "report.html", tmp_path)
    n_png = len([f for f in report["files"] if f.endswith(".png")])
    assert n_png >= 9
    body = re.search(r"<body([^>]*)>", dom).group(1)
    assert f'data-images="{n_png}"' in body and f'data-images-decoded="{n_png}"' in body, body
    for table in ("inputs", "metrics", "tests-A", "tests-B", "comparison"):
        assert f'id="{table}"' in dom, table


def test_diagrams_drawn_alongside_equal_those_drawn_at_once(tmp_path, data, monkeypatch):
    """The reliability diagrams drawn in a thread (N <= OVERLAP_MAX_N) are, byte for byte, those drawn at once."""
    import credalbook.cli.evaluation as evaluation

    probs, labels, _ = data
    np.save(tmp_path / "p.npy", probs)
    np.save(tmp_path / "y.npy", labels)
    extra = ("--tests", "none", "--metrics", "accuracy")
    assert run(tmp_path, tmp_path / "p.npy", tmp_path / "y.npy", *extra, out="thread")[0] == 0
    monkeypatch.setattr(evaluation, "OVERLAP_MAX_N", 0)
    assert run(tmp_path, tmp_path / "p.npy", tmp_path / "y.npy", *extra, out="once")[0] == 0
    names = sorted(p.name for p in (tmp_path / "thread").glob("reliability_*.png"))
    assert names == ["reliability_classwise_model.png", "reliability_model.png"]
    for name in names:
        assert (tmp_path / "thread" / name).read_bytes() == (tmp_path / "once" / name).read_bytes(), name
