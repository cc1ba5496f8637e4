"""One lamp and ambient light: how bright a surface is, and the light map of the board plane.

The same formula shades the drawn objects (per facet) and the textured planes (per pixel on a
coarse grid), so a checker and the board under it agree.
"""

from __future__ import annotations

import dataclasses
import math

import cv2
import numpy as np
from numpy.typing import NDArray

from referee.scenes.camera import Camera
from referee.scenes.config import LightConfig

FloatArray = NDArray[np.float64]

_MAP_STEP = 16
# Exponent of the lamp's fall-off with distance: 2 for a bare bulb; a shaded lamp with a
# reflector spreads its light more evenly over a board-sized area.
FALLOFF = 1.3


def kelvin_to_bgr(kelvin: float) -> FloatArray:
    """Relative (b, g, r) of a black body at `kelvin` (Tanner Helland's fit), mean 1."""
    t = kelvin / 100.0
    red = 255.0 if t <= 66 else 329.7 * (t - 60) ** -0.1332
    green = 99.47 * math.log(t) - 161.12 if t <= 66 else 288.12 * (t - 60) ** -0.0755
    blue = 255.0 if t >= 66 else (0.0 if t <= 19 else 138.52 * math.log(t - 10) - 305.04)
    rgb = np.clip(np.array([blue, green, red]), 1.0, 255.0)
    return np.asarray(rgb / rgb.mean(), dtype=np.float64)


@dataclasses.dataclass(frozen=True)
class Light:
    """A point lamp at `position` (mm) with colour `colour` (b, g, r multipliers), plus ambient."""

    position: FloatArray
    colour: FloatArray
    kelvin: float
    intensity: float
    ambient: float
    shadow_strength: float
    shadow_blur_px: float
    glare: float

    def shade(
        self,
        albedo: FloatArray,
        normals: FloatArray,
        points: FloatArray,
        eye: FloatArray,
        gloss: float,
        shininess: float = 40.0,
    ) -> FloatArray:
        """Colours (N, 3) of surfaces with `albedo` (3,) or (N, 3) at `points` facing `normals`."""
        to_light = self.position - points
        distance = np.linalg.norm(to_light, axis=1, keepdims=True)
        to_light /= distance
        falloff = (np.linalg.norm(self.position) / distance[:, 0]) ** FALLOFF
        diffuse = np.clip(np.sum(normals * to_light, axis=1), 0.0, None) * falloff
        lit = self.ambient + self.intensity * diffuse
        colour = albedo * lit[:, None] * self.colour
        if gloss > 0:
            spec = self._spec(normals, points, eye, shininess)
            colour = (
                colour + (gloss * 170.0 * self.intensity * spec * falloff)[:, None] * self.colour
            )
        return np.asarray(np.clip(colour, 0.0, 255.0), dtype=np.float64)

    def cast(self, points: FloatArray, plane_z: float) -> FloatArray:
        """Where the shadows of `points` fall on the horizontal plane z = `plane_z`."""
        lamp = self.position
        height = np.maximum(lamp[2] - points[:, 2], 1.0)
        factor = (lamp[2] - plane_z) / height
        return np.asarray(lamp + (points - lamp) * factor[:, None], dtype=np.float64)

    def plane_map(
        self, camera: Camera, gloss: float
    ) -> tuple[NDArray[np.uint8], NDArray[np.uint8] | None]:
        """Per canvas pixel and colour channel: the factor the lamp multiplies the z = 0 plane's
        colour by, in 1/128 (so up to 2), and the glare it adds (None without glare)."""
        width, height = camera.canvas_size
        # Samples where cv2.resize (pixel-centre aligned) puts them: (s + 0.5) * step - 0.5.
        cols = (np.arange(width // _MAP_STEP + 1) + 0.5) * _MAP_STEP - 0.5
        rows = (np.arange(height // _MAP_STEP + 1) + 0.5) * _MAP_STEP - 0.5
        u, v = np.meshgrid(cols, rows)
        rays = (
            np.stack([u.ravel(), v.ravel(), np.ones(u.size)], axis=1)
            @ np.linalg.inv(camera.K_canvas).T
        )
        rays = rays @ camera.R
        eye = camera.center
        # Rays that miss the plane (looking above the horizon) cannot happen for a camera
        # looking down within 30 degrees of vertical; clamp for safety anyway.
        scale = -eye[2] / np.minimum(rays[:, 2], -1e-3)
        points = eye + rays * scale[:, None]
        up = np.tile([0.0, 0.0, 1.0], (len(points), 1))
        to_light = self.position - points
        distance = np.linalg.norm(to_light, axis=1)
        falloff = (np.linalg.norm(self.position) / distance) ** FALLOFF
        diffuse = np.clip(to_light[:, 2] / distance, 0.0, None) * falloff
        brightness = (self.ambient + self.intensity * diffuse).reshape(u.shape)
        big = (len(cols) * _MAP_STEP, len(rows) * _MAP_STEP)

        def full(values: FloatArray) -> NDArray[np.uint8]:
            # Scaled up as 8-bit: the map is smooth, so the coarse steps do not show.
            coloured = np.clip(values[..., None] * self.colour, 0, 255).astype(np.uint8)
            return np.asarray(cv2.resize(coloured, big)[:height, :width], np.uint8)

        if self.glare <= 0 or gloss <= 0:
            return full(128.0 * brightness), None
        # Varnish reflects the lamp as a fairly tight hotspot.
        spec = self.glare * gloss * self._spec(up, points, eye, 70.0) * falloff
        return full(128.0 * brightness), full(255.0 * spec.reshape(u.shape))

    def _spec(
        self, normals: FloatArray, points: FloatArray, eye: FloatArray, shininess: float
    ) -> FloatArray:
        to_light = self.position - points
        to_light /= np.linalg.norm(to_light, axis=1, keepdims=True)
        view = eye - points
        view /= np.linalg.norm(view, axis=1, keepdims=True)
        half = to_light + view
        half /= np.linalg.norm(half, axis=1, keepdims=True)
        return np.asarray(np.clip(np.sum(normals * half, axis=1), 0.0, None) ** shininess)


def sample_light(rng: np.random.Generator, config: LightConfig, exposure: float) -> Light:
    """A lamp somewhere above the board, its colour temperature, and how strong each part is."""
    elevation = math.radians(rng.uniform(*config.elevation_deg))
    azimuth = rng.uniform(0.0, 2 * math.pi)
    distance = rng.uniform(*config.distance_mm)
    position = distance * np.array(
        [
            math.cos(elevation) * math.cos(azimuth),
            math.cos(elevation) * math.sin(azimuth),
            math.sin(elevation),
        ]
    )
    # The camera's white balance undoes part of the lamp's colour.
    kelvin = float(rng.uniform(*config.kelvin))
    colour = 1.0 + 0.5 * (kelvin_to_bgr(kelvin) - 1.0)
    glare = rng.uniform(*config.glare_strength) if rng.random() < config.glare_probability else 0.0
    return Light(
        position=position,
        colour=colour,
        kelvin=kelvin,
        intensity=float(rng.uniform(*config.intensity)) * exposure,
        ambient=float(rng.uniform(*config.ambient)) * exposure,
        shadow_strength=float(rng.uniform(*config.shadow_strength)),
        shadow_blur_px=float(rng.uniform(*config.shadow_blur_px)),
        glare=float(glare),
    )
