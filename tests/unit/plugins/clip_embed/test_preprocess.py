"""Preprocessing: CLIP's recipe from preprocessor_config.json, and bad images that never crash."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

from rk.plugins.clip_embed.model_dir import ModelDirError
from rk.plugins.clip_embed.preprocess import CLIP_MEAN, CLIP_STD, Preprocessor
from tests.models import samples

TINY = Preprocessor.from_config({"size": {"shortest_edge": 32}, "crop_size": 32})


def test_defaults_are_clips_when_the_config_is_absent() -> None:
    recipe = Preprocessor.from_config({})
    assert (recipe.shortest_edge, recipe.crop) == (224, (224, 224))
    assert (recipe.mean, recipe.std) == (CLIP_MEAN, CLIP_STD)
    assert Preprocessor.from_config({}, image_size=32).crop == (32, 32)


@pytest.mark.parametrize(
    ("config", "edge", "crop"),
    [
        ({"size": 64, "crop_size": 48}, 64, (48, 48)),
        (
            {"size": {"shortest_edge": 256}, "crop_size": {"height": 224, "width": 224}},
            256,
            (224, 224),
        ),
        ({"size": {"height": 40, "width": 30}, "do_center_crop": False}, 30, (40, 30)),
    ],
)
def test_size_and_crop_forms(config: dict, edge: int, crop: tuple[int, int]) -> None:
    recipe = Preprocessor.from_config(config)
    assert (recipe.shortest_edge, recipe.crop) == (edge, crop)


SIGLIP_CONFIG = {
    "do_normalize": True,
    "do_rescale": True,
    "do_resize": True,
    "image_mean": [0.5, 0.5, 0.5],
    "image_processor_type": "SiglipImageProcessor",
    "image_std": [0.5, 0.5, 0.5],
    "resample": 3,
    "rescale_factor": 1 / 255,
    "size": {"height": 384, "width": 384},
}


def test_a_siglip_config_resizes_without_a_crop_and_normalises_by_half() -> None:
    """SigLIP's processor has no crop: the whole picture is squeezed to height x width, even
    where the tower's size is unknown (CLIP's 224 default must not crop a 384 resize)."""
    recipe = Preprocessor.from_config(SIGLIP_CONFIG)
    assert (recipe.resize_to, recipe.crop) == ((384, 384), (384, 384))
    assert (recipe.mean, recipe.std) == ((0.5, 0.5, 0.5), (0.5, 0.5, 0.5))
    assert recipe.resample == Image.Resampling.BICUBIC
    # a 96x32 strip: black | white | black thirds; squeezed, not cropped, so the left edge
    # stays black (a crop would keep only the white middle)
    pixels = np.zeros((32, 96, 3), dtype=np.uint8)
    pixels[:, 32:64] = 255
    array = Preprocessor.from_config({**SIGLIP_CONFIG, "size": {"height": 32, "width": 32}})(
        samples.encode(Image.fromarray(pixels), "PNG")
    )
    assert array is not None
    assert array.shape == (3, 32, 32)
    np.testing.assert_allclose(array[:, :, :4].mean(), -1.0, atol=1e-5)
    np.testing.assert_allclose(array[:, :, 14:18].mean(), 1.0, atol=1e-5)


def test_a_clip_config_resizes_the_shortest_side_and_crops() -> None:
    config = {
        "size": {"shortest_edge": 224},
        "crop_size": {"height": 224, "width": 224},
        "do_center_crop": True,
        "image_mean": list(CLIP_MEAN),
        "image_std": list(CLIP_STD),
        "resample": 3,
    }
    recipe = Preprocessor.from_config(config)
    assert (recipe.shortest_edge, recipe.resize_to, recipe.crop) == (224, None, (224, 224))
    assert (recipe.mean, recipe.std) == (CLIP_MEAN, CLIP_STD)


def test_normalise_and_rescale_can_be_turned_off() -> None:
    recipe = Preprocessor.from_config({"do_normalize": False, "do_rescale": False})
    assert (recipe.mean, recipe.std, recipe.rescale) == ((0, 0, 0), (1, 1, 1), 1.0)


@pytest.mark.parametrize(
    "config",
    [
        {"size": 32, "crop_size": 64},
        {"image_mean": [0.5]},
        {"size": {"width": 3}},
        {"do_resize": False},
    ],
)
def test_unusable_configs_are_one_line_errors(config: dict) -> None:
    with pytest.raises(ModelDirError, match="preprocessor_config.json"):
        Preprocessor.from_config(config)


def test_solid_colour_normalises_to_the_formula() -> None:
    """Every pixel of a flat image becomes (value/255 - mean) / std, channel by channel."""
    colour = (200, 100, 50)
    array = TINY(samples.encode(Image.new("RGB", (50, 40), colour), "PNG"))
    assert array is not None
    assert array.shape == (3, 32, 32)
    assert array.dtype == np.float32
    expected = (np.array(colour) / 255 - np.array(CLIP_MEAN)) / np.array(CLIP_STD)
    np.testing.assert_allclose(array.reshape(3, -1).mean(axis=1), expected, atol=1e-6)
    assert float(array.std(axis=(1, 2)).max()) < 1e-6


def test_center_crop_keeps_the_middle() -> None:
    """A 96x32 image: black | white | black thirds; the 32x32 crop is all white."""
    pixels = np.zeros((32, 96, 3), dtype=np.uint8)
    pixels[:, 32:64] = 255
    array = TINY(samples.encode(Image.fromarray(pixels), "PNG"))
    assert array is not None
    white = (1 - np.array(CLIP_MEAN)) / np.array(CLIP_STD)
    np.testing.assert_allclose(array[:, 8:24, 8:24].reshape(3, -1).mean(axis=1), white, atol=1e-5)


@pytest.mark.parametrize(
    "data",
    [b"", samples.HTML, samples.truncated_jpeg(), b"\xff\xd8\xff\xe0garbage", b"GIF89a"],
    ids=["empty", "html", "truncated-jpeg", "jpeg-magic-garbage", "gif-header-only"],
)
def test_undecodable_bytes_give_none(data: bytes) -> None:
    assert TINY(data) is None


@pytest.mark.parametrize(
    "data",
    [samples.png_claiming(20_000, 20_000), samples.jpeg_claiming(20_000, 20_000)],
    ids=["png", "jpeg"],
)
def test_decompression_bombs_are_refused_from_the_header(data: bytes) -> None:
    """20000x20000 (400 Mpx) is refused before any pixel is decoded."""
    assert len(data) < 2000
    assert TINY(data) is None


def test_pixel_limit_applies_to_non_jpeg_images() -> None:
    small_limit = Preprocessor(shortest_edge=32, crop=(32, 32), max_pixels=50 * 50)
    assert small_limit(samples.encode(Image.new("RGB", (60, 60)), "PNG")) is None
    assert small_limit(samples.encode(Image.new("RGB", (40, 40)), "PNG")) is not None


def test_big_jpegs_are_decoded_at_a_reduced_dct_scale() -> None:
    """draft(): a 2048x1536 JPEG for a 32 px model decodes at 1/8 scale, 256x192."""
    data = samples.noise_jpeg(2048, 1536)
    image = TINY.decode(data)
    assert image is not None
    assert image.size == (256, 192)
    # the pixel limit counts the drafted size, so a JPEG far over it still embeds
    limited = Preprocessor(shortest_edge=32, crop=(32, 32), max_pixels=300 * 300)
    assert limited(data) is not None


@pytest.mark.parametrize("size", [(1, 1), (1, 5000), (5000, 1), (33, 31)])
def test_tiny_and_extreme_aspect_images(size: tuple[int, int]) -> None:
    array = TINY(samples.encode(Image.new("RGB", size, (10, 200, 90)), "PNG"))
    assert array is not None
    assert array.shape == (3, 32, 32)
    assert np.isfinite(array).all()


@pytest.mark.parametrize("mode", ["L", "P", "CMYK", "I;16", "1", "LA", "RGBA"])
def test_every_pillow_mode_becomes_rgb(mode: str) -> None:
    image = Image.new("RGB", (40, 40), (120, 30, 220)).convert(mode)
    fmt = "JPEG" if mode == "CMYK" else "PNG" if mode != "I;16" else "TIFF"
    array = TINY(samples.encode(image, fmt))
    assert array is not None
    assert array.shape == (3, 32, 32)


def test_transparency_is_composited_onto_white() -> None:
    clear = Image.new("RGBA", (40, 40), (0, 0, 0, 0))
    array = TINY(samples.encode(clear, "PNG"))
    assert array is not None
    white = (1 - np.array(CLIP_MEAN)) / np.array(CLIP_STD)
    np.testing.assert_allclose(array.reshape(3, -1).mean(axis=1), white, atol=1e-5)


def test_exif_orientation_is_applied() -> None:
    """A 60x40 JPEG tagged 'rotate 90' is a 40x60 picture once decoded."""
    exif = Image.Exif()
    exif[0x0112] = 6
    data = samples.encode(Image.new("RGB", (60, 40), (1, 2, 3)), "JPEG", exif=exif.tobytes())
    image = TINY.decode(data)
    assert image is not None
    assert image.size == (40, 60)
    assert Image.open(io.BytesIO(data)).size == (60, 40)
