"""The one training loop (credalbook.nn.loop) and the fits that run through it.

The reference numbers below were recorded with the code *before* the fits were moved onto
:func:`credalbook.nn.loop.train_loop` (commit 997ca51 plus the layout work of that day): the move
must not change a single draw or optimiser step, so they must agree to rtol 1e-6 (they agree
bit for bit on the CPU).
"""

import math
import warnings

import numpy as np
import pytest
import torch

from credalbook.nn.loop import Callback, EarlyStopping, LambdaCallback, train_loop

REFERENCE = {
    "alpha": {
        "best": 20,
        "p": [
            0.019851414340079292,
            0.019505243579077274,
            0.019321277521788617,
            -0.01904279581752471,
            0.019979525697414218,
        ],
    },
    "dyn_sgd": {"t": [1.1330291016347085, 1.2851530801935935]},
    "fit_es": {
        "best": 7,
        "run": 9,
        "tr": [
            0.5395596391624875,
            0.276116943359375,
            0.1357000971833865,
            0.09619028998745813,
            0.11805362767643399,
            0.04698186881012387,
            0.04865777364078288,
            0.05247067395183775,
            0.05597088255195154,
        ],
        "val": [
            0.3627550760904948,
            0.2265308698018392,
            0.23594331741333008,
            0.14594672520955404,
            0.10724267959594727,
            0.11392078399658204,
            0.08956312338511149,
            0.12799774805704753,
            0.2173498312632243,
        ],
        "w": [0.36670151352882385, 0.1868356615304947, -1.8782687187194824, -0.8663610219955444],
    },
    "fit_sgd": {
        "lr": [0.05, 0.1, 0.1, 0.010000000000000002, 0.010000000000000002],
        "tr": [0.6993791937828064, 0.6114338040351868, 0.501103009780248, 0.378426061073939, 0.3514769196510315],
        "w": [-0.37191176414489746, -0.102785125374794, 0.48035627603530884, -0.010027490556240082],
    },
    "gp": {
        "h": [-0.7582599520683289, -0.7062684098879496, -0.6616857449213663, -0.6239470640818278],
        "s": [-0.47955265641212463, 0.5873317718505859, -0.5528853535652161, 0.5689992308616638],
    },
    "gp_ngd": {"h": [-0.6944741010665894, -0.5556907057762146, -0.49448678890864056]},
    "mc": [
        0.43573652604336033,
        0.3490773109382562,
        0.21518616301838356,
        0.43573652604336033,
        0.3490773109382562,
        0.21518616301838356,
        0.28011770734547775,
        0.32175285741588555,
        0.39812943523863675,
        0.43494425470140025,
        0.2885515359742752,
        0.27650420932432473,
    ],
    "mc_samples": {
        "f": [0.0, 0.0, 0.0, 0.0, 0.0, 1.6401751041412354, 1.2137442827224731, 0.0, 0.0],
        "p": [
            0.33232345788657075,
            0.3882516635372152,
            0.27942487857621395,
            0.28011770734547775,
            0.32175285741588555,
            0.39812943523863675,
            0.3813278890691424,
            0.30034869319283036,
            0.3183234177380274,
        ],
    },
    "pre_sgd": {
        "last": 0.8511588372434121,
        "t": [2.158364207983726, 2.5867651312780175, 2.663626392049605, 2.5179534964722565],
    },
    "ts_adam": {"best": 50, "cv": 2.7818066019751604, "n": 50, "t": 1.1013949140125887},
    "ts_lbfgs": {"best": 1, "cv": 1.113762304060375, "n": 11, "t": 31.75950070201028},
    "tta": [
        0.0927649931306951,
        0.10086813392084942,
        0.09028613263585464,
        0.10288927798240012,
        0.12262468202824724,
        0.08466033241680922,
        0.12814848465686687,
        0.10955175561413236,
        0.0733724291937921,
        0.094833778420353,
        0.09357456422153962,
        0.10012136485549743,
    ],
    "wl_batched": {
        "best": [18, 0],
        "loss": [0.49342474341392517, 0.5006183385848999],
        "w": [
            -0.011092865839600563,
            -0.2205485999584198,
            -0.2876073718070984,
            0.13070085644721985,
            0.20453773438930511,
            0.04087882116436958,
        ],
    },
    "wl_single": {
        "best": [14],
        "loss": [0.4961340129375458],
        "w": [0.7599421739578247, -0.4420175850391388, 0.3829130232334137, 0.10900860279798508],
    },
}


