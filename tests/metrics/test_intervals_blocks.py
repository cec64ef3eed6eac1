"""The bootstrap's indices from N = 2**15 on: blocks of 256 instances, one generator per replicate.

``credalbook.metrics.intervals.replicate_indices`` must give the distribution of N independent uniform draws
(every moment of the multiplicities checked against the multinomial's closed forms, with the Monte-Carlo
error of the check), and ``resample_counts`` / ``resample_statistic`` must follow the documented stream
(recomputed here by hand) whatever the chunks and the threads.
"""

from __future__ import annotations

import threading

import numpy as np
import pytest
from scipy import stats

from credalbook import _threads
from credalbook.metrics import intervals


def _counts(n: int, reps: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.stack([np.bincount(intervals.replicate_indices(rng, n), minlength=n) for _ in range(reps)])


class TestReplicateIndices:
    @pytest.mark.parametrize("n", [1, 255, 256, 600, 1024])
    def test_shape_range_and_blocks(self, n):
        """N indices in range(N), non-decreasing block by block (a last, shorter block when 256 does not divide
        N); every index reachable."""
        rng = np.random.default_rng(n)
        idx = intervals.replicate_indices(rng, n)
        assert idx.shape == (n,) and idx.dtype == np.intp
        assert idx.min() >= 0 and idx.max() < n
        assert np.all(np.diff(idx // intervals._BLOCK) >= 0)
        seen = np.zeros(n, dtype=bool)
        for _ in range(40):
            seen[intervals.replicate_indices(rng, n)] = True
        assert seen.all()

    def test_moments_are_the_multinomials(self):
        """N = 600 (blocks 256, 256, 88), 20 000 replicates: the multiplicities have the multinomial's mean 1,
        variance 1 − 1/N and covariance −1/N, for two instances in one block, in two blocks and in the short
        last block (each within 4 Monte-Carlo SE); a block's total has the binomial variance N·q(1 − q)."""
        n, reps = 600, 20_000
        c = _counts(n, reps, seed=1).astype(np.float64)
        mean, var = c.mean(axis=0), c.var(axis=0, ddof=1)
        se_mean = np.sqrt((1 - 1 / n) / reps)
        assert abs(mean.mean() - 1) < 4 * se_mean / np.sqrt(n)
        assert np.all(np.abs(mean - 1) < 5 * se_mean)
        # var of a Binomial(N, 1/N) count: 1 - 1/N; SE of the pooled sample variance from the fourth moment
        assert abs(var.mean() - (1 - 1 / n)) < 4 * np.sqrt(2 / (reps * n)) * 1.2
        for i, j in ((3, 200), (3, 300), (520, 590), (100, 580)):  # same block, two blocks, last block, across
            cov = np.cov(c[:, i], c[:, j])[0, 1]
            assert abs(cov + 1 / n) < 4 / np.sqrt(reps), (i, j, cov)
        q = 88 / n
        last = c[:, 512:].sum(axis=1)
        assert abs(last.var(ddof=1) - n * q * (1 - q)) < 4 * n * q * (1 - q) * np.sqrt(2 / reps)

    def test_uniform_over_instances(self):
        """Pooled over 2 000 replicates of N = 1000 (a short last block of 232), every instance is drawn equally
        often: chi-square test of the 2·10⁶ draws against the uniform, p > 0.001."""
        c = _counts(1000, 2000, seed=2).sum(axis=0)
        assert stats.chisquare(c).pvalue > 1e-3

    def test_not_the_old_stream(self):
        """The draws are not those of ``rng.integers(0, N, N)`` (a new stream: the tests of the old one stay
        below N = 2**15)."""
        n = 1000
        a = intervals.replicate_indices(np.random.default_rng(0), n)
        b = np.sort(np.random.default_rng(0).integers(0, n, n))
        assert not np.array_equal(np.sort(a), b)


class TestStreamByHand:
    """replicate_indices draws exactly as its docstring spells it: one multinomial of the block totals, then
    the full blocks' one-byte offsets (``integers(0, 256, dtype=uint8)``), then the last block's. The fast
    route (``rng.bytes``, written into the lowest byte of each index) must give the same numbers and leave the
    generator where the spelled-out draws leave it."""

    @staticmethod
    def _spelled_out(rng, n):
        full, rest = divmod(n, 256)
        sizes = np.array([256.0] * full + ([float(rest)] if rest else []))
        per_block = rng.multinomial(n, sizes / n)
        idx = np.repeat(np.arange(0, n, 256), per_block)
        m = n - int(per_block[-1]) if rest else n
        idx[:m] += rng.integers(0, 256, size=m, dtype=np.uint8)
        if rest:
            idx[m:] += rng.integers(0, rest, size=n - m, dtype=np.uint8)
        return idx

    @pytest.mark.parametrize("n", [1, 255, 256, 257, 1000, 4096, intervals.BLOCKED_MIN_N + 77])
    @pytest.mark.parametrize("fast", [True, False])
    def test_equals_the_recipe(self, n, fast, monkeypatch):
        monkeypatch.setattr(intervals, "_BYTES_ARE_UINT8", fast and intervals._BYTES_ARE_UINT8)
        for seed in range(3):
            a, b = np.random.default_rng(seed), np.random.default_rng(seed)
            assert np.array_equal(intervals.replicate_indices(a, n), self._spelled_out(b, n))
            assert a.integers(0, 2**62) == b.integers(0, 2**62)  # the generators left in the same state

    def test_bytes_premise_holds_here(self):
        """On this platform's NumPy the fast route is taken (little-endian, bytes are uint8 integers)."""
        import sys

        assert intervals._BYTES_ARE_UINT8 == (sys.byteorder == "little")

    def test_wide_counts_fallback(self, monkeypatch):
        """A replicate whose block drew 2**16 or more is counted in floats; the numbers are the same."""
        n = intervals.BLOCKED_MIN_N + 77
        w = np.random.default_rng(1).integers(0, 1000, (n, 2)).astype(np.float64)
        want = intervals.resample_counts(lambda c: c @ w, n, n_resamples=5, seed=3)
        real = intervals._drawn_by_blocks
        monkeypatch.setattr(intervals, "_drawn_by_blocks", lambda rng, n: (real(rng, n)[0], 1 << 16))
        assert np.array_equal(intervals.resample_counts(lambda c: c @ w, n, n_resamples=5, seed=3), want)


class TestDocumentedStream:
    N = intervals.BLOCKED_MIN_N + 77  # a short last block

    def _by_hand(self, seed, reps):
        entropy = np.random.default_rng(seed).integers(0, 2**63, size=2).tolist()
        children = np.random.SeedSequence(entropy).spawn(reps)
        return [intervals.replicate_indices(np.random.default_rng(s), self.N) for s in children]

    def test_counts_follow_the_stream(self, monkeypatch):
        """resample_counts's multiplicities are the bincounts of replicate_indices drawn from each replicate's
        generator (SeedSequence of two draws of the seed's generator, spawned R times), with threads, one thread
        and one replicate per chunk alike."""
        w = np.random.default_rng(0).integers(0, 1000, (self.N, 2)).astype(np.float64)  # integer sums: exact
        want = np.stack([np.bincount(i, minlength=self.N) for i in self._by_hand(9, 11)]) @ w
        got = intervals.resample_counts(lambda c: c @ w, self.N, n_resamples=11, seed=9)
        assert np.array_equal(got, want)
        with monkeypatch.context() as m:
            m.setattr(intervals, "_workers", lambda: 1)
            m.setattr(intervals, "CHUNK_BYTES", 1)
            assert np.array_equal(intervals.resample_counts(lambda c: c @ w, self.N, n_resamples=11, seed=9), want)

    def test_gathering_follows_the_stream(self):
        """resample_statistic gathers the same multisets; in random order by default (each replicate's
        generator shuffles its draws), in block order for a statistic declared symmetric."""
        x = np.arange(self.N)
        seen = []
        intervals.resample_statistic(lambda a: seen.append(a.copy()) or np.zeros(len(a)), (x,), n_resamples=5, seed=9)
        sym = []
        intervals.resample_statistic(
            lambda a: sym.append(a.copy()) or np.zeros(len(a)), (x,), n_resamples=5, seed=9, symmetric=True
        )
        for got, ordered, want in zip(np.concatenate(seen), np.concatenate(sym), self._by_hand(9, 5)):
            assert np.array_equal(ordered, want)
            assert np.array_equal(np.sort(got), np.sort(want)) and not np.array_equal(got, want)
            # shuffled: the block of a draw no longer follows its position
            assert abs(stats.spearmanr(np.arange(self.N), got // intervals._BLOCK)[0]) < 0.05

    def test_small_n_keeps_the_plain_stream(self):
        """Below 2**15 nothing changed: ``rng.integers(0, N, N)`` per replicate, in order."""
        n = intervals.BLOCKED_MIN_N - 1
        rng = np.random.default_rng(4)
        want = np.stack([np.bincount(rng.integers(0, n, n), minlength=n) for _ in range(3)]).sum(axis=1)
        got = intervals.resample_counts(lambda c: c.sum(axis=1), n, n_resamples=3, seed=4)
        assert np.array_equal(got, want)
        seen = []
        intervals.resample_statistic(
            lambda a: seen.append(a.copy()) or np.zeros(len(a)), (np.arange(n),), n_resamples=3, seed=4
        )
        assert np.array_equal(np.concatenate(seen), np.random.default_rng(4).integers(0, n, size=(3, n)))


class TestCapped:
    def test_caps_this_thread_only(self):
        """Inside ``capped(1)`` this thread sees one worker (plain loops) while another thread sees all; the cap
        nests (the smaller wins) and is lifted on leaving."""
        full = _threads.workers()
        other = []
        with _threads.capped(1):
            assert _threads.workers() == 1 and _threads.shared_pool() is None
            t = threading.Thread(target=lambda: other.append(_threads.workers()))
            t.start()
            t.join()
            with _threads.capped(3):
                assert _threads.workers() == 1
        assert other == [full] and _threads.workers() == full

    @pytest.mark.parametrize("bad", [0, -1, 1.5, True, "2"])
    def test_bad_cap(self, bad):
        with pytest.raises(ValueError, match="n must be a positive integer"):
            with _threads.capped(bad):
                pass
