"""credalbook._provenance: code fingerprints, import closures, machine and commit facts."""

import os
import platform
import re
import subprocess
import sys
from pathlib import Path

import pytest

from credalbook import _provenance as prov


class TestSourceHash:
    def test_ignores_docstrings_comments_layout(self):
        a = 'def f(x):\n    """Doc."""\n    # a comment\n    return x + 1\n'
        b = "def f(x): return x + 1"
        assert prov.source_hash(a) == prov.source_hash(b)
        c = 'class C:\n    """One."""\n    def m(self):\n        """Two."""\n        return 2\n'
        assert prov.source_hash(c) == prov.source_hash("class C:\n    def m(self): return 2")

    def test_code_changes_change_it(self):
        base = prov.source_hash("def f(x): return x + 1")
        for other in (
            "def f(x): return x + 2",
            "def f(y): return y + 1",
            "def f(x): return x + 1\nK = 3",
            'def f(x):\n    """Doc."""\n    return "Doc."',
        ):
            assert prov.source_hash(other) != base, other

    def test_an_edited_file_is_hashed_afresh(self, tmp_path):
        """The hash is memoised by the source text: rewriting a file in the same process changes it."""
        f = tmp_path / "m.py"
        f.write_text("def f(x): return x + 1\n")
        first = prov.code_hash(f)
        assert prov.code_hash(f) == first
        f.write_text("def f(x): return x + 2\n")
        assert prov.code_hash(f) != first
        f.write_text('def f(x):\n    """Doc."""\n    return x + 1\n')
        assert prov.code_hash(f) == first

    def test_errors(self):
        with pytest.raises(ValueError, match="not valid Python"):
            prov.source_hash("def f(:")
        with pytest.raises(TypeError, match="source must be a string"):
            prov.source_hash(b"x = 1")


class TestImportClosure:
    def test_follows_names_to_their_modules(self):
        closure = prov.import_closure("credalbook.papers.eu.experiments")
        for m in ("credalbook.papers.eu.experiments", "credalbook.gp.classifier", "credalbook.metrics.epistemic"):
            assert m in closure
        # modules the experiments never import stay out, and so do the packages' re-exporting __init__s
        for m in (
            "credalbook.plotting",
            "credalbook.stats.bootstrap",
            "credalbook.papers.mortier.error_rates",
            "credalbook.metrics",
            "credalbook.papers.eu",
        ):
            assert m not in closure

    def test_imports_inside_functions_count(self, tmp_path):
        mod = tmp_path / "m.py"
        mod.write_text(
            "import numpy\n\ndef f():\n    from credalbook.metrics import ece_confidence\n"
            "    from credalbook import __version__\n    import credalbook.gp.classifier\n"
        )
        found = prov._imports_of("credalbook.fake.m", mod)
        # a name imported from a package is followed to the module that defines it; __version__ is no code
        assert found == {"credalbook.metrics.classification", "credalbook.gp.classifier"}

    def test_names_a_package_imports_on_first_access(self, tmp_path):
        """``credalbook.stats`` imports its torch-based names on first access (a module ``__getattr__``);
        its ``if TYPE_CHECKING:`` block names them, and the closure follows that block to their modules."""
        import ast

        import credalbook.stats as stats

        mod = tmp_path / "m.py"
        mod.write_text("from credalbook.stats import instance_calibration_test, WeightFunction, calibration_test\n")
        found = prov._imports_of("credalbook.fake.m", mod)
        assert found == {"credalbook.stats.instance", "credalbook.stats.weight_learning", "credalbook.stats.classifier"}
        # the lazy table and the TYPE_CHECKING block name the same things, from the same modules
        tree = ast.parse(Path(stats.__file__).read_text())
        block = next(n for n in tree.body if isinstance(n, ast.If))
        named = {a.name: node.module for node in block.body for a in node.names}
        assert named == stats._LAZY
        assert all(getattr(stats, name) is not None for name in stats._LAZY)

    def test_unhashed_packages_are_left_out(self):
        closure = prov.import_closure("credalbook.book.records")
        assert closure == []
        assert not any(m.startswith("credalbook.book") for m in prov.import_closure("credalbook.papers.parts"))

    def test_errors(self):
        with pytest.raises(ValueError, match="module must name a credalbook module"):
            prov.import_closure("numpy")