def _close(actual, expected):
    # float32 training: a weight near 0 differs between CPUs (vector units) by ~1e-8, so an absolute floor
    np.testing.assert_allclose(np.asarray(actual, dtype=float), np.asarray(expected, dtype=float), rtol=1e-6, atol=1e-7)


def _data():
    """The data of the recording script, drawn in the same order from one generator."""
    rng = np.random.default_rng(0)
    d = {}
    d["x"] = rng.normal(size=(120, 2)).astype("float32")
    d["y"] = (d["x"][:, 0] + 0.3 * d["x"][:, 1] > 0).astype(int)
    d["logits"] = rng.normal(size=(200, 3)) * 3
    d["lab"] = rng.integers(0, 3, 200)
    d["feats"] = rng.normal(size=(150, 4))
    d["pr"] = rng.dirichlet(np.ones(3), 150)
    d["hist"] = rng.multinomial(3, [0.5, 0.3, 0.2], 150)
    d["ml"] = rng.normal(size=(100, 4, 3)) * 2
    d["ml_lab"] = rng.integers(0, 3, 100)
    xs = rng.uniform(0, 5, size=(300, 1))
    ens = np.stack([np.c_[0.2 + 0.1 * xs, 0.8 - 0.1 * xs], np.full((300, 2), 0.5)], 1)
    d["xs"], d["ens"] = xs, ens
    d["ys"] = (rng.random(300) < (0.3 * ens[:, 0] + 0.7 * ens[:, 1])[:, 1]).astype(int)
    d["xg"] = rng.normal(size=(120, 2))
    d["yg"] = (d["xg"][:, 0] + d["xg"][:, 1] > 0).astype(int)
    return d


# --------------------------------------------------------------------------------- the loop itself
class TestTrainLoop:
    def test_early_stopping_epoch(self):
        losses = [1.0, 0.8, 0.9, 0.7, 0.75, 0.71, 0.72, 0.1]
        stop = EarlyStopping(patience=3)
        hist = train_loop(
            lambda e: {"train_loss": 0.0}, range(1, 9), validate=lambda e: {"val_loss": losses[e - 1]}, stopping=stop
        )
        # best at epoch 4 (0.7); epochs 5, 6, 7 do not improve -> stop after epoch 7
        assert [h["epoch"] for h in hist] == [1, 2, 3, 4, 5, 6, 7]
        assert (stop.best_epoch, stop.best, stop.since_best) == (4, 0.7, 3)
        assert stop.should_stop

    def test_no_patience_runs_all_epochs(self):
        stop = EarlyStopping(None)
        hist = train_loop(lambda e: {}, range(5), validate=lambda e: {"val_loss": float(e)}, stopping=stop)
        assert len(hist) == 5 and stop.best_epoch == 0 and not stop.should_stop

    def test_best_weights_restored(self):
        holder = torch.nn.Linear(1, 1)
        losses = {1: 3.0, 2: 1.0, 3: 2.0, 4: 2.5}

        def train_epoch(epoch):
            with torch.no_grad():
                holder.weight.fill_(float(epoch))
            return {}

        stop = EarlyStopping(2, snapshot=lambda: {k: v.clone() for k, v in holder.state_dict().items()})
        train_loop(train_epoch, range(1, 5), validate=lambda e: {"val_loss": losses[e]}, stopping=stop)
        assert holder.weight.item() == 4.0
        stop.restore(holder.load_state_dict)
        assert holder.weight.item() == 2.0 and stop.best_epoch == 2

    def test_callbacks_called_in_order(self):
        events = []

        class Recorder(Callback):
            def on_epoch_begin(self, epoch):
                events.append(("begin", epoch))

            def on_epoch_end(self, epoch, logs):
                events.append(("end", epoch, logs["val_loss"]))

            def on_train_end(self, history):
                events.append(("done", len(history)))

        def train_epoch(epoch):
            events.append(("train", epoch))
            return {"train_loss": 1.0}

        train_loop(train_epoch, range(1, 3), validate=lambda e: {"val_loss": 10.0 - e}, callbacks=[Recorder()])
        assert events == [
            ("begin", 1),
            ("train", 1),
            ("end", 1, 9.0),
            ("begin", 2),
            ("train", 2),
            ("end", 2, 8.0),
            ("done", 2),
        ]

    def test_stopping_seen_by_callback_before_stop(self):
        seen = []
        stop = EarlyStopping(1)
        train_loop(
            lambda e: {},
            range(1, 10),
            validate=lambda e: {"val_loss": 1.0},
            stopping=stop,
            callbacks=[LambdaCallback(on_epoch_end=lambda e, logs: seen.append(stop.since_best))],
        )
        assert seen == [0, 1]  # epoch 1 improves on inf, epoch 2 does not and stops

    def test_history_is_extended(self):
        earlier = [{"epoch": 1}]
        hist = train_loop(lambda e: {"train_loss": e}, range(2, 4), history=earlier)
        assert hist is earlier and [h["epoch"] for h in hist] == [1, 2, 3]

    def test_custom_comparison_and_start(self):
        stop = EarlyStopping(1, better=lambda new, best: new > best, best=-math.inf)
        train_loop(
            lambda e: {},
            range(1, 5),
            validate=lambda e: {"acc": [0.5, 0.6, 0.55, 0.9][e - 1]},
            stopping=stop,
            monitor="acc",
        )
        assert (stop.best_epoch, stop.best) == (2, 0.6)

    def test_errors(self):
        with pytest.raises(ValueError, match="train_epoch"):
            train_loop(None, range(2))
        with pytest.raises(ValueError, match="patience"):
            EarlyStopping(0)
        with pytest.raises(ValueError, match="snapshot"):
            EarlyStopping(2, snapshot=3)
        with pytest.raises(ValueError, match="on_epoch_end"):
            LambdaCallback(on_epoch_end="save")
        with pytest.raises(KeyError):
            train_loop(lambda e: {}, range(2), stopping=EarlyStopping(1))  # nothing to monitor


