"""The chapter's network settings and MDS-full by label replication."""

import numpy as np
import pytest

from credalbook.data.mix import make_mix_dataset
from credalbook.papers.mimori import AUTHORS_NETWORK, chapter_setting, STRONG_TTA_AUGMENT
from credalbook.papers.mimori.networks import _replicated_labels


class TestChapterSetting:
    def test_main(self):
        paper = chapter_setting("paper", seed=3)
        assert paper["arch_options"] == {"conv_dropout": 0.05, "hidden": 128} == AUTHORS_NETWORK
        assert paper["augment"] is None and paper["seeds"] == (3, 4, 5)
        assert paper["tta_augment"] == STRONG_TTA_AUGMENT == {"rotation": 180.0, "shift": 10.0, "hflip": True}
        quick = chapter_setting("quick")
        assert quick == dict(arch_options={}, augment="auto", seeds=(0,), tta_augment=None)
        colour = chapter_setting("paper", dataset="cifar10")
        assert colour["augment"] == "auto" and colour["tta_augment"] is None and len(colour["seeds"]) == 3
        assert chapter_setting("tiny", n_seeds=2)["seeds"] == (0, 1)

    def test_errors(self):
        with pytest.raises(ValueError, match="scale"):
            chapter_setting("huge")
        with pytest.raises(ValueError, match="n_seeds"):
            chapter_setting("paper", n_seeds=0)


class TestReplicatedLabels:
    def test_main(self):
        """Every image appears once per label; its own label is among them; the labels follow Q; mean count m."""
        mix = make_mix_dataset("digits", sizes=(1000, 100, 100), n_labels_val=1, n_labels_test=2, seed=0)
        x, y = _replicated_labels(mix, 5.0, 0)
        n = len(mix.train.labels)
        assert len(x) == len(y) and abs(len(y) / n - 5.0) < 0.2
        # rebuild the histograms from the repeated images: rows are contiguous per image
        flat = np.asarray(mix.train.images).reshape(n, -1)
        first = {flat[i].tobytes(): i for i in range(n)}
        owner = np.array([first[r.tobytes()] for r in np.asarray(x).reshape(len(x), -1)])
        assert np.all(np.diff(owner) >= 0)  # image by image
        hist = np.zeros((n, mix.n_classes), int)
        np.add.at(hist, (owner, y), 1)
        uniq = np.unique(flat, axis=0, return_index=True)[1]
        assert np.all(hist[uniq, np.asarray(mix.train.labels)[uniq]] >= 1)
        extra = hist.sum() - n
        q = np.asarray(mix.train.true_probs)
        expected = ((hist.sum(axis=1) - 1)[:, None] * q).sum(axis=0)
        observed = hist.sum(axis=0) - np.bincount(mix.train.labels, minlength=mix.n_classes)
        assert np.abs(observed - expected).max() < 4 * np.sqrt(extra)

    def test_errors(self):
        mix = make_mix_dataset("digits", sizes=(100, 50, 50), n_labels_val=1, n_labels_test=2, seed=0)
        with pytest.raises(ValueError, match="train_labels"):
            _replicated_labels(mix, 0.5, 0)


class TestMixNetworkKey:
    """A MixNetwork is a cache key (``mimori_predictions(network=...)``): its hash must be the same in every process."""

    _CODE = (
        "import joblib, torch\n"
        "from credalbook.papers.mimori import MixNetwork\n"
        "g = torch.Generator().manual_seed(0)\n"
        "net = MixNetwork({'conv.weight': torch.randn(4, 1, 3, 3, generator=g), 'bn.num_batches_tracked': "
        "torch.tensor(7)}, 'threeconv', {'hidden': 8}, 10, (1, 28, 28), None, [{'epoch': 1}], 1, 1, 0.5)\n"
        "print(joblib.hash(net))\n"
    )

    def test_same_hash_in_two_processes(self):
        import subprocess
        import sys

        runs = [subprocess.run([sys.executable, "-c", self._CODE], capture_output=True, text=True, check=True)
                for _ in range(2)]  # fmt: skip
        first, second = (r.stdout.strip() for r in runs)
        assert len(first) == 32 and first == second

    def test_pickle_round_trip(self):
        import pickle

        import torch

        from credalbook.papers.mimori import MixNetwork

        net = MixNetwork(
            {"w": torch.randn(3, 2), "n": torch.tensor(7)}, "threeconv", {}, 10, (1, 28, 28), None, [], 1, 1, 0.5
        )
        back = pickle.loads(pickle.dumps(net))
        assert {k: v.dtype for k, v in back.state_dict.items()} == {"w": torch.float32, "n": torch.int64}
        for k in net.state_dict:
            assert torch.equal(back.state_dict[k], net.state_dict[k])
        assert back.history == [] and back.seconds == 0.5 and back.image_shape == (1, 28, 28)
