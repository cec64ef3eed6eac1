"""Synthetic data shared by several test modules (imported as ``tests.helpers``)."""

import math

import numpy as np
import torch
from scipy.special import softmax


def labels_from(probs, rng):
    """One label per row drawn from `probs` (N, K)."""
    return (probs.cumsum(axis=1) > rng.random((len(probs), 1))).argmax(axis=1)


def tempered_members(n=4000, k=4, temperature=2.5, scales=(1.0,), seed=0):
    """Member m's logits are scales[m] * s; labels are drawn from softmax(s / temperature).

    Member m is therefore calibrated at the temperature scales[m] * temperature.
    """
    rng = np.random.default_rng(seed)
    s = 3.0 * rng.normal(size=(n, k))
    y = labels_from(softmax(s / temperature, axis=1), rng)
    z = s[:, None, :] * np.asarray(scales)[:, None]
    return z, y


def overconfident_members(n=3000, k=5, m=3, sharpen=3.0, noise=1.0, seed=0):
    """Diverse members around true logits s, each sharpened: an over-confident ensemble."""
    rng = np.random.default_rng(seed)
    s = 1.5 * rng.normal(size=(n, k))
    y = labels_from(softmax(s, axis=1), rng)
    z = sharpen * (s[:, None, :] + noise * rng.normal(size=(n, m, k)))
    return z, y


def within_se(samples, truth, n_se=4.0):
    """Is the mean of `samples` within `n_se` standard errors of `truth`?"""
    return within_se_detail(samples, truth, n_se)[0]


def dirichlet_moments(c, qbar):
    """u_Q = E sum_k Q_k^2 and sum_k Var Q_k for Q ~ Dir(c qbar)."""
    s = (qbar**2).sum()
    u = (c * s + 1) / (c + 1)
    return u, u - s


def draw_hist(probs, rng, n_labels=1):
    """Label histograms with `n_labels` labels per row drawn from `probs`."""
    return rng.multinomial(n_labels, probs / probs.sum(1, keepdims=True))


def synthetic_logits(n=4000, k=4, temperature=2.5, bias=None, seed=0, n_labels=1):
    """Logits u and labels drawn from softmax(u / temperature + bias)."""
    rng = np.random.default_rng(seed)
    logits = 3.0 * rng.normal(size=(n, k))
    shift = np.zeros(k) if bias is None else np.asarray(bias)
    hist = draw_hist(softmax(logits / temperature + shift, axis=1), rng, n_labels)
    return logits, hist


def check_shapes(net, c, size, k):
    """A topology network maps (3, c, size, size) inputs to (3, k) logits through features() and head()."""
    x = torch.rand(3, c, size, size)
    net.eval()
    with torch.no_grad():
        logits, feats = net(x), net.features(x)
    assert logits.shape == (3, k)
    assert feats.shape == (3, net.feature_dim)
    torch.testing.assert_close(net.head(feats), logits)


def label_case(n=60, k=3, seed=0, n_labels=(2, 3, 5)):
    """Fixed instances: true Q (N, K), predictions z (N, K), label counts n_i."""
    rng = np.random.default_rng(seed)
    q = rng.dirichlet(np.ones(k), size=n)
    z = rng.dirichlet(np.ones(k), size=n)
    counts = rng.choice(np.asarray(n_labels), size=n)
    return q, z, counts


def draw_label_hists(q, counts, reps, seed=1):
    """Label histograms (reps, N, K) drawn i.i.d. given Q."""
    return np.random.default_rng(seed).multinomial(counts[None, :], q[None], size=(reps, len(counts)))


def within_se_detail(estimates, truth, n_se=4.0):
    """(mean within `n_se` standard errors of `truth`?, mean, truth, standard error)."""
    estimates = np.asarray(estimates, dtype=np.float64)
    se = estimates.std(ddof=1) / math.sqrt(len(estimates))
    return abs(estimates.mean() - truth) < n_se * se, estimates.mean(), truth, se


def bin_index(v, n_bins):
    return min(int(np.searchsorted(np.arange(n_bins + 1) / n_bins, v, side="right")) - 1, n_bins - 1)