# ----------------------------------------------------------------- the fits that use it, unchanged
class TestReferenceNumbers:
    """Each migrated fit reproduces the numbers recorded before the migration."""

    def test_network_fit_early_stopping(self):
        from credalbook.nn import fit, MLP

        d, ref = _data(), REFERENCE["fit_es"]
        torch.manual_seed(0)
        net = MLP(2, 2, hidden=(8,), dropout=0.2)
        res = fit(
            net,
            d["x"][:90],
            d["y"][:90],
            x_val=d["x"][90:],
            y_val=d["y"][90:],
            epochs=12,
            lr=0.05,
            batch_size=16,
            patience=2,
            device="cpu",
            progress=False,
        )
        assert (res.best_epoch, res.epochs_run) == (ref["best"], ref["run"])
        _close(net.body[1].weight.detach().flatten()[:4], ref["w"])  # the restored best weights
        _close([h["val_loss"] for h in res.history], ref["val"])
        _close([h["train_loss"] for h in res.history], ref["tr"])

    def test_network_fit_sgd_schedule(self):
        from credalbook.nn import fit, MLP

        d, ref = _data(), REFERENCE["fit_sgd"]
        torch.manual_seed(1)
        net = MLP(2, 2, hidden=(8,))
        res = fit(
            net,
            d["x"],
            d["y"],
            epochs=5,
            lr=0.1,
            optimizer="sgd",
            batch_size=32,
            warmup_epochs=2,
            milestones=(3,),
            seed=3,
            device="cpu",
            progress=False,
        )
        _close(net.head.weight.detach().flatten()[:4], ref["w"])
        _close([h["train_loss"] for h in res.history], ref["tr"])
        _close([h["lr"] for h in res.history], ref["lr"])

    @pytest.mark.parametrize("optimizer", ["adam", "lbfgs"])
    def test_temperature_scaling(self, optimizer):
        from credalbook.calibration import TemperatureScaling

        d, ref = _data(), REFERENCE["ts_" + optimizer]
        ts = TemperatureScaling().fit(d["logits"], d["lab"], optimizer=optimizer, seed=1)
        _close([ts.temperature, ts.cv_nll_], [ref["t"], ref["cv"]])
        assert (ts.best_epoch_, len(ts.history_)) == (ref["best"], ref["n"])

    def test_alpha_calibration_head(self):
        from credalbook.calibration import AlphaCalibrator

        d, ref = _data(), REFERENCE["alpha"]
        head = AlphaCalibrator().fit(d["feats"], d["pr"], d["hist"], optimizer="adam", max_epochs=20, seed=0)
        _close([v for p in head.parameters() for v in p.detach().flatten()], ref["p"])
        assert head.best_epoch_ == ref["best"]

    def test_ensemble_temperature_sgd(self):
        from credalbook.calibration import DynamicTemperatureScaling, PreCombinationScaling

        d = _data()
        pre = PreCombinationScaling(criterion="ece").fit(d["ml"], d["ml_lab"], optimizer="sgd", n_iter=50)
        _close(pre.temperatures, REFERENCE["pre_sgd"]["t"])
        _close(pre.history_[-1]["train_loss"], REFERENCE["pre_sgd"]["last"])
        assert [h["epoch"] for h in pre.history_] == list(range(51))
        dyn = DynamicTemperatureScaling(n_regions=2, criterion="ece").fit(
            d["ml"], d["ml_lab"], optimizer="sgd", n_iter=30
        )
        _close(dyn.temperatures, REFERENCE["dyn_sgd"]["t"])

    def test_weight_function_single(self):
        from credalbook.stats import fit_weight_function

        d, ref = _data(), REFERENCE["wl_single"]
        fw = fit_weight_function(
            d["xs"], d["ens"], d["ys"], estimator="lp", max_epochs=15, patience=3, batch_size=64, seed=0, hidden=(8, 8)
        )
        _close(fw.state["w0"].flatten()[:4], ref["w"])
        assert fw.best_epoch.tolist() == ref["best"]
        _close(fw.best_loss, ref["loss"])

    def test_weight_function_batched(self):
        from credalbook.stats import fit_weight_function

        d, ref = _data(), REFERENCE["wl_batched"]
        xb = np.stack([d["xs"], d["xs"][::-1]])
        eb = np.stack([d["ens"], d["ens"][::-1]])
        yb = np.stack([d["ys"], d["ys"][::-1]])
        fw = fit_weight_function(
            xb, eb, yb, estimator="skce", max_epochs=25, patience=2, batch_size=64, seed=1, hidden=(8,)
        )
        _close(fw.state["w1"].flatten()[:6], ref["w"])
        assert fw.best_epoch.tolist() == ref["best"]
        _close(fw.best_loss, ref["loss"])
        # problem 1 stopped early: its history rows after that are NaN, problem 0 went on
        assert np.isnan(fw.history[1, -1]).all() and np.isfinite(fw.history[0, -1]).all()

    def test_mc_dropout_and_tta(self):
        from credalbook.calibration import mc_dropout_samples, RandomAugment, tta_samples
        from credalbook.nn import mc_dropout_predict, MLP, SmallCNN

        torch.manual_seed(0)
        net = MLP(4, 3, hidden=(8,), dropout=0.5)
        x = torch.rand(5, 4)
        ens = mc_dropout_predict(net, x, n_samples=3, device="cpu", seed=0, batch_size=2)
        _close(ens.flatten()[:12], REFERENCE["mc"])
        p, f = mc_dropout_samples(net, x, n_samples=3, device="cpu", seed=1, return_features=True)
        _close(p.flatten()[:9], REFERENCE["mc_samples"]["p"])
        _close(f.flatten()[:9], REFERENCE["mc_samples"]["f"])
        torch.manual_seed(0)
        cnn = SmallCNN(in_channels=3, image_size=8, channels=(4,), hidden=8, dropout=0.3)
        out = tta_samples(
            cnn,
            torch.rand(3, 3, 8, 8),
            augment=RandomAugment(hflip=True, rotation=10.0, shift=1.0),
            n_samples=4,
            device="cpu",
            seed=0,
        )
        _close(out.flatten()[:12], REFERENCE["tta"])

    def test_mc_dropout_predict_is_mc_dropout_samples(self):
        from credalbook.calibration import mc_dropout_samples
        from credalbook.nn import mc_dropout_predict, MLP

        torch.manual_seed(0)
        net = MLP(4, 3, hidden=(8,), dropout=0.5)
        x = torch.rand(7, 4)
        a, fa = mc_dropout_predict(net, x, n_samples=4, seed=5, device="cpu", return_features=True)
        b, fb = mc_dropout_samples(net, x, n_samples=4, seed=5, device="cpu", return_features=True)
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(fa, fb)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            mc_dropout_samples(MLP(4, 3, hidden=(8,)), x, n_samples=2, device="cpu")  # no warning here
        with pytest.warns(UserWarning, match="no dropout"):
            mc_dropout_predict(MLP(4, 3, hidden=(8,)), x, n_samples=2, device="cpu")

    def test_gp_classifier(self):
        pytest.importorskip("gpytorch")
        from credalbook.gp import fit_gp_classifier

        d = _data()
        g = fit_gp_classifier(d["xg"], d["yg"], n_inducing=8, epochs=4, batch_size=50, lr=0.05, device="cpu")
        _close(g.history, REFERENCE["gp"]["h"])
        key = "variational_strategy._variational_distribution.variational_mean"
        _close(g.state_dict[key][:4], REFERENCE["gp"]["s"])
        g = fit_gp_classifier(
            d["xg"],
            d["yg"],
            n_inducing=8,
            epochs=3,
            batch_size=50,
            lr=0.05,
            device="cpu",
            natural_gradient=True,
            likelihood="bernoulli_logit",
        )
        _close(g.history, REFERENCE["gp_ngd"]["h"])
