"""Tests for credalbook._validation, directly and through the public functions that use it.

Every error is a ValueError naming the argument (and where useful the offending value or row).
"""

import warnings

import numpy as np
import pytest
import torch

from credalbook._validation import (
    as_numpy,
    as_rng,
    check_alpha0,
    check_choice,
    check_ens_probs,
    check_labels,
    check_logits,
    check_n_bins,
    check_positive_float,
    check_positive_int,
    check_probability,
    check_probs,
    check_probs_labels,
    check_real_dtype,
    check_seed,
    check_weights,
    MAX_BINS,
    SIMPLEX_ATOL,
    simplex_atol,
)
from credalbook.metrics import (
    accuracy,
    brier_score,
    calibration_summary,
    ece_classwise,
    ece_confidence,
    nll,
    reliability_curve,
)
from credalbook.stats import hosmer_lemeshow, hosmer_lemeshow_statistic, null_rejection_rate

GOOD_P = [[0.2, 0.3, 0.5], [0.6, 0.3, 0.1]]

# Public functions taking (probs, labels) as their first arguments.
PUBLIC = {
    "accuracy": accuracy,
    "brier_score": brier_score,
    "nll": nll,
    "ece_confidence": ece_confidence,
    "ece_classwise": ece_classwise,
    "reliability_curve": reliability_curve,
    "calibration_summary": calibration_summary,
    "hosmer_lemeshow_statistic": lambda p, y, **kw: hosmer_lemeshow_statistic(p, y, n_bins=1, **kw),
    "hosmer_lemeshow": lambda p, y, **kw: hosmer_lemeshow(p, y, n_bins=1, n_resamples=9, **kw),
}


class TestAsNumpy:
    def test_main(self):
        np.testing.assert_array_equal(as_numpy([1, 2], "x"), [1, 2])
        t = torch.tensor([0.5, 0.25], requires_grad=True)
        out = as_numpy(t * 2, "x")
        assert isinstance(out, np.ndarray) and out.tolist() == [1.0, 0.5]
        a = np.arange(3)
        assert as_numpy(a, "x") is a

    def test_errors(self):
        with pytest.raises(ValueError, match="probs must be an array, got None"):
            as_numpy(None, "probs")
        with pytest.raises(ValueError, match="probs could not be converted"):
            as_numpy([[0.5, 0.5], [1.0]], "probs")


class TestCheckProbs:
    def test_main(self):
        out = check_probs(GOOD_P)
        assert out.dtype == np.float64 and out.shape == (2, 3)
        check_probs(np.array(GOOD_P, dtype=np.float32))
        check_probs(np.eye(3, dtype=bool))  # one-hot booleans are valid probabilities
        check_probs(torch.softmax(torch.randn(50, 10), dim=1))  # float32 rounding within tolerance
        # the tolerance on the row sums and on the [0, 1] range
        check_probs([[0.5 + SIMPLEX_ATOL / 2, 0.5]])
        check_probs([[1 + SIMPLEX_ATOL / 2, -SIMPLEX_ATOL / 2]])
        # batched (..., N, K)
        assert check_probs(np.full((2, 3, 4, 2), 0.5)).shape == (2, 3, 4, 2)

    def test_errors(self):
        with pytest.raises(ValueError, match=r"probs must have at least 2 dimensions .*got shape \(2,\)"):
            check_probs([0.5, 0.5])
        with pytest.raises(ValueError, match=r"probs must have at least 2 classes .*got shape \(3, 1\)"):
            check_probs(np.ones((3, 1)))
        with pytest.raises(ValueError, match="probs must contain at least one instance"):
            check_probs(np.ones((0, 3)))
        with pytest.raises(ValueError, match="probs must be numeric"):
            check_probs([["a", "b"]])
        with pytest.raises(ValueError, match=r"probs must be finite; probs\[.*1.*\] = nan"):
            check_probs([[0.5, 0.5], [np.nan, 1.0]])
        with pytest.raises(ValueError, match=r"probs must be finite.*inf"):
            check_probs([[np.inf, 0.0]])
        with pytest.raises(ValueError, match=r"probs must lie in \[0, 1\]; .* = -0\.1"):
            check_probs([[0.5, 0.5], [-0.1, 1.1]])
        with pytest.raises(ValueError, match=r"probs must lie in \[0, 1\]; .* = -0\.2"):
            check_probs([[0.6, 0.6, -0.2]])
        with pytest.raises(ValueError, match=r"probs must sum to 1 along the last axis; row 7 sums to 1\.3"):
            check_probs([[0.5, 0.5]] * 7 + [[0.5, 0.8]])
        with pytest.raises(ValueError, match=r"row 1 sums to 0\.9"):
            check_probs([[0.5, 0.5], [0.4, 0.5]])
        with pytest.raises(ValueError, match=r"row 0 sums to 1\.0003"):
            check_probs([[0.5003, 0.5]])  # just beyond the tolerance
        # batched: the row index names the batch position too
        p = np.full((2, 3, 2), 0.5)
        p[1, 2] = [0.9, 0.3]
        with pytest.raises(ValueError, match=r"row \(1, 2\) sums to 1\.2"):
            check_probs(p)
        # the argument's own name is used
        with pytest.raises(ValueError, match="ens_probs must sum to 1"):
            check_probs([[0.1, 0.1]], name="ens_probs")
        with pytest.raises(ValueError, match="probs must be an array, got None"):
            check_probs(None)


