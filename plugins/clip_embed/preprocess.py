"""Image bytes → a model's input tensor (float32 CHW), as transformers' image processors do.

The recipe comes from the model's ``preprocessor_config.json``. CLIP: resize the shortest
side (bicubic), center-crop, rescale to [0, 1], normalise by CLIP's mean/std. SigLIP: resize
to height × width (no crop), rescale, normalise by mean/std 0.5.

Two departures, both for speed and safety, neither visible on ordinary images:

- JPEGs are decoded with ``Image.draft()`` at the smallest DCT scale that still covers
  the target size (halves decode time on 1280×1920 photos);
- for strips and panoramas only the source region that survives the crop is resampled
  (``resize(box=…)``), so a 1×10000 strip cannot blow up into a 224×2240000 intermediate.

Anything that is not a decodable image (empty, HTML, truncated, a decompression bomb) gives
``None``; the caller reports it as skipped.
"""

from __future__ import annotations

import io
import logging
from dataclasses import dataclass
from typing import Any

import numpy as np
from PIL import Image, ImageOps

from rk.plugins.clip_embed.model_dir import ModelDirError

log = logging.getLogger("rk.plugins.clip_embed")

CLIP_MEAN = (0.48145466, 0.4578275, 0.40821073)
CLIP_STD = (0.26862954, 0.26130258, 0.27577711)
CLIP_SIZE = 224
DEFAULT_MAX_PIXELS = 64_000_000
# Up to this many crops' worth of pixels the whole image is resized, then cropped, exactly as
# transformers does; beyond it (strips, panoramas) only the region that survives the crop is
# resampled, which can differ by one grey level at sharp edges.
FULL_RESIZE_LIMIT = 4


