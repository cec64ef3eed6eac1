"""Local datasets (Fashion-MNIST, digits, and user-provided MNIST/EMNIST/K-49/CIFAR), the IDX
format, deterministic splits, and Mix datasets with label histograms.
"""

from credalbook.data.idx import read_idx, write_idx
from credalbook.data.images import (
    Dataset,
    DatasetNotFoundError,
    DATASETS,
    load_cifar,
    load_dataset,
    load_digits,
    load_emnist,
    load_fashion_mnist,
    load_kuzushiji49,
    load_mnist,
    split_dataset,
)
from credalbook.data.mix import (
    make_mix_dataset,
    mix_images,
    MixDataset,
    MixSplit,
    PAPER_MIX_SIZES,
    sample_label_hist,
    variable_label_counts,
)
from credalbook.data.prediction_files import load_array, PREDICTION_FILE_SUFFIXES
from credalbook.data.splits import train_val_test_split

__all__ = [
    "read_idx",
    "write_idx",
    "Dataset",
    "DatasetNotFoundError",
    "DATASETS",
    "load_cifar",
    "load_dataset",
    "load_digits",
    "load_emnist",
    "load_fashion_mnist",
    "load_kuzushiji49",
    "load_mnist",
    "split_dataset",
    "make_mix_dataset",
    "mix_images",
    "MixDataset",
    "MixSplit",
    "PAPER_MIX_SIZES",
    "sample_label_hist",
    "variable_label_counts",
    "train_val_test_split",
    "load_array",
    "PREDICTION_FILE_SUFFIXES",
]
