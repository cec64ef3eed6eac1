"""Tests for credalbook.papers.presets: one size table per chapter, one row per scale."""

import numbers

import pytest

from credalbook.papers.presets import preset, PRESETS, SCALES, SETTINGS

CHAPTERS = sorted(PRESETS)


class TestPreset:
    def test_main(self):
        cfg = preset("00_calibration_primer", "tiny")
        assert cfg["epochs"] == 4  # the docstring's example
        assert dict(cfg) == PRESETS["00_calibration_primer"]["tiny"]

    @pytest.mark.parametrize("chapter", CHAPTERS)
    def test_scales_and_keys(self, chapter):
        assert SCALES == ("tiny", "quick", "paper")
        assert set(PRESETS[chapter]) == set(SCALES)
        keys = [set(PRESETS[chapter][s]) for s in SCALES]
        assert keys[0] == keys[1] == keys[2] and keys[0]
        for scale in SCALES:
            assert set(preset(chapter, scale)) == keys[0]

    @pytest.mark.parametrize("chapter", CHAPTERS)
    def test_sizes_grow_with_scale(self, chapter):
        tiny, quick, paper = (PRESETS[chapter][s] for s in SCALES)
        for key, value in tiny.items():
            if key in SETTINGS:
                assert value > 0 and paper[key] > 0, key
            elif isinstance(value, numbers.Number) and not isinstance(value, bool):
                assert value > 0, key
                # None means "all of it" (e.g. the whole training split)
                larger = [float("inf") if v is None else v for v in (quick[key], paper[key])]
                assert value <= larger[0] <= larger[1], key

    @pytest.mark.parametrize("chapter", CHAPTERS)
    def test_resample_counts_give_exact_levels(self, chapter):
        # p = (1 + #)/(1 + R): with R + 1 a multiple of 100, α = 0.05 and 0.01 are attainable p-values
        for scale in SCALES:
            for key, value in PRESETS[chapter][scale].items():
                if "resamples" in key:
                    assert (value + 1) % 100 == 0, (scale, key, value)

    def test_read_only(self):
        cfg = preset("00_calibration_primer", "quick")
        epochs = cfg["epochs"]
        with pytest.raises(TypeError):
            cfg["epochs"] = 1
        with pytest.raises(TypeError):
            del cfg["epochs"]
        assert cfg["epochs"] == epochs == PRESETS["00_calibration_primer"]["quick"]["epochs"]
        # a fresh mapping each call, over a copy: PRESETS cannot be reached through it
        assert preset("00_calibration_primer", "quick") is not cfg

    def test_errors(self):
        with pytest.raises(ValueError, match=r"chapter must be one of \['00_calibration_primer'.*got 'nope'"):
            preset("nope", "tiny")
        with pytest.raises(ValueError, match=r"scale must be one of \('tiny', 'quick', 'paper'\); got 'huge'"):
            preset("00_calibration_primer", "huge")
        with pytest.raises(ValueError, match="scale must be one of"):
            preset("00_calibration_primer", "Tiny")