@dataclass(frozen=True)
class Preprocessor:
    """The preprocessing recipe of one model."""

    shortest_edge: int = CLIP_SIZE
    resize_to: tuple[int, int] | None = None
    crop: tuple[int, int] = (CLIP_SIZE, CLIP_SIZE)
    mean: tuple[float, float, float] = CLIP_MEAN
    std: tuple[float, float, float] = CLIP_STD
    rescale: float = 1 / 255
    resample: int = Image.Resampling.BICUBIC
    max_pixels: int = DEFAULT_MAX_PIXELS

    @classmethod
    def from_config(cls, config: dict[str, Any], image_size: int | None = None) -> Preprocessor:
        """From a ``preprocessor_config.json`` dict; CLIP's defaults (at ``image_size``) fill gaps.

        Read: ``size`` (shortest edge, CLIP's way, or height × width, SigLIP's way),
        ``crop_size`` and ``do_center_crop``, ``image_mean``/``image_std`` (unless
        ``do_normalize`` is false), ``rescale_factor`` (unless ``do_rescale`` is false) and
        ``resample``. A config that sets height × width and says nothing of cropping (SigLIP's
        image processor has no crop) resizes to that size without a crop. A batch needs one
        tensor shape, so the output is always ``crop`` (the resize size when there is none).
        """
        side = image_size or CLIP_SIZE
        normalise = config.get("do_normalize", True) is not False
        rescale = config.get("do_rescale", True) is not False
        if config.get("do_resize", True) is False:
            raise ModelDirError(
                "preprocessor_config.json: do_resize false (a batch needs one size)"
            )
        try:
            size = config.get("size", side)
            resize_to = None
            if isinstance(size, dict) and "shortest_edge" not in size:
                resize_to = (int(size["height"]), int(size["width"]))
                edge = min(resize_to)
            else:
                edge = int(size["shortest_edge"] if isinstance(size, dict) else size)
            crop = config.get("crop_size", side) if _crops(config, resize_to) else None
            if crop is None:
                crop = resize_to or edge
            if isinstance(crop, dict):
                crop = (int(crop["height"]), int(crop["width"]))
            elif isinstance(crop, int | float):
                crop = (int(crop), int(crop))
            else:
                crop = (int(crop[0]), int(crop[1]))
            recipe = cls(
                shortest_edge=edge,
                resize_to=resize_to,
                crop=crop,
                mean=_triple(config.get("image_mean", CLIP_MEAN) if normalise else (0, 0, 0)),
                std=_triple(config.get("image_std", CLIP_STD) if normalise else (1, 1, 1)),
                rescale=float(config.get("rescale_factor", 1 / 255)) if rescale else 1.0,
                resample=int(config.get("resample", Image.Resampling.BICUBIC)),
            )
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise ModelDirError(f"preprocessor_config.json: unusable ({exc!r})") from None
        bound = resize_to or (edge, edge)
        if crop[0] > bound[0] or crop[1] > bound[1] or min(crop) < 1:
            raise ModelDirError(
                f"preprocessor_config.json: crop {crop} does not fit the resize {bound}"
            )
        return recipe

    def decode(self, data: bytes) -> Image.Image | None:
        """An RGB image ready to resize, or None when ``data`` is not a decodable image.

        Sizes are checked from the header before any pixel is decoded: Pillow itself refuses
        more than twice ``Image.MAX_IMAGE_PIXELS`` (about 179 Mpx) at open, and anything
        whose size after ``draft()`` is over ``max_pixels`` is refused here.
        """
        try:
            image: Image.Image = Image.open(io.BytesIO(data))
            if image.format == "JPEG":
                height, width = self.resize_to or (self.shortest_edge, self.shortest_edge)
                image.draft("RGB", (width, height))
            width, height = image.size
            if width < 1 or height < 1 or width * height > self.max_pixels:
                log.debug(
                    "skipping a %dx%d image (limit %d pixels)", width, height, self.max_pixels
                )
                return None
            image.load()
            image = ImageOps.exif_transpose(image)
            return _to_rgb(image)
        except Image.DecompressionBombError:
            return None
        except Exception as exc:  # any decoder failure means "not an image we can use"
            log.debug("undecodable image: %s", exc)
            return None

    def to_array(self, image: Image.Image) -> np.ndarray:
        """Resize, crop and normalise an RGB image into a float32 CHW array."""
        width, height = image.size
        crop_h, crop_w = self.crop
        # transformers: the shortest side becomes shortest_edge, the other int(edge * long/short)
        if self.resize_to is not None:
            new_h, new_w = self.resize_to
        elif width <= height:
            new_w, new_h = self.shortest_edge, int(self.shortest_edge * height / width)
        else:
            new_w, new_h = int(self.shortest_edge * width / height), self.shortest_edge
        top, left = (new_h - crop_h) // 2, (new_w - crop_w) // 2
        if new_w * new_h <= FULL_RESIZE_LIMIT * crop_w * crop_h:
            resized = image.resize((new_w, new_h), self.resample)
            resized = resized.crop((left, top, left + crop_w, top + crop_h))
        else:
            sx, sy = width / new_w, height / new_h
            box = (left * sx, top * sy, (left + crop_w) * sx, (top + crop_h) * sy)
            resized = image.resize((crop_w, crop_h), self.resample, box=box)
        pixels = np.asarray(resized, dtype=np.float32)
        scale = np.asarray(self.std, dtype=np.float32)
        mean = np.asarray(self.mean, dtype=np.float32)
        pixels = (pixels * np.float32(self.rescale) - mean) / scale
        return np.ascontiguousarray(pixels.transpose(2, 0, 1))

    def __call__(self, data: bytes) -> np.ndarray | None:
        """Bytes → CHW float32, or None when undecodable (never raises on bad input)."""
        image = self.decode(data)
        if image is None:
            return None
        try:
            return self.to_array(image)
        except Exception as exc:  # e.g. a decoder that fails lazily inside resize
            log.debug("image failed in preprocessing: %s", exc)
            return None


def _crops(config: dict[str, Any], resize_to: tuple[int, int] | None) -> bool:
    """Whether to center-crop: as ``do_center_crop`` says, else when a crop size is given or
    the resize keeps the aspect (CLIP's default); a height × width resize alone has none."""
    if "do_center_crop" in config:
        return bool(config["do_center_crop"])
    return "crop_size" in config or resize_to is None


def _triple(values: Any) -> tuple[float, float, float]:
    a, b, c = (float(v) for v in values)
    return (a, b, c)


def _to_rgb(image: Image.Image) -> Image.Image:
    """RGB; transparency is composited onto white (a plain convert shows whatever colour
    hides under transparent pixels, often black, which is not what a viewer sees)."""
    if image.mode == "RGB":
        return image
    has_alpha = image.mode in {"RGBA", "LA", "PA"} or (
        image.mode == "P" and "transparency" in image.info
    )
    if not has_alpha:
        return image.convert("RGB")
    rgba = image.convert("RGBA")
    background = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
    return Image.alpha_composite(background, rgba).convert("RGB")