class TestCheckLabels:
    def test_main(self):
        out = check_labels([0, 2, 1], n_classes=3, shape=(3,))
        assert out.dtype == np.int64 and out.tolist() == [0, 2, 1]
        assert check_labels(np.array([1.0, 0.0]), n_classes=2, shape=(2,)).tolist() == [1, 0]
        assert check_labels(np.array([1, 0], dtype=np.uint8), n_classes=2, shape=(2,)).tolist() == [1, 0]
        assert check_labels(torch.tensor([[1, 0]]), n_classes=2, shape=(1, 2)).shape == (1, 2)

    def test_errors(self):
        with pytest.raises(ValueError, match=r"labels must have shape \(3,\) to match the predictions; got \(2,\)"):
            check_labels([0, 1], n_classes=3, shape=(3,))
        with pytest.raises(ValueError, match=r"labels must have shape \(2,\).*got \(2, 1\)"):
            check_labels([[0], [1]], n_classes=3, shape=(2,))
        with pytest.raises(ValueError, match=r"labels must lie in \[0, 3\); labels\[2\] = 3"):
            check_labels([0, 1, 3], n_classes=3, shape=(3,))
        with pytest.raises(ValueError, match=r"labels must lie in \[0, 3\); labels\[0\] = -1"):
            check_labels([-1, 1], n_classes=3, shape=(2,))
        with pytest.raises(ValueError, match=r"labels must hold integer class indices; labels\[1\] = 0\.5"):
            check_labels([1.0, 0.5], n_classes=3, shape=(2,))
        with pytest.raises(ValueError, match=r"labels must hold integer class indices; labels\[0\] = nan"):
            check_labels([np.nan, 0.0], n_classes=3, shape=(2,))
        with pytest.raises(ValueError, match="labels must hold integer class indices, got dtype bool"):
            check_labels([True, False], n_classes=2, shape=(2,))
        with pytest.raises(ValueError, match="labels must hold integer class indices, got dtype"):
            check_labels(["0", "1"], n_classes=2, shape=(2,))
        with pytest.raises(ValueError, match="labels must be an array, got None"):
            check_labels(None, n_classes=2, shape=(2,))
        with pytest.raises(ValueError, match=r"y_val\[0\] = 5"):
            check_labels([5], n_classes=2, shape=(1,), name="y_val")

    def test_huge_float_label_reported(self):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            with pytest.raises(ValueError, match=r"labels\[0\] = 1e\+20"):
                check_labels(np.array([1e20]), n_classes=2, shape=(1,))


