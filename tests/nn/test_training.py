"""Tests for credalbook.nn.training, on scikit-learn's bundled digits (real 8x8 images)."""

import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from sklearn.datasets import load_digits

from credalbook.nn import fit, FitConfig, MLP, predict_logits, predict_proba, SmallCNN, TrainResult

CUDA = pytest.mark.skipif(not torch.cuda.is_available(), reason="CUDA is not available")
DEVICES = ["cpu", pytest.param("cuda", marks=CUDA)]


@pytest.fixture(scope="module")
def digits():
    """Digits as (N, 1, 8, 8) floats in [0, 1], shuffled and split 1200 / 597."""
    data = load_digits()
    x = (data.images / 16.0).astype(np.float32)[:, None]
    y = data.target.astype(np.int64)
    perm = np.random.default_rng(0).permutation(len(y))
    x, y = x[perm], y[perm]
    return x[:1200], y[:1200], x[1200:], y[1200:]


def _mlp(seed=0, **kw):
    torch.manual_seed(seed)
    return MLP(64, 10, hidden=(64,), **kw)


def _val_loss(model, x, y):
    logits = torch.from_numpy(predict_logits(model, x, device="cpu"))
    return F.cross_entropy(logits, torch.from_numpy(y)).item()


class TestFit:
    def test_config(self, digits):
        """config= and the keyword options run the same training; options replace the config's fields."""
        x_tr, y_tr, x_va, y_va = digits
        kw = dict(epochs=2, optimizer="sgd", lr=0.05, milestones=(1,), batch_size=64)
        runs = [
            fit(_mlp(), x_tr, y_tr, x_val=x_va, y_val=y_va, device="cpu", progress=False, **kw),
            fit(_mlp(), x_tr, y_tr, x_val=x_va, y_val=y_va, device="cpu", progress=False, config=FitConfig(**kw)),
            fit(
                _mlp(),
                x_tr,
                y_tr,
                x_val=x_va,
                y_val=y_va,
                device="cpu",
                progress=False,
                config=FitConfig(**{**kw, "lr": 1.0}),
                lr=0.05,
            ),
        ]
        for other in runs[1:]:
            assert [h["train_loss"] for h in other.history] == [h["train_loss"] for h in runs[0].history]
        with pytest.raises(TypeError, match=r"unexpected keyword arguments \['epoch'\]"):
            fit(_mlp(), x_tr, y_tr, epoch=3)
        with pytest.raises(TypeError, match="config must be a FitConfig"):
            fit(_mlp(), x_tr, y_tr, config={"epochs": 3})
        with pytest.raises(ValueError, match="epochs must be"):
            FitConfig(epochs=0).checked()

    def test_main(self, digits):
        x_tr, y_tr, x_va, y_va = digits
        res = fit(
            _mlp(), x_tr, y_tr, x_val=x_va, y_val=y_va, epochs=5, batch_size=64, lr=3e-3, device="cpu", progress=False
        )
        assert isinstance(res, TrainResult)
        assert res.epochs_run == 5 and len(res.history) == 5
        assert [h["epoch"] for h in res.history] == [1, 2, 3, 4, 5]
        assert set(res.history[0]) == {"epoch", "train_loss", "val_loss", "val_accuracy", "lr", "seconds"}
        assert res.history[-1]["val_accuracy"] > 0.90
        assert res.history[-1]["train_loss"] < res.history[0]["train_loss"]
        # the recorded validation numbers are those of the returned model (no early stopping)
        assert _val_loss(res.model, x_va, y_va) == pytest.approx(res.history[-1]["val_loss"], abs=1e-6)
        acc = (predict_proba(res.model, x_va, device="cpu").argmax(1) == y_va).mean()
        assert acc == pytest.approx(res.history[-1]["val_accuracy"])
        assert res.best_val_loss == min(h["val_loss"] for h in res.history)
        assert not res.model.training
        assert next(res.model.parameters()).device.type == "cpu"
        assert res.seconds > 0

    def test_sgd_cnn_torch_inputs(self, digits):
        x_tr, y_tr, x_va, y_va = digits
        torch.manual_seed(0)
        net = SmallCNN(image_size=8, channels=(8, 16), hidden=32, dropout=0.1)
        res = fit(
            net,
            torch.from_numpy(x_tr[:600]),
            torch.from_numpy(y_tr[:600]),
            x_val=torch.from_numpy(x_va),
            y_val=torch.from_numpy(y_va),
            epochs=4,
            batch_size=32,
            optimizer="SGD",
            lr=0.05,
            momentum=0.9,
            weight_decay=1e-4,
            device="cpu",
            progress=False,
        )
        assert res.history[-1]["val_accuracy"] > 0.5  # well above chance (0.1)

    def test_without_validation(self, digits):
        x_tr, y_tr, _, _ = digits
        res = fit(_mlp(), x_tr[:200], y_tr[:200], epochs=2, device="cpu", progress=False)
        assert res.best_epoch == 2 and math.isnan(res.best_val_loss)
        assert math.isnan(res.history[0]["val_loss"]) and math.isnan(res.history[0]["val_accuracy"])

    def test_lr_schedule(self, digits):
        x_tr, y_tr, _, _ = digits
        res = fit(
            _mlp(),
            x_tr[:100],
            y_tr[:100],
            epochs=8,
            lr=0.01,
            warmup_epochs=4,
            milestones=(5, 7),
            lr_decay=0.5,
            device="cpu",
            progress=False,
        )
        lrs = [h["lr"] for h in res.history]
        np.testing.assert_allclose(lrs, [0.0025, 0.005, 0.0075, 0.01, 0.01, 0.005, 0.005, 0.0025])
        plain = fit(_mlp(), x_tr[:100], y_tr[:100], epochs=2, device="cpu", progress=False)
        assert [h["lr"] for h in plain.history] == [1e-3, 1e-3]

    def test_seed_determinism(self, digits):
        x_tr, y_tr, x_va, y_va = digits
        kw = dict(x_val=x_va, y_val=y_va, epochs=2, batch_size=64, device="cpu", progress=False)
        a = fit(_mlp(dropout=0.3), x_tr[:400], y_tr[:400], seed=1, **kw)
        b = fit(_mlp(dropout=0.3), x_tr[:400], y_tr[:400], seed=1, **kw)
        c = fit(_mlp(dropout=0.3), x_tr[:400], y_tr[:400], seed=2, **kw)
        for (k, va), vb in zip(a.model.state_dict().items(), b.model.state_dict().values()):
            assert torch.equal(va, vb), k
        strip = lambda h: [{k: v for k, v in d.items() if k != "seconds"} for d in h]  # noqa: E731
        assert strip(a.history) == strip(b.history)
        assert not torch.equal(a.model.head.weight, c.model.head.weight)
        assert strip(a.history) != strip(c.history)

    def test_caller_rng_untouched(self, digits):
        x_tr, y_tr, _, _ = digits
        net = _mlp(dropout=0.3)
        state = torch.get_rng_state()
        fit(net, x_tr[:100], y_tr[:100], epochs=1, device="cpu", progress=False)
        assert torch.equal(torch.get_rng_state(), state)

    def test_early_stopping_restores_best(self, digits):
        # 40 training images and a wide MLP with a large step size: the validation loss falls,
        # then rises as the network memorises the training set
        x_tr, y_tr, x_va, y_va = digits
        torch.manual_seed(0)
        net = MLP(64, 10, hidden=(128,))
        res = fit(
            net,
            x_tr[:40],
            y_tr[:40],
            x_val=x_va[:300],
            y_val=y_va[:300],
            epochs=300,
            batch_size=40,
            lr=1e-2,
            patience=5,
            device="cpu",
            progress=False,
        )
        assert res.epochs_run < 300
        assert res.best_epoch == res.epochs_run - 5
        losses = [h["val_loss"] for h in res.history]
        assert res.best_val_loss == min(losses) == losses[res.best_epoch - 1]
        assert losses[-1] > res.best_val_loss
        assert _val_loss(res.model, x_va[:300], y_va[:300]) == pytest.approx(res.best_val_loss, abs=1e-6)

    def test_restore_best_off(self, digits):
        x_tr, y_tr, x_va, y_va = digits
        torch.manual_seed(0)
        res = fit(
            MLP(64, 10, hidden=(128,)),
            x_tr[:40],
            y_tr[:40],
            x_val=x_va[:300],
            y_val=y_va[:300],
            epochs=300,
            batch_size=40,
            lr=1e-2,
            patience=5,
            restore_best=False,
            device="cpu",
            progress=False,
        )
        assert _val_loss(res.model, x_va[:300], y_va[:300]) == pytest.approx(res.history[-1]["val_loss"], abs=1e-6)

    def test_augment(self, digits):
        x_tr, y_tr, _, _ = digits
        seen = []

        def flip(xb):
            seen.append(xb.shape[0])
            return torch.flip(xb, dims=[-1])

        fit(_mlp(), x_tr[:100], y_tr[:100], epochs=2, batch_size=32, augment=flip, device="cpu", progress=False)
        assert sum(seen) == 200  # batches of 32, 32, 32, 4 per epoch

    @pytest.mark.parametrize("device", DEVICES)
    def test_devices(self, digits, device):
        x_tr, y_tr, x_va, y_va = digits
        res = fit(
            _mlp(), x_tr[:200], y_tr[:200], x_val=x_va[:100], y_val=y_va[:100], epochs=1, device=device, progress=False
        )
        assert next(res.model.parameters()).device.type == device
        assert predict_logits(res.model, x_va[:10], device=device).shape == (10, 10)

    def test_progress_bar(self, digits, capsys):
        x_tr, y_tr, _, _ = digits
        fit(_mlp(), x_tr[:64], y_tr[:64], epochs=1, device="cpu", progress=True)
        assert "fit" in capsys.readouterr().err

    def test_errors(self, digits):
        x_tr, y_tr, x_va, y_va = digits
        x, y = x_tr[:50], y_tr[:50]
        cases = [
            (dict(optimizer="rmsprop"), "optimizer"),
            (dict(epochs=0), "epochs"),
            (dict(batch_size=0), "batch_size"),
            (dict(lr=0.0), "lr"),
            (dict(momentum=1.0), "momentum"),
            (dict(weight_decay=-1.0), "weight_decay"),
            (dict(patience=3), "patience"),
            (dict(patience=0, x_val=x_va, y_val=y_va), "patience"),
            (dict(x_val=x_va), "y_val"),
            (dict(x_val=x_va, y_val=y_va[:10]), "x_val and y_val"),
            (dict(augment=3), "augment"),
            (dict(seed=-1), "seed"),
            (dict(seed=1.5), "seed"),  # not truncated to 1
            (dict(seed=True), "seed"),  # not taken as 1
            (dict(seed="0"), "seed"),
            (dict(seed=2**64), "seed"),  # beyond torch's seed range
            (dict(warmup_epochs=-1), "warmup_epochs"),
            (dict(milestones=(3, -2)), "milestones"),
            (dict(milestones=5), "milestones"),
            (dict(lr_decay=1.5), "lr_decay"),
            (dict(lr_decay=0.0), "lr_decay"),
        ]
        for kwargs, name in cases:
            with pytest.raises(ValueError, match=name):
                fit(_mlp(), x, y, device="cpu", progress=False, **kwargs)
        with pytest.raises(ValueError, match="x_train and y_train"):
            fit(_mlp(), x, y_tr[:49], device="cpu", progress=False)
        with pytest.raises(ValueError, match="y_train contains label 12"):
            fit(_mlp(), x, np.where(y == 0, 12, y), device="cpu", progress=False)
        with pytest.raises(ValueError, match="y_val contains label 10"):
            fit(_mlp(), x, y, x_val=x_va, y_val=np.full(len(y_va), 10), device="cpu", progress=False)
        with pytest.raises(ValueError, match="y_train"):
            fit(_mlp(), x, y.astype(float), device="cpu", progress=False)
        with pytest.raises(ValueError, match="x_train"):
            fit(_mlp(), np.full_like(x, np.nan), y, device="cpu", progress=False)
        with pytest.raises(ValueError, match="model"):
            fit("mlp", x, y, device="cpu", progress=False)


