"""Where the garment probably is, without a segmentation model: a weight for every pixel.

Four cues, each documented with its limits in ``docs/colour.md``:

- **centre**: a Gaussian ellipse centred on the frame; runway and street photographs put
  the person in the middle, and the floor, walls and the audience at the edges.
- **edges**: pixels that differ from a neighbour by more than ``EDGE_DE`` (ΔE76) count
  ``EDGE_WEIGHT``: a small rendition blends the colours either side of every outline, and
  those blends (a pale navy along a navy coat on white) are no colour of the garment.
- **backdrop**: the colours that dominate a band along the frame's border are taken for
  the backdrop, and pixels within ``BACKGROUND_DE`` (ΔE00) of one of them are dropped,
  unless that would leave less than ``KEEP_AT_LEAST`` of the weight even at the tighter
  reach (then the border colour is the garment itself, as in a close crop).
- **skin**: pixels in a band of Lab that skin falls in (lightness, chroma, hue angle) count
  ``SKIN_WEIGHT`` of their weight, unless they are more than ``SKIN_AT_MOST`` of what is
  left (then the garment is skin-toned: nude, camel or chocolate close to a skin tone).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from rk.server.colour.ciede2000 import delta_e_2000
from rk.server.colour.clusters import weighted_kmeans
from rk.server.colour.lab import Floats

CENTRE_SIGMA = (0.30, 0.38)
"""The centre weight's standard deviation across and down the frame, as fractions of it."""
BORDER = 0.06
"""The border band's width, as a fraction of the frame's width (sides) and height."""
BORDER_CLUSTERS = 3
BACKGROUND_MIN_SHARE = 0.15
"""A border colour is backdrop when it covers at least this much of the border band."""
BACKGROUND_DE = (10.0, 5.0)
"""How near (ΔE00) a pixel must be to a backdrop colour to go with it: the widest that keeps
``KEEP_AT_LEAST`` of the weight, so a pale garment on a pale backdrop survives the second."""
KEEP_AT_LEAST = 0.2
EDGE_DE = 12.0
EDGE_WEIGHT = 0.1
SKIN_LIGHTNESS = (20.0, 92.0)
SKIN_CHROMA = (8.0, 45.0)
SKIN_HUE = (20.0, 70.0)
"""The skin band: L*, C*ab and hue angle h_ab (degrees) ranges, light to deep skin."""
SKIN_WEIGHT = 0.15
SKIN_AT_MOST = 0.5


def centre_weights(height: int, width: int) -> Floats:
    """A ``(height, width)`` Gaussian ellipse, 1 at the centre of the frame."""
    ys = (np.arange(height) + 0.5) / height - 0.5
    xs = (np.arange(width) + 0.5) / width - 0.5
    down = np.exp(-0.5 * (ys / CENTRE_SIGMA[1]) ** 2)
    across = np.exp(-0.5 * (xs / CENTRE_SIGMA[0]) ** 2)
    return np.asarray(np.outer(down, across), dtype=np.float64)


def border_mask(height: int, width: int) -> NDArray[np.bool_]:
    """True on the band along the four edges (at least one pixel wide)."""
    band_y = max(1, round(height * BORDER))
    band_x = max(1, round(width * BORDER))
    mask = np.ones((height, width), dtype=bool)
    mask[band_y : height - band_y, band_x : width - band_x] = False
    return mask


def backdrop_colours(lab: Floats) -> list[Floats]:
    """The Lab colours covering at least ``BACKGROUND_MIN_SHARE`` of the border, commonest first."""
    border = lab[border_mask(*lab.shape[:2])]
    centres, shares = weighted_kmeans(border, np.ones(len(border)), BORDER_CLUSTERS)
    order = np.argsort(-shares, kind="stable")
    return [centres[i] for i in order if shares[i] >= BACKGROUND_MIN_SHARE]


def without_backdrop(lab: Floats, weights: Floats) -> Floats:
    """``weights`` with the backdrop's pixels set to 0, where enough weight stays."""
    floor = KEEP_AT_LEAST * weights.sum()
    for colour in backdrop_colours(lab):
        distances = delta_e_2000(lab, colour)
        for reach in BACKGROUND_DE:
            trial = np.where(distances < reach, 0.0, weights)
            if trial.sum() >= floor:
                weights = trial
                break
    return weights


def edge_mask(lab: Floats) -> NDArray[np.bool_]:
    """True where a pixel differs from a neighbour (across or down) by more than ``EDGE_DE``."""
    edges = np.zeros(lab.shape[:2], dtype=bool)
    down = np.sqrt(((lab[1:] - lab[:-1]) ** 2).sum(axis=-1)) > EDGE_DE
    across = np.sqrt(((lab[:, 1:] - lab[:, :-1]) ** 2).sum(axis=-1)) > EDGE_DE
    edges[1:] |= down
    edges[:-1] |= down
    edges[:, 1:] |= across
    edges[:, :-1] |= across
    return edges


def skin_mask(lab: Floats) -> NDArray[np.bool_]:
    """True where a pixel's lightness, chroma and hue all fall in the skin band."""
    chroma = np.hypot(lab[..., 1], lab[..., 2])
    hue = np.degrees(np.arctan2(lab[..., 2], lab[..., 1])) % 360
    return np.asarray(
        (lab[..., 0] >= SKIN_LIGHTNESS[0])
        & (lab[..., 0] <= SKIN_LIGHTNESS[1])
        & (chroma >= SKIN_CHROMA[0])
        & (chroma <= SKIN_CHROMA[1])
        & (hue >= SKIN_HUE[0])
        & (hue <= SKIN_HUE[1]),
        dtype=bool,
    )


def without_skin(lab: Floats, weights: Floats) -> Floats:
    """``weights`` with skin-toned pixels discounted, unless they are most of what is left."""
    skin = skin_mask(lab)
    if weights[skin].sum() > SKIN_AT_MOST * weights.sum():
        return weights
    return np.where(skin, weights * SKIN_WEIGHT, weights)


def garment_weights(lab: Floats) -> Floats:
    """Each pixel's weight as evidence of the garment's colour: centre, edges, backdrop, skin."""
    weights = centre_weights(*lab.shape[:2])
    weights = np.where(edge_mask(lab), weights * EDGE_WEIGHT, weights)
    return without_skin(lab, without_backdrop(lab, weights))
