"""Tests for credalbook.calibration.fitting: the loop to the optimum and the early-stopping loop."""

import math

import numpy as np
import pytest
import torch
from sklearn.exceptions import ConvergenceWarning

from credalbook.calibration import fit_with_early_stopping
from credalbook.calibration.fitting import _fit_to_optimum, _scalar_search


def _holder(*shape):
    holder = torch.nn.Module()
    holder.w = torch.nn.Parameter(torch.zeros(*shape, dtype=torch.float64))
    return holder


class TestFitToOptimum:
    def test_main(self):
        rng = np.random.default_rng(0)
        x = torch.from_numpy(rng.normal(size=(300, 3)))
        y = x @ torch.tensor([1.5, -2.0, 0.5], dtype=torch.float64) + 0.1 * torch.from_numpy(rng.normal(size=300))
        holder = _holder(3)

        def mse(a, b):
            return ((a @ holder.w - b) ** 2).mean()

        # L-BFGS: the least-squares solution (closed form), on all rows
        hist, n_iter, cv = _fit_to_optimum(holder, (x,), y, loss=mse, cv_loss=mse, tol=1e-10)
        exact = np.linalg.lstsq(x.numpy(), y.numpy(), rcond=None)[0]
        np.testing.assert_allclose(holder.w.detach().numpy(), exact, atol=1e-8)
        assert math.isnan(cv) and [h["epoch"] for h in hist] == [0, n_iter] and n_iter >= 1
        assert hist[1]["train_loss"] == pytest.approx(float(mse(x, y).detach()))
        # a held-out part: the solution on the other rows, and the criterion on the held-out ones
        _, _, cv = _fit_to_optimum(holder, (x,), y, loss=mse, cv_loss=mse, tol=1e-10, cv_fraction=0.2, seed=1)
        perm = np.random.default_rng(1).permutation(300)
        tr, held = perm[60:], perm[:60]
        np.testing.assert_allclose(
            holder.w.detach().numpy(), np.linalg.lstsq(x.numpy()[tr], y.numpy()[tr], rcond=None)[0], atol=1e-8
        )
        assert cv == pytest.approx(float(mse(x[held], y[held]).detach()))

    def test_scalar_and_coordinate(self):
        # one log-parameter: (log t - 1.3)^2 has its minimum at 1.3
        holder = _holder(())
        _fit_to_optimum(
            holder,
            (torch.zeros(4),),
            torch.zeros(4),
            loss=lambda a, b: (holder.w - 1.3) ** 2,
            cv_loss=None,
            method="scalar",
        )
        assert holder.w.item() == pytest.approx(1.3, abs=1e-6)
        # non-smooth, separable: |w0 - 0.7| + |w1 + 2.2| by cyclic scalar searches
        holder = _holder(2)
        target = torch.tensor([0.7, -2.2], dtype=torch.float64)
        _fit_to_optimum(
            holder,
            (torch.zeros(4),),
            torch.zeros(4),
            loss=lambda a, b: (holder.w - target).abs().sum(),
            cv_loss=None,
            method="coordinate",
        )
        np.testing.assert_allclose(holder.w.detach().numpy(), [0.7, -2.2], atol=1e-5)
        # a flat direction keeps its value (ties go to the current value)
        x, f, _, status = _scalar_search(lambda v: 1.0, 0.25, max_iter=100, tol=1e-6)
        assert (x, f, status) == (0.25, 1.0, "ok")
        # the edge of [-10, 10] is reported
        assert _scalar_search(lambda v: v, 0.0, max_iter=100, tol=1e-6)[3] == "bound"

    def test_errors(self):
        holder = _holder(2)
        args = (holder, (torch.zeros(4, 2),), torch.zeros(4))

        def loss(a, b):
            return (holder.w**2).sum()

        with pytest.raises(ValueError, match="max_iter must be an integer >= 1"):
            _fit_to_optimum(*args, loss=loss, cv_loss=loss, max_iter=0)
        with pytest.raises(ValueError, match="tol must be a finite number > 0"):
            _fit_to_optimum(*args, loss=loss, cv_loss=loss, tol=0.0)
        with pytest.raises(ValueError, match="method must be"):
            _fit_to_optimum(*args, loss=loss, cv_loss=loss, method="newton")
        with pytest.raises(ValueError, match="no trainable parameters"):
            _fit_to_optimum(torch.nn.Module(), (torch.zeros(4, 2),), torch.zeros(4), loss=loss, cv_loss=loss)
        with pytest.raises(FloatingPointError, match="not finite at the initial parameters"):
            _fit_to_optimum(*args, loss=lambda a, b: holder.w.sum() / 0.0, cv_loss=loss)
        with pytest.warns(ConvergenceWarning, match=r"Module\.fit: L-BFGS stopped at max_iter=1"):
            _fit_to_optimum(*args, loss=lambda a, b: ((holder.w - 1) ** 4).sum(), cv_loss=loss, max_iter=1)


class TestFitWithEarlyStopping:
    def test_main(self):
        w = torch.nn.Parameter(torch.zeros(2, dtype=torch.float64))
        holder = torch.nn.Module()
        holder.w = w
        x = torch.randn(200, 2, dtype=torch.float64)
        y = x @ torch.tensor([1.5, -2.0], dtype=torch.float64)

        def mse(a, b):
            return ((a @ w - b) ** 2).mean()

        hist, best, cv = fit_with_early_stopping(
            holder, (x,), y, loss=mse, cv_loss=mse, optimizer="lbfgs", max_epochs=5, seed=0
        )
        np.testing.assert_allclose(w.detach().numpy(), [1.5, -2.0], atol=1e-6)
        assert cv < 1e-10 and 1 <= best <= 5 and len(hist) <= 5

    def test_old_keyword(self):
        x = torch.linspace(-1, 1, 40, dtype=torch.float64)
        results = []
        for kw in ("labels", "targets"):
            holder = _holder(())

            def mse(a, b, holder=holder):
                return ((holder.w * a - b) ** 2).mean()

            if kw == "targets":
                with pytest.warns(FutureWarning, match="'targets' was renamed to 'labels'"):
                    results.append(
                        fit_with_early_stopping(
                            holder, (x,), targets=2 * x, loss=mse, cv_loss=mse, max_epochs=3, seed=0
                        )
                    )
            else:
                results.append(
                    fit_with_early_stopping(holder, (x,), labels=2 * x, loss=mse, cv_loss=mse, max_epochs=3, seed=0)
                )
        assert results[0] == results[1]
        with pytest.raises(TypeError, match="unexpected keyword arguments \\['epochs'\\]"):
            fit_with_early_stopping(_holder(()), (x,), x, loss=None, cv_loss=None, epochs=3)

    def test_errors(self):
        holder = torch.nn.Module()
        with pytest.raises(ValueError, match="no trainable parameters"):
            fit_with_early_stopping(holder, (torch.zeros(4, 1),), torch.zeros(4), loss=None, cv_loss=None)
        with pytest.raises(ValueError, match="seed"):
            fit_with_early_stopping(holder, (torch.zeros(4, 1),), torch.zeros(4), loss=None, cv_loss=None, seed=-2)
