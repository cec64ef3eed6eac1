"""Packaging as the ecosystem expects: the library's own dependencies, extras for the GP classifier and
the book, environment.yml listing the same packages, the papers' data files shipped with the package."""

import re
import sys
from pathlib import Path

import pytest
import yaml

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    tomllib = pytest.importorskip("tomli")

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
REQUIREMENT = re.compile(r"^\s*([A-Za-z0-9_.\-]+)(\[[^\]]*\])?\s*(.*?)\s*$")


def _parse(requirements) -> dict[str, str]:
    out = {}
    for req in requirements:
        name, _, spec = REQUIREMENT.match(req).groups()
        out[name.lower().replace("_", "-")] = spec.replace(" ", "")
    return out


def _pyproject_packages() -> dict[str, str]:
    project = PYPROJECT["project"]
    extras = project["optional-dependencies"]
    reqs = [*project["dependencies"], *extras["gp"], *extras["book"], *extras["scale"], *extras["test"]]
    return _parse(reqs)


def _environment_packages() -> dict[str, str]:
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    reqs = []
    for dep in env["dependencies"]:
        if isinstance(dep, dict):
            reqs.extend(dep["pip"])
        elif not dep.startswith(("python", "pip")) or dep.startswith(("python-", "pip-")):
            reqs.append(dep)
    return _parse(reqs)


class TestDependencies:
    def test_core_is_small(self):
        core = set(_parse(PYPROJECT["project"]["dependencies"]))
        assert core == {"numpy", "scipy", "torch", "matplotlib", "scikit-learn", "tqdm", "joblib", "nlopt"}
        assert not core & {"gpytorch", "seaborn", "papermill", "jupyter-book", "jupyterlab"}

    def test_extras(self):
        extras = PYPROJECT["project"]["optional-dependencies"]
        assert set(_parse(extras["gp"])) == {"gpytorch"}
        assert {"jupyter-book", "papermill", "jupyterlab", "seaborn"} <= set(_parse(extras["book"]))
        assert set(_parse(extras["scale"])) == {"dask"}
        assert extras["all"] == ["credalbook[gp,book,scale]"]

    def test_environment_yml_agrees(self):
        py, env = _pyproject_packages(), _environment_packages()
        assert set(py) == set(env), (
            f"only in pyproject: {set(py) - set(env)}; only in environment.yml: {set(env) - set(py)}"
        )
        differ = {n: (py[n], env[n]) for n in py if py[n] != env[n] and n != "torch"}
        assert not differ, f"version specifiers differ: {differ}"
        # environment.yml pins the CPU build that scripts/setup.sh installs; it must satisfy pyproject's range
        assert env["torch"] == "==2.13.0" and py["torch"] == ">=2.1"

    def test_setup_installs_the_extras(self):
        assert '-e ".[all,test]"' in (ROOT / "scripts" / "setup.sh").read_text()


def test_papers_data_files_are_package_data():
    patterns = PYPROJECT["tool"]["setuptools"]["package-data"]["credalbook"]
    shipped = {p for pattern in patterns for p in (ROOT / "credalbook").glob(pattern)}
    on_disk = set((ROOT / "credalbook" / "papers").rglob("*.json"))
    assert on_disk <= shipped