class TestCheckProbsLabels:
    def test_main(self):
        p, y = check_probs_labels(GOOD_P, [2, 0])
        assert p.shape == (2, 3) and y.tolist() == [2, 0]
        p, y = check_probs_labels(np.full((4, 5, 2), 0.5), np.zeros((4, 5), dtype=int), min_instances=5)
        assert y.shape == (4, 5)

    def test_errors(self):
        with pytest.raises(ValueError, match=r"probs must contain at least 3 instances for this measure; got N = 2"):
            check_probs_labels(GOOD_P, [0, 1], min_instances=3)
        with pytest.raises(ValueError, match=r"labels must lie in \[0, 3\)"):
            check_probs_labels(GOOD_P, [0, 3])
        with pytest.raises(ValueError, match=r"labels must have shape \(2,\)"):
            check_probs_labels(GOOD_P, [0, 1, 2])


class TestCheckPositiveInt:
    def test_main(self):
        assert check_positive_int(10, "n_bins") == 10
        assert type(check_positive_int(np.int64(3), "n_bins")) is int
        assert check_positive_int(0, "n", minimum=0) == 0

    def test_errors(self):
        for bad in (0, -1, 2.0, 2.5, True, False, "10", None, np.float64(3.0)):
            with pytest.raises(ValueError, match="n_bins must be an integer >= 1; got"):
                check_positive_int(bad, "n_bins")
        with pytest.raises(ValueError, match=r"n_classes must be an integer >= 2; got 1"):
            check_positive_int(1, "n_classes", minimum=2)


class TestCheckProbability:
    def test_main(self):
        assert check_probability(0.05, "alpha") == 0.05
        assert check_probability(np.float32(0.5), "alpha") == 0.5
        assert check_probability(0.0, "q", open_interval=False) == 0.0
        assert check_probability(1, "q", open_interval=False) == 1.0

    def test_errors(self):
        for bad in (0, 1, 0.0, 1.0, -0.1, 1.5, float("nan"), float("inf")):
            with pytest.raises(ValueError, match=r"alpha must lie in \(0, 1\); got"):
                check_probability(bad, "alpha")
        for bad in (None, "abc", "0.1", [0.1], True, np.True_, 0.5j):
            with pytest.raises(ValueError, match=r"alpha must be a number in \(0, 1\); got"):
                check_probability(bad, "alpha")
        with pytest.raises(ValueError, match=r"q must be a number in \[0, 1\]; got True"):
            check_probability(True, "q", open_interval=False)  # not silently 1.0
        with pytest.raises(ValueError, match=r"q must lie in \[0, 1\]; got 1\.5"):
            check_probability(1.5, "q", open_interval=False)


class TestCheckChoice:
    def test_main(self):
        assert check_choice("a", "kind", {"a", "b"}) == "a"

    def test_errors(self):
        with pytest.raises(ValueError, match=r"kind must be one of \['a', 'b'\]; got 'c'"):
            check_choice("c", "kind", {"b", "a"})
        for bad in (None, ["a"], np.array(["a", "b"]), 1, {"a": 1}):  # unhashable or array values too
            with pytest.raises(ValueError, match="kind must be one of"):
                check_choice(bad, "kind", {"a"})


class TestSimplexAtol:
    def test_main(self):
        assert simplex_atol(np.float64, 10) == SIMPLEX_ATOL == simplex_atol(np.int64, 10) == simplex_atol(bool, 3)
        assert simplex_atol(np.float32, 10) == SIMPLEX_ATOL  # 10 · 1.19e-7 < 1e-4
        assert simplex_atol(np.float32, 1000) == 1000 * np.finfo(np.float32).eps
        assert simplex_atol(np.float16, 10) == 10 * 2.0**-10  # K · eps(float16)
        assert simplex_atol(torch.float16, 10) == simplex_atol(np.float16, 10)
        assert simplex_atol(torch.bfloat16, 4) == 4 * 2.0**-7


