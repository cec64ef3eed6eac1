"""The developer scripts that compute records: scripts/compute_parts.sh and scripts/device_sitting.sh."""

import json
import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EU = "05_epistemic_uncertainty_gp"


def _git(*args) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True)


def _env(tmp_path, **extra) -> dict:
    return {
        **os.environ,
        "CREDALBOOK_RECORDS_DIR": str(tmp_path / "results"),
        "CREDALBOOK_CACHE_DIR": str(tmp_path / "cache"),
        "PYTHON": sys.executable,
        "SCALE": "tiny",
        "DEVICE": "cpu",
        **extra,
    }


@pytest.mark.skipif(
    shutil.which("git") is None or _git("rev-parse", "HEAD").returncode != 0, reason="needs a git checkout"
)
def test_compute_parts(tmp_path):
    """A clean checkout: the part is computed in a worktree of HEAD and its manifest says so; a dirty one is refused."""
    dirty = bool(_git("status", "--porcelain", "--untracked-files=no", "--", ".", ":!results").stdout.strip())
    out = subprocess.run(
        ["bash", str(ROOT / "scripts" / "compute_parts.sh"), "05", "toy-seed0-train"],  # by number
        cwd=ROOT,
        env=_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=600,
    )
    if dirty:
        assert out.returncode == 2 and "commit first" in out.stderr
        assert not (tmp_path / "results").exists()
        return
    assert out.returncode == 0, out.stderr[-2000:]
    head = _git("rev-parse", "HEAD").stdout.strip()
    man = json.loads((tmp_path / "results" / EU / "tiny" / "parts" / "toy-seed0-train.json").read_text())["manifest"]
    assert man["commit"] == head and man["clean"] is True
    assert man["machine"]["torch_threads"] == 1  # one thread per process
    assert (ROOT / ".cache" / "worktrees" / head).is_dir()


def test_device_sitting_without_git(tmp_path):
    """The GPU script in a copy without .git (as the GPU machine gets it), tried on the CPU at tiny scale: the new
    records come back in one tar, with the commit the caller states."""
    copy = tmp_path / "copy"
    shutil.copytree(
        ROOT,
        copy,
        ignore=shutil.ignore_patterns(
            ".git", ".venv", ".cache", "_build", "executed", "node_modules", "_vendor", "__pycache__"
        ),
    )
    shutil.rmtree(copy / "results" / EU / "tiny", ignore_errors=True)  # records of earlier local runs
    sha = "0123456789abcdef0123456789abcdef01234567"
    env = _env(
        tmp_path,
        OUT=str(tmp_path / "out"),
        TESTS="0",
        STEPS="0",
        PARTS="toy-seed0-train",
        CREDALBOOK_GIT_COMMIT=sha,
        GIT_CEILING_DIRECTORIES=str(tmp_path),
    )
    env.pop("CREDALBOOK_RECORDS_DIR")  # the script writes into the copy's results/
    out = subprocess.run(
        ["bash", "scripts/device_sitting.sh", "300"], cwd=copy, env=env, capture_output=True, text=True, timeout=600
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert "records back: 1 files" in out.stdout
    with tarfile.open(tmp_path / "out" / "records.tar") as tar:
        names = [n for n in tar.getnames() if n.endswith(".json")]
        assert names == [f"./{EU}/tiny/parts/toy-seed0-train.json"]
        man = json.load(tar.extractfile(names[0]))["manifest"]
    assert man["commit"] == sha and man["clean"] is None  # stated, and cleanliness not claimed
    assert "exit 0" in (tmp_path / "out" / "parts.txt").read_text()