@pytest.mark.parametrize("device", DEVICES)
def test_channels_last_trains_the_same_network(digits, device):
    """The channels-last layout is another set of kernels for the same training: the weights end up in that
    layout, and after two epochs they, the history and the predictions agree with the default layout's to
    float32 rounding (1e-4 relative); an MLP's 2-D inputs are left as they are."""
    x_tr, y_tr, x_va, y_va = digits
    runs = {}
    for layout in (False, True):
        torch.manual_seed(0)
        runs[layout] = fit(
            SmallCNN(1, 10, image_size=8),
            x_tr,
            y_tr,
            x_val=x_va,
            y_val=y_va,
            epochs=2,
            batch_size=64,
            optimizer="sgd",
            lr=0.05,
            device=device,
            progress=False,
            channels_last=layout,
        )
    conv = [p for p in runs[True].model.parameters() if p.ndim == 4]
    assert conv and all(p.is_contiguous(memory_format=torch.channels_last) for p in conv)
    assert any(not p.is_contiguous() for p in conv)  # (a one-channel kernel is contiguous in both layouts)
    assert all(p.is_contiguous() for p in runs[False].model.parameters())
    for a, b in zip(runs[False].model.state_dict().values(), runs[True].model.state_dict().values()):
        torch.testing.assert_close(b.float(), a.float(), rtol=1e-4, atol=1e-5)
    for h0, h1 in zip(runs[False].history, runs[True].history):
        assert h1["train_loss"] == pytest.approx(h0["train_loss"], rel=1e-4)
        assert h1["val_loss"] == pytest.approx(h0["val_loss"], rel=1e-4)
    np.testing.assert_allclose(
        predict_logits(runs[True].model, x_va, device=device),
        predict_logits(runs[False].model, x_va, device=device),
        rtol=1e-4,
        atol=1e-4,
    )
    mlp = fit(_mlp(), x_tr.reshape(len(x_tr), -1), y_tr, epochs=1, device=device, progress=False, channels_last=True)
    assert mlp.epochs_run == 1


