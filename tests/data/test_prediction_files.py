"""Tests for credalbook.data.prediction_files (reading stored predictions and labels)."""

import numpy as np
import pytest
import torch

from credalbook.data import load_array, PREDICTION_FILE_SUFFIXES


@pytest.fixture()
def probs():
    return np.random.default_rng(0).dirichlet(np.ones(4), size=25)


class TestLoadArray:
    def test_main(self, tmp_path, probs):
        labels = np.arange(25) % 4
        np.save(tmp_path / "p.npy", probs)
        np.savez(tmp_path / "one.npz", probs)
        np.savez_compressed(tmp_path / "two.npz", probs=probs, labels=labels)
        torch.save(torch.from_numpy(probs), tmp_path / "p.pt")
        torch.save({"logits": torch.from_numpy(probs), "epoch": 3}, tmp_path / "p.pth")  # the one tensor
        torch.save(
            {"probs": torch.from_numpy(probs), "labels": torch.from_numpy(labels), "epoch": 3}, tmp_path / "both.pt"
        )
        for path, key in [
            ("p.npy", None),
            ("one.npz", None),
            ("two.npz", "probs"),
            ("p.pt", None),
            ("p.pth", None),
            ("both.pt", "probs"),
        ]:
            out = load_array(tmp_path / path, key=key)
            assert out.dtype == np.float64 and out.shape == (25, 4), path
            np.testing.assert_array_equal(out, probs)  # bit-exact round trips
        np.testing.assert_array_equal(load_array(tmp_path / "two.npz", key="labels", name="labels"), labels)
        np.testing.assert_array_equal(load_array(str(tmp_path / "both.pt"), key="labels"), labels)
        assert set(PREDICTION_FILE_SUFFIXES) == {".npy", ".npz", ".csv", ".pt", ".pth"}

    def test_csv(self, tmp_path, probs):
        np.savetxt(tmp_path / "plain.csv", probs, delimiter=",", fmt="%.17g")
        np.savetxt(tmp_path / "header.csv", probs, delimiter=";", fmt="%.17g", header="a;b;c;d", comments="")
        np.savetxt(tmp_path / "tab.CSV", probs, delimiter="\t", fmt="%.17g")
        for name in ("plain.csv", "header.csv", "tab.CSV"):
            np.testing.assert_array_equal(load_array(tmp_path / name), probs)  # %.17g round-trips float64
        (tmp_path / "y.csv").write_text("label\n3\n0\n\n1\n")
        y = load_array(tmp_path / "y.csv", name="labels", ndim=1)
        np.testing.assert_array_equal(y, [3.0, 0.0, 1.0])
        (tmp_path / "one_row.csv").write_text("0.25,0.75\n")
        assert load_array(tmp_path / "one_row.csv").shape == (1, 2)

    def test_dtypes_and_ndim(self, tmp_path):
        y = np.array([[2], [0], [1]], dtype=np.int32)
        np.save(tmp_path / "y.npy", y)
        out = load_array(tmp_path / "y.npy", name="labels", ndim=1)
        assert out.shape == (3,) and out.dtype == np.int32
        assert load_array(tmp_path / "y.npy", ndim=(2, 3)).shape == (3, 1)
        torch.save(torch.tensor([[0.5, 0.5]], dtype=torch.bfloat16), tmp_path / "b.pt")
        out = load_array(tmp_path / "b.pt")
        assert out.dtype == np.float32 and out.tolist() == [[0.5, 0.5]]
        torch.save(torch.tensor([[0.25, 0.75]], dtype=torch.float16), tmp_path / "h.pt")
        assert load_array(tmp_path / "h.pt").dtype == np.float16

    def test_errors(self, tmp_path, probs):
        def fails(path, match, **kw):
            with pytest.raises(ValueError, match=match) as info:
                load_array(tmp_path / path, **kw)
            assert str(tmp_path / path) in str(info.value)  # every message names the file
            return str(info.value)

        msg = fails("missing.npy", "does not exist", name="labels")
        assert msg.startswith("labels file ")
        fails("p.txt", r"unknown file type '\.txt'; use one of \.npy, \.npz, \.csv, \.pt, \.pth")
        fails("noext", r"unknown file type '\(no extension\)'")
        (tmp_path / "d.npy").mkdir()
        fails("d.npy", "is a directory")
        # npy: pickled objects, strings, empty, corrupt
        np.save(tmp_path / "obj.npy", np.array([{"a": 1}], dtype=object), allow_pickle=True)
        fails("obj.npy", "Python objects .*refused")
        np.save(tmp_path / "str.npy", np.array(["a", "b"]))
        fails("str.npy", "must hold numbers; got dtype <U1")
        np.save(tmp_path / "empty.npy", np.zeros((0, 3)))
        fails("empty.npy", r"empty array \(shape \(0, 3\)\)")
        (tmp_path / "bad.npy").write_bytes(b"not a numpy file")
        fails("bad.npy", "not a valid .npy file")
        np.save(tmp_path / "p.npy", probs)
        fails("p.npy", "key='x' applies to .npz and .pt files only", key="x")
        fails("p.npy", r"must hold a 1-dimensional array; got shape \(25, 4\)", ndim=1)
        fails("p.npy", r"must hold a 3-dimensional array", ndim=3)
        # npz: several arrays, unknown key, pickled member, no arrays
        np.savez(tmp_path / "two.npz", probs=probs, labels=np.zeros(25))
        fails("two.npz", r"holds 2 arrays \(probs, labels\); choose one with --key")
        fails("two.npz", r"has no array 'y'; it holds probs, labels", key="y")
        np.savez(tmp_path / "objz.npz", a=np.array([None], dtype=object))
        fails("objz.npz", "Python objects")
        np.savez(tmp_path / "none.npz")
        fails("none.npz", "holds no arrays")
        (tmp_path / "bad.npz").write_bytes(b"PK not a zip")
        fails("bad.npz", "not a valid .npz file")
        # csv: text, ragged, header only, empty, binary
        (tmp_path / "text.csv").write_text("a,b\n0.1,0.9\n0.2,oops\n")
        fails("text.csv", "is not numeric: line 3 reads '0.2,oops'")
        (tmp_path / "ragged.csv").write_text("0.1,0.9\n0.2,0.3,0.5\n")
        fails("ragged.csv", r"different numbers of columns \(\[2, 3\]\)")
        (tmp_path / "head.csv").write_text("a,b\n")
        fails("head.csv", "header line but no rows")
        (tmp_path / "blank.csv").write_text("\n\n")
        fails("blank.csv", "is empty")
        (tmp_path / "bin.csv").write_bytes(b"\xff\xfe\x00\x81")
        fails("bin.csv", "not a text")
        # torch: refused pickle, several tensors, not a tensor, corrupt, key on a tensor
        torch.save({"probs": torch.zeros(2, 2), "model": torch.nn.Linear(2, 2)}, tmp_path / "module.pt")
        fails(
            "module.pt", r"holds a torch\.nn\.modules\.linear\.Linear, which torch\.load\(weights_only=True\) refuses"
        )
        torch.save({"a": torch.zeros(2, 2), "b": torch.ones(2, 2)}, tmp_path / "two.pt")
        fails("two.pt", r"2 tensors \(a, b\); choose one with --key")
        fails("two.pt", "has no tensor 'c'; it holds a, b", key="c")
        torch.save({"epoch": 3}, tmp_path / "none.pt")
        fails("none.pt", "dict with no tensors")
        torch.save([1, 2, 3], tmp_path / "list.pt")
        fails("list.pt", "holds a list, not a tensor")
        torch.save(torch.zeros(2, 2), tmp_path / "t.pt")
        fails("t.pt", "not a dict; key='a' does not apply", key="a")
        (tmp_path / "bad.pt").write_bytes(b"garbage")
        fails("bad.pt", "not a valid torch file")
        torch.save(torch.zeros(2, 2, dtype=torch.complex64), tmp_path / "c.pt")
        fails("c.pt", "must hold numbers; got dtype complex64")
        with pytest.raises(TypeError, match="path must be a str"):
            load_array(3)
        with pytest.raises(TypeError, match="key must be a str"):
            load_array(tmp_path / "t.pt", key=1)
