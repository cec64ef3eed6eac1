"""Tests for credalbook.data.idx (the IDX file format of MNIST-style datasets)."""

import gzip

import numpy as np
import pytest

from credalbook.data import read_idx, write_idx


class TestReadIdx:
    @pytest.mark.parametrize("dtype", [np.uint8, np.int8, np.int16, np.int32, np.float32, np.float64])
    @pytest.mark.parametrize("shape", [(), (5,), (3, 4), (2, 3, 4), (0, 7)])
    @pytest.mark.parametrize("gz", [False, True])
    def test_main(self, tmp_path, dtype, shape, gz):
        rng = np.random.default_rng(0)
        if np.issubdtype(dtype, np.integer):
            info = np.iinfo(dtype)
            array = rng.integers(info.min, info.max, size=shape, dtype=dtype, endpoint=True)
        else:
            array = (rng.standard_normal(shape) * 1e3).astype(dtype)
        if array.size:  # the extremes survive the byte-order round trip
            array.flat[0], array.flat[-1] = np.array([-1, 1]) * (
                np.iinfo(dtype).max if np.issubdtype(dtype, np.integer) else np.finfo(dtype).max
            )
        path = tmp_path / ("a.idx.gz" if gz else "a.idx")
        write_idx(path, array)
        back = read_idx(path)
        assert back.dtype == np.dtype(dtype) and back.dtype.isnative
        assert back.shape == shape
        np.testing.assert_array_equal(back, array)
        assert back.flags.writeable

    def test_hand_written_file(self, tmp_path):
        # Independent of write_idx: 2x2 big-endian int32 and a gzipped 1-d int16.
        raw = bytes([0, 0, 0x0C, 2, 0, 0, 0, 2, 0, 0, 0, 2]) + np.array([1, -2, 70000, 3], ">i4").tobytes()
        (tmp_path / "m").write_bytes(raw)
        np.testing.assert_array_equal(read_idx(tmp_path / "m"), [[1, -2], [70000, 3]])
        raw = bytes([0, 0, 0x0B, 1, 0, 0, 0, 3]) + np.array([-1, 256, 5], ">i2").tobytes()
        # Compression is detected from the magic bytes, whatever the name.
        (tmp_path / "n.bin").write_bytes(gzip.compress(raw))
        np.testing.assert_array_equal(read_idx(str(tmp_path / "n.bin")), [-1, 256, 5])

    def test_errors(self, tmp_path):
        good = bytes([0, 0, 0x08, 1, 0, 0, 0, 3, 1, 2, 3])
        cases = {
            "magic": bytes([1]) + good[1:],
            "code": good[:2] + bytes([0x07]) + good[3:],
            "truncated": good[:-1],
            "trailing": good + b"\x00",
            "short_dims": good[:6],
            "empty": b"",
        }
        for name, raw in cases.items():
            path = tmp_path / name
            path.write_bytes(raw)
            with pytest.raises(ValueError, match=name):
                read_idx(path)
        path = tmp_path / "bad.gz"
        path.write_bytes(gzip.compress(good)[:-6])
        with pytest.raises(ValueError, match="bad.gz.*gzip"):
            read_idx(path)
        with pytest.raises(FileNotFoundError):
            read_idx(tmp_path / "absent")


class TestWriteIdx:
    def test_main(self, tmp_path):
        array = np.arange(6, dtype=np.uint8).reshape(2, 3)
        write_idx(tmp_path / "a", array)
        assert (tmp_path / "a").read_bytes() == bytes([0, 0, 8, 2, 0, 0, 0, 2, 0, 0, 0, 3, 0, 1, 2, 3, 4, 5])
        write_idx(tmp_path / "a.gz", array)
        packed = (tmp_path / "a.gz").read_bytes()
        assert packed[:2] == b"\x1f\x8b"
        assert gzip.decompress(packed) == (tmp_path / "a").read_bytes()
        write_idx(tmp_path / "b.gz", array)  # no time stamp: byte-identical
        assert (tmp_path / "b.gz").read_bytes() == packed
        # big-endian input and non-contiguous views are written as their values
        write_idx(tmp_path / "c", np.arange(12, dtype=">f8").reshape(3, 4)[:, ::2])
        np.testing.assert_array_equal(read_idx(tmp_path / "c"), [[0, 2], [4, 6], [8, 10]])

    def test_errors(self, tmp_path):
        for array in (np.arange(3, dtype=np.int64), np.ones(2, dtype=bool), np.ones(2, complex)):
            with pytest.raises(ValueError, match=str(array.dtype)):
                write_idx(tmp_path / "x", array)