class TestCheckRealDtype:
    def test_main(self):
        for arr in (
            np.zeros(2),
            np.zeros(2, np.int8),
            np.zeros(2, np.uint64),
            np.zeros(2, bool),
            np.zeros(2, np.float16),
        ):
            assert check_real_dtype(arr, "x") is arr

    def test_errors(self):
        for arr in (
            np.zeros(2, complex),
            np.array([1, "a"], dtype=object),
            np.array(["a"]),
            np.array([b"a"]),
            np.array(["2020-01-01"], dtype="datetime64[D]"),
        ):
            with pytest.raises(ValueError, match=r"x must be numeric \(real numbers\), got dtype"):
                check_real_dtype(arr, "x")
        with pytest.raises(ValueError, match="y must hold integer class indices, got dtype bool"):
            check_real_dtype(np.zeros(2, bool), "y", allow_bool=False, what="hold integer class indices")


class TestCheckProbsDtypes:
    """Low-precision rows pass (with a dtype-aware tolerance) and come back as float64; complex never."""

    def test_low_precision(self):
        logits = torch.randn(500, 10, generator=torch.Generator().manual_seed(0)) * 3
        for dtype in (torch.float16, torch.bfloat16, torch.float32, torch.float64):
            p = torch.softmax(logits.to(dtype), dim=1)
            out = check_probs(p)
            assert out.dtype == np.float64 and out.shape == (500, 10)
            np.testing.assert_allclose(out, p.double().numpy())  # the values themselves, not renormalised
        p16 = torch.softmax(logits, dim=1).numpy().astype(np.float16)
        assert check_probs(p16).dtype == np.float64
        assert check_ens_probs(torch.softmax(torch.randn(4, 3, 10), -1).half()).shape == (4, 3, 10)
        # float16 rows that really are off the simplex are still rejected
        with pytest.raises(ValueError, match=r"row 0 sums to 1\.1"):
            check_probs(np.array([[0.6, 0.5]], dtype=np.float16))
        # an explicit atol wins over the dtype's
        with pytest.raises(ValueError, match="must sum to 1"):
            check_probs(np.array([[0.5, 0.5005]], dtype=np.float16), atol=1e-4)

    def test_no_copy(self):
        p = np.full((4, 2), 0.5)
        assert check_probs(p) is p  # float64: validated in place, not copied
        y = np.array([0, 1, 1, 0])
        assert check_labels(y, n_classes=2, shape=(4,)) is y
        assert check_probs(np.empty((0, 3, 2))).shape == (0, 3, 2)  # an empty batch is not an error

    def test_fast_path_agrees_with_elementwise_checks(self):
        """The min/max/row-sum checks reject exactly what the element-wise checks reject."""
        rng = np.random.default_rng(0)
        for _trial in range(300):
            p = rng.dirichlet(np.ones(3), size=5)
            i, j = rng.integers(5), rng.integers(3)
            p[i, j] += rng.choice([0.0, 1e-5, 2e-4, -2e-4, 0.5, -1.5, np.nan, np.inf, -np.inf])
            elementwise_ok = bool(
                np.isfinite(p).all()
                and (p >= -1e-4).all()
                and (p <= 1 + 1e-4).all()
                and (np.abs(p.sum(1) - 1) <= 1e-4).all()
            )
            try:
                check_probs(p)
                ok = True
            except ValueError:
                ok = False
            assert ok == elementwise_ok, p

    def test_errors(self):
        for bad in (np.full((2, 2), 0.5 + 0j), np.array([[0.5, 0.5]], dtype=object), torch.full((2, 2), 0.5 + 0j)):
            with pytest.raises(ValueError, match="probs must be numeric"):
                check_probs(bad)
        with pytest.raises(ValueError, match="labels must hold integer class indices, got dtype complex"):
            check_labels(np.array([0j, 1]), n_classes=2, shape=(2,))
        with pytest.raises(ValueError, match="alpha0 must be numeric"):
            check_alpha0(np.array([1 + 1j]), (2,))
        with pytest.raises(ValueError, match="logits must hold real numbers"):
            check_logits(np.zeros((2, 2), complex))