@pytest.mark.parametrize("bad", [1, "yes", None])
def test_channels_last_must_be_a_bool(digits, bad):
    x_tr, y_tr, _, _ = digits
    with pytest.raises(TypeError, match="channels_last must be True or False"):
        fit(_mlp(), x_tr.reshape(len(x_tr), -1), y_tr, epochs=1, device="cpu", progress=False, channels_last=bad)


class TestPredict:
    def test_main(self, digits):
        _, _, x_va, _ = digits
        net = _mlp(dropout=0.5)
        net.train()
        a = predict_logits(net, x_va, batch_size=100, device="cpu")
        b = predict_logits(net, torch.from_numpy(x_va), batch_size=1024, device="cpu")
        assert a.shape == (len(x_va), 10) and a.dtype == np.float64
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)  # eval mode: dropout off
        assert net.training  # mode restored
        p = predict_proba(net, x_va, device="cpu")
        np.testing.assert_allclose(p.sum(axis=1), 1.0, atol=1e-12)
        np.testing.assert_allclose(p, torch.softmax(torch.from_numpy(a), 1).numpy(), atol=1e-6)
        # permuting instances permutes the predictions
        perm = np.random.default_rng(0).permutation(len(x_va))
        np.testing.assert_allclose(predict_logits(net, x_va[perm], device="cpu"), a[perm], rtol=1e-5, atol=1e-6)

    def test_errors(self):
        net = _mlp()
        with pytest.raises(ValueError, match="batch_size"):
            predict_logits(net, np.zeros((2, 64)), batch_size=0)
        with pytest.raises(ValueError, match="x must have shape"):
            predict_proba(net, np.zeros(64))
        with pytest.raises(ValueError, match="device"):
            predict_logits(net, np.zeros((2, 64)), device="tpu")


