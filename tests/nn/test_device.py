"""Tests for credalbook.nn.device."""

import random

import numpy as np
import pytest
import torch

from credalbook.nn import resolve_device, seed_everything

CUDA = pytest.mark.skipif(not torch.cuda.is_available(), reason="CUDA is not available")
DEVICES = ["cpu", pytest.param("cuda", marks=CUDA)]


class TestResolveDevice:
    def test_main(self):
        expected = "cuda" if torch.cuda.is_available() else ("mps" if torch.backends.mps.is_available() else "cpu")
        assert resolve_device("auto").type == expected
        assert resolve_device() == resolve_device("auto")
        assert resolve_device("cpu") == torch.device("cpu")
        assert resolve_device(torch.device("cpu")) == torch.device("cpu")
        assert resolve_device(" cpu ") == torch.device("cpu")

    def test_auto_is_cpu_without_accelerator(self):
        if torch.cuda.is_available() or torch.backends.mps.is_available():
            pytest.skip("an accelerator is present")
        assert resolve_device("auto") == torch.device("cpu")

    @pytest.mark.parametrize("device", DEVICES)
    def test_devices(self, device):
        dev = resolve_device(device)
        assert dev.type == device
        assert torch.zeros(2, device=dev).sum().item() == 0.0

    @pytest.mark.skipif(torch.cuda.is_available(), reason="CUDA is present")
    @pytest.mark.parametrize("device", ["cuda", "cuda:1", torch.device("cuda")])
    def test_cuda_absent(self, device):
        with pytest.raises(ValueError, match="CUDA is not available"):
            resolve_device(device)

    @CUDA
    def test_cuda_index_out_of_range(self):
        with pytest.raises(ValueError, match="device"):
            resolve_device(f"cuda:{torch.cuda.device_count()}")

    def test_errors(self):
        with pytest.raises(ValueError, match="device"):
            resolve_device("gpu0")
        with pytest.raises(ValueError, match="device"):
            resolve_device(3)


class TestSeedEverything:
    def test_main(self):
        rng = seed_everything(123)
        assert isinstance(rng, np.random.Generator)
        draws = (random.random(), np.random.rand(), torch.rand(1).item(), rng.random())
        rng = seed_everything(123)
        again = (random.random(), np.random.rand(), torch.rand(1).item(), rng.random())
        assert draws == again
        rng = seed_everything(124)
        assert random.random() != draws[0]
        assert rng.random() == np.random.default_rng(124).random()

    def test_errors(self):
        for bad in (-1, 2**32, 1.5, "0", True):
            with pytest.raises(ValueError, match="seed"):
                seed_everything(bad)