class TestCheckWeights:
    def test_main(self):
        np.testing.assert_array_equal(check_weights([0.25, 0.75], 2), [0.25, 0.75])
        w = np.random.default_rng(0).dirichlet(np.ones(1000)).astype(np.float32)
        assert check_weights(w, 1000).dtype == np.float64  # float32 rounding of 1000 weights passes

    def test_errors(self):
        for bad in ([0.5 + 0j, 0.5], ["a", "b"], [True, False]):
            with pytest.raises(ValueError, match="weights must be numeric"):
                check_weights(bad, 2)
        with pytest.raises(ValueError, match="weights must sum to 1"):
            check_weights([0.5, 0.6], 2)


class TestCheckNBins:
    def test_main(self):
        assert check_n_bins(1) == 1 and check_n_bins(np.int32(15)) == 15 and check_n_bins(MAX_BINS) == MAX_BINS

    def test_errors(self):
        for bad in (0, -1, True, 2.0, "10", None, MAX_BINS + 1, 10**9):
            with pytest.raises(ValueError, match=r"n_bins must be an integer >= 1 and <= 1000000; got"):
                check_n_bins(bad)
        with pytest.raises(ValueError, match=r"bins must be an integer >= 1 and <= 1000000; got 0"):
            check_n_bins(0, "bins")


class TestCheckPositiveFloat:
    def test_main(self):
        assert check_positive_float(2, "bandwidth") == 2.0
        for good in (np.float32(0.5), np.int64(3), np.array(0.5), torch.tensor(0.5), 1e-300):
            assert check_positive_float(good, "bandwidth") > 0
        assert check_positive_float(0, "tol", allow_zero=True) == 0.0

    def test_errors(self):
        for bad in (0, -1.0, np.nan, np.inf, True, False, np.True_, "2.0", None, 1j, [1.0], np.ones(2)):
            with pytest.raises(ValueError, match="bandwidth must be a positive number; got"):
                check_positive_float(bad, "bandwidth")
        with pytest.raises(ValueError, match="tol must be a non-negative number; got -1"):
            check_positive_float(-1, "tol", allow_zero=True)


class TestCheckSeed:
    def test_main(self):
        assert check_seed(None) is None and check_seed(0) == 0 and type(check_seed(np.uint32(7))) is int
        assert check_seed([1, 2]) == [1, 2] and check_seed((np.int64(3),)) == [3]
        ss = np.random.SeedSequence(1)
        assert check_seed(ss) is ss
        g = np.random.default_rng(0)
        assert check_seed(g) is g and as_rng(g) is g  # a Generator is used as it is
        assert as_rng(5).random() == np.random.default_rng(5).random()
        bits = np.random.PCG64(4)
        assert as_rng(bits).random() == np.random.default_rng(4).random()  # a BitGenerator too

    def test_errors(self):
        for bad in (-1, 1.5, "a", True, False, np.True_, 2.0, [], [1, -2], [1.5], ["a"], np.array(3), object()):
            with pytest.raises(ValueError, match="seed must be None, a non-negative integer"):
                check_seed(bad)
        with pytest.raises(ValueError, match="rng must be None, a non-negative integer.*; got -1"):
            as_rng(-1, "rng")
        with pytest.raises(
            ValueError,
            match=r"seed must be None, a non-negative integer, a numpy SeedSequence \(not a Generator here\)",
        ):
            check_seed(np.random.default_rng(0), generator=False)