# ------------------------------------------------------------------ resumable training (checkpoint=)
class _Interrupt(Exception):
    pass


def _noise_augment(stop_after=None):
    """Adds noise from torch's global RNG; raises _Interrupt on call number `stop_after` (1-based)."""
    calls = [0]

    def augment(xb):
        calls[0] += 1
        if stop_after is not None and calls[0] == stop_after:
            raise _Interrupt
        return xb + 0.05 * torch.randn_like(xb)

    return augment


def _checkpoint_problem():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(240, 6)).astype("float32")
    y = (x[:, 0] + 0.5 * x[:, 1] > 0).astype(int) + (x[:, 2] > 1).astype(int)
    return x[:180], y[:180], x[180:], y[180:]


def _checkpoint_fit(augment, checkpoint, **kw):
    x, y, xv, yv = _checkpoint_problem()
    torch.manual_seed(0)
    model = MLP(6, 3, hidden=(16,), dropout=0.3)
    opts = dict(
        epochs=9,
        batch_size=32,
        lr=5e-3,
        patience=4,
        seed=7,
        device="cpu",
        progress=False,
        milestones=(5,),
        augment=augment,
    )
    opts.update(kw)
    return fit(model, x, y, x_val=xv, y_val=yv, checkpoint=checkpoint, **opts)


