"""Colours of the app: the Okabe–Ito palette, safe for the common forms of colour blindness.

Every state is also told apart by its glyph, so the app reads in monochrome (NO_COLOR) too."""

BLUE = "#0072B2"  # committed cells (blocks, not text: 3.6:1 on the dark background is too dim for text)
ORANGE = "#E69F00"  # committed on the latest turn, negative values
GREEN = "#009E73"  # in the offer on the table
SKY = "#56B4E9"  # proposer highlight, positive values, the autoplay indicator
VERMILLION = "#D55E00"  # partner highlight
GREY = "#999999"  # blocked
YELLOW = "#F0E442"  # the cells of a welfare optimum marked on the matrix

# text colours: at least 4.5:1 against every background the app draws text on (tests/tui/test_starting.py)
POSITIVE = SKY
NEGATIVE = ORANGE

GLYPH = {
    "committed": "██",
    "new": "▓▓",
    "offer": "++",
    "blocked": "××",
    "target": "◇◇",
    "free": "··",
}
SPARK = "▁▂▃▄▅▆▇█"


def sparkline(values: list[float], width: int = 12) -> str:
    """A text sparkline of the last `width` values."""
    vals = values[-width:]
    if not vals:
        return ""
    lo, hi = min(vals), max(vals)
    if hi - lo < 1e-12:
        return SPARK[3] * len(vals)
    return "".join(SPARK[min(7, int((v - lo) / (hi - lo) * 7.999))] for v in vals)


def signed(value: float) -> str:
    """Rich style for a signed value."""
    if value > 1e-9:
        return POSITIVE
    if value < -1e-9:
        return NEGATIVE
    return ""