class TestModuleHashes:
    def test_main(self):
        h = prov.module_hashes(["credalbook.papers.eu.experiments", "credalbook.book.records", "numpy"])
        assert list(h) == ["credalbook/papers/eu/experiments.py"]
        assert re.fullmatch(r"[0-9a-f]{16}", h["credalbook/papers/eu/experiments.py"])
        assert h["credalbook/papers/eu/experiments.py"] == prov.code_hash(
            prov._PACKAGE / "papers" / "eu" / "experiments.py"
        )

    def test_imported_modules_by_default(self):
        import credalbook.metrics.binning  # noqa: F401

        assert "credalbook/metrics/binning.py" in prov.module_hashes()


class TestFacts:
    def test_machine_versions_git(self):
        m = prov.machine()
        assert m["cores"] >= 1 and m["cpu"]
        v = prov.versions()
        assert v["python"].count(".") == 2 and v["credalbook"]
        g = prov.git_state()
        assert g["commit"] is None or re.fullmatch(r"[0-9a-f]{40}", g["commit"])
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00", prov.utc_now())

    def test_blas_names_the_kernel_that_openblas_dispatches(self):
        """The kernel in the manifest follows OPENBLAS_CORETYPE, as OpenBLAS's own report does (threadpoolctl)."""
        threadpoolctl = pytest.importorskip("threadpoolctl")
        import numpy  # noqa: F401  (the BLAS is loaded)

        # NumPy's own library: SciPy may have loaded another OpenBLAS (another version) before it
        info = [
            i
            for i in threadpoolctl.threadpool_info()
            if i.get("user_api") == "blas" and "numpy" in str(i.get("filepath", ""))
        ]
        if not info or info[0].get("internal_api") != "openblas" or platform.machine() != "x86_64":
            pytest.skip("NumPy's BLAS is not OpenBLAS on x86-64")
        assert prov.blas().split() == [info[0]["internal_api"], info[0]["version"], info[0]["architecture"]]
        code = "import numpy; from credalbook._provenance import blas; print(blas())"
        for kernel in ("Nehalem", "Sandybridge"):  # old kernels every current x86-64 CPU runs
            env = {**os.environ, "OPENBLAS_CORETYPE": kernel}
            out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
            assert out.stdout.split()[-1] == kernel, out.stdout

    def test_machine_names_the_blas(self):
        assert prov.machine()["blas"] == prov.blas()

    def test_git_state_without_git(self, tmp_path, monkeypatch):
        # a copy without .git (the GPU machine's): commit and cleanliness only as stated by the caller
        monkeypatch.delenv("CREDALBOOK_GIT_COMMIT", raising=False)
        monkeypatch.delenv("CREDALBOOK_GIT_CLEAN", raising=False)
        monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path.parent))
        assert prov.git_state(tmp_path) == {"commit": None, "clean": None}
        sha = "0123456789abcdef0123456789abcdef01234567"
        monkeypatch.setenv("CREDALBOOK_GIT_COMMIT", sha.upper())
        assert prov.git_state(tmp_path) == {"commit": sha, "clean": None}
        monkeypatch.setenv("CREDALBOOK_GIT_CLEAN", "1")
        assert prov.git_state(tmp_path) == {"commit": sha, "clean": True}
        monkeypatch.setenv("CREDALBOOK_GIT_COMMIT", "4aae6d9")  # not a full sha: not taken
        assert prov.git_state(tmp_path) == {"commit": None, "clean": None}
        # a checkout with git ignores the variables
        monkeypatch.setenv("CREDALBOOK_GIT_COMMIT", sha)
        assert prov.git_state()["commit"] != sha

    def test_parts_used(self):
        prov.note_part("chap", "tiny", "p1", state="computed", digest="abc", wall_seconds=1.5)
        prov.note_part("chap", "quick", "p1", state="recorded", digest="def", wall_seconds=2.0)
        assert prov.parts_used("chap", "tiny") == {"p1": {"state": "computed", "digest": "abc", "wall_seconds": 1.5}}
        assert prov.parts_used("other", "tiny") == {}