def test_checkpoint_resume_matches_uninterrupted_run(tmp_path):
    ref = _checkpoint_fit(_noise_augment(), None)
    ckpt = tmp_path / "run.pt"
    # 180 / 32 -> 6 batches per epoch: interrupt in the middle of epoch 4 (call 21)
    with pytest.raises(_Interrupt):
        _checkpoint_fit(_noise_augment(stop_after=21), ckpt)
    assert ckpt.exists()
    saved = torch.load(ckpt, map_location="cpu", weights_only=True)
    assert len(saved["history"]) == 3
    res = _checkpoint_fit(_noise_augment(), ckpt)
    assert not ckpt.exists()  # removed when training ends
    assert res.epochs_run == ref.epochs_run and res.best_epoch == ref.best_epoch
    for a, b in zip(ref.history, res.history):
        for key in ("epoch", "train_loss", "val_loss", "val_accuracy", "lr"):
            assert a[key] == b[key], key
    for (name, a), b in zip(ref.model.state_dict().items(), res.model.state_dict().values()):
        assert torch.equal(a, b), name


def test_checkpoint_changes_nothing_without_interruption(tmp_path):
    ref = _checkpoint_fit(_noise_augment(), None)
    res = _checkpoint_fit(_noise_augment(), tmp_path / "sub" / "run.pt")
    assert [h["train_loss"] for h in res.history] == [h["train_loss"] for h in ref.history]
    assert not (tmp_path / "sub" / "run.pt").exists()


def test_checkpoint_from_other_settings_is_refused(tmp_path):
    ckpt = tmp_path / "run.pt"
    with pytest.raises(_Interrupt):
        _checkpoint_fit(_noise_augment(stop_after=8), ckpt)
    with pytest.raises(ValueError, match=r"checkpoint .*other settings \(lr differ\)"):
        _checkpoint_fit(_noise_augment(), ckpt, lr=1e-2)


@pytest.mark.parametrize("bad", [3, "", b"x.pt"])
def test_checkpoint_must_be_a_path(bad):
    with pytest.raises(ValueError, match="checkpoint must be a file path"):
        _checkpoint_fit(None, bad)


def test_checkpoint_written_at_the_stop_resumes_to_the_end(tmp_path, monkeypatch):
    """Killed after the epoch that triggers early stopping was saved: the resumed call trains no further."""
    import credalbook.nn.fit_callbacks as fit_callbacks

    ref = _checkpoint_fit(_noise_augment(), None, epochs=40, patience=1, lr=0.1)
    assert ref.epochs_run < 40  # early stopping fired
    real_save = fit_callbacks.save_checkpoint

    def save_then_die(path, state):
        real_save(path, state)
        if state["since_best"] >= 1:
            raise _Interrupt

    monkeypatch.setattr(fit_callbacks, "save_checkpoint", save_then_die)
    ckpt = tmp_path / "run.pt"
    with pytest.raises(_Interrupt):
        _checkpoint_fit(_noise_augment(), ckpt, epochs=40, patience=1, lr=0.1)
    monkeypatch.undo()
    res = _checkpoint_fit(_noise_augment(), ckpt, epochs=40, patience=1, lr=0.1)
    assert res.epochs_run == ref.epochs_run and res.best_epoch == ref.best_epoch and not ckpt.exists()
    for a, b in zip(ref.model.state_dict().values(), res.model.state_dict().values()):
        assert torch.equal(a, b)
