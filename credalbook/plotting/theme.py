"""The book's seaborn theme and the axes helpers every figure uses."""

from __future__ import annotations

import numpy as np

__all__ = ["PALETTE", "set_theme", "axes_or_new", "panel_row"]


#: Colour-blind-safe palette used throughout the book.
PALETTE = "colorblind"


def set_theme(*, context: str = "notebook", font_scale: float = 1.0) -> None:
    """Apply the book's seaborn theme (white grid, colour-blind palette, 110 dpi figures)."""
    import matplotlib as mpl

    try:
        import seaborn as sns
    except ImportError:
        raise ImportError(
            "set_theme needs seaborn, which comes with the book's extra: pip install 'credalbook[book]'"
        ) from None
    sns.set_theme(context=context, style="whitegrid", palette=PALETTE, font_scale=font_scale)
    mpl.rcParams.update({"figure.dpi": 110, "savefig.bbox": "tight", "axes.titleweight": "bold"})


def axes_or_new(ax):
    """``ax``, or the axes of a new 4.2 × 4.2 in figure when ``ax`` is None."""
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=(4.2, 4.2))
    return ax


def panel_row(axes, n: int, size=(3.6, 3.2)):
    """A row of `n` panels: new ones (``size`` each) when `axes` is None, else `axes` checked to hold n."""
    import matplotlib.pyplot as plt

    if axes is None:
        fig, axes = plt.subplots(1, n, figsize=(size[0] * n, size[1]), squeeze=False)
        return fig, list(axes[0])
    axes = list(np.atleast_1d(axes))
    if len(axes) != n:
        raise ValueError(f"axes must hold {n} axes; got {len(axes)}")
    return axes[0].figure, axes