class TestPublicErrorPaths:
    """Each public (probs, labels) function reports bad inputs with the argument's name."""

    @pytest.mark.parametrize("name", sorted(PUBLIC))
    def test_main(self, name):
        PUBLIC[name](GOOD_P, [2, 0])  # valid input passes

    @pytest.mark.parametrize("name", sorted(PUBLIC))
    @pytest.mark.parametrize(
        "probs, labels, pattern",
        [
            ([0.2, 0.8], [0], r"labels must have shape \(2,\) to match the binary scores probs"),
            ([0.2, 1.8], [0, 1], r"probs given as binary scores P\(y = 1\) must lie in \[0, 1\]; probs\[1\] = 1\.8"),
            ([0.2, np.nan], [0, 1], r"probs given as binary scores P\(y = 1\) must be finite; probs\[1\] = nan"),
            ([0.2, 0.8], [0, 2], r"labels must lie in \{0, 1\} for binary scores probs .*labels\[1\] = 2"),
            ([[1.0], [1.0]], [0, 0], r"probs must have at least 2 classes"),
            ([[np.nan, 1.0], [0.5, 0.5]], [0, 0], r"probs must be finite"),
            ([[np.inf, 0.0], [0.5, 0.5]], [0, 0], r"probs must be finite"),
            ([[1.2, -0.2], [0.5, 0.5]], [0, 0], r"probs must lie in \[0, 1\]"),
            ([[0.5, 0.5], [0.7, 0.6]], [0, 0], r"probs must sum to 1 .*row 1 sums to 1\.3"),
            ([[0.5, 0.5], [0.5, 0.5]], [0, 0, 1], r"labels must have shape \(2,\)"),
            ([[0.5, 0.5], [0.5, 0.5]], [0, 2], r"labels must lie in \[0, 2\); labels\[1\] = 2"),
            ([[0.5, 0.5], [0.5, 0.5]], [-3, 0], r"labels must lie in \[0, 2\); labels\[0\] = -3"),
            ([[0.5, 0.5], [0.5, 0.5]], [0.0, 0.5], r"labels must hold integer class indices; labels\[1\] = 0\.5"),
            ([[0.5, 0.5], [0.5, 0.5]], [True, False], r"labels must hold integer class indices, got dtype bool"),
        ],
    )
    def test_errors(self, name, probs, labels, pattern):
        with pytest.raises(ValueError, match=pattern):
            PUBLIC[name](probs, labels)

    @pytest.mark.parametrize(
        "fn",
        [
            ece_confidence,
            ece_classwise,
            reliability_curve,
            calibration_summary,
            hosmer_lemeshow_statistic,
            hosmer_lemeshow,
        ],
    )
    @pytest.mark.parametrize("bad", [0, -2, 2.5, True, "10"])
    def test_n_bins(self, fn, bad):
        with pytest.raises(ValueError, match="n_bins must be an integer >= 1"):
            fn(GOOD_P, [2, 0], n_bins=bad)

    @pytest.mark.parametrize("fn", [hosmer_lemeshow_statistic, hosmer_lemeshow])
    def test_too_few_instances_for_hl(self, fn):
        with pytest.raises(ValueError, match=r"probs must contain at least 3 instances .*got N = 2"):
            fn(GOOD_P, [2, 0], n_bins=3)

    def test_unknown_options(self):
        with pytest.raises(ValueError, match=r"kind must be one of \['classwise', 'confidence'\]; got 'top'"):
            reliability_curve(GOOD_P, [2, 0], kind="top")
        with pytest.raises(ValueError, match=r"grouping must be one of \['per_class', 'single'\]"):
            hosmer_lemeshow_statistic(GOOD_P, [2, 0], n_bins=1, grouping="all")
        with pytest.raises(ValueError, match=r"null must be one of \['chi2', 'chi2_external', 'resampling'\]"):
            hosmer_lemeshow(GOOD_P, [2, 0], n_bins=1, null="asymptotic")
        with pytest.raises(ValueError, match=r"class_index must be an integer in \[0, 3\); got 3"):
            reliability_curve(GOOD_P, [2, 0], kind="classwise", class_index=3)

    def test_alpha(self):
        res = hosmer_lemeshow(GOOD_P, [2, 0], n_bins=1, n_resamples=9, seed=0)
        for bad in (0.0, 1.0, -0.5, 2.0):
            with pytest.raises(ValueError, match=r"alpha must lie in \(0, 1\)"):
                res.decision(bad)
        with pytest.raises(ValueError, match=r"alpha must lie in \(0, 1\)"):
            null_rejection_rate(n_datasets=1, n_instances=20, n_classes=2, alpha=1.0)
