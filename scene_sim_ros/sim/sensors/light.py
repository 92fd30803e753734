"""The light sensor (Webots' LightSensor): irradiance from the scene's lights, as Webots computes
it (WbLightSensor), then its lookup table.

Per light: ``L`` the unit vector from the sensor to a point or spot light (for a directional
light, against its direction), ``att = 1 / (a0 + a1 d + a2 d^2)`` for point and spot lights at
distance ``d`` (1 for directional ones), a spot's factor 1 within ``beam_width`` of its axis,
falling linearly to 0 at ``cutoff``; ``direct = max(0, N . L) * spot`` with ``N`` the sensor's
+x; the light adds ``att * (ambient + diffuse * direct)`` (its colour times its ambient
intensity, and times its intensity) to the RGB irradiance. ``E = (F . RGB) / 3`` with ``F`` the
colour filter; the output interpolates the lookup table (clamped to its ends), with gaussian
noise of the table's third column times the output, rounded to ``resolution`` if positive.
With ``occlusion`` a light hidden by a collision shape (a ray to it, 1000 m against a
directional light's direction) gives no direct part; the ambient part always counts.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from scene_sim_ros.scene import sensors as model
from scene_sim_ros.sim.sensors.base import Reader
from scene_sim_ros.sim.sensors.rays import cast_rays, own_links
from scene_sim_ros.sim.simulator import Simulator

DIRECTIONAL_DISTANCE = 1000.0
"""How far a directional light is taken to be for occlusion (Webots: "1 kilometer away")."""


class LightSensorReader(Reader):
    """``read()``: the sensor's output (a float) for the lights where it is now."""

    reads = model.LightSensor

    def __init__(self, sim: Simulator, entity: str, sensor: Any) -> None:
        super().__init__(sim, entity, sensor)
        self.ignore = own_links(sim, entity, sensor.link)

    def read(self) -> float:
        pose = self.sensor_pose()
        normal = np.array(pose.rotate((1.0, 0.0, 0.0)))
        here = np.array(pose.position)
        rgb = np.zeros(3)
        for light in self.sim.scene.lights:
            to_light, distance, attenuation, spot = _geometry(light, here)
            direct = max(0.0, float(normal @ to_light)) * spot
            if direct > 0.0 and self.sensor.occlusion and self._hidden(here, to_light, distance):
                direct = 0.0
            rgb += attenuation * (np.array(light.ambient[:3]) + np.array(light.diffuse[:3])
                                  * direct)
        irradiance = float(np.array(self.sensor.color_filter) @ rgb) / 3.0
        return self._output(irradiance)

    def _hidden(self, here: np.ndarray, to_light: np.ndarray, distance: float) -> bool:
        hit = cast_rays(self.sim, here[None, :], to_light[None, :], distance, self.ignore)
        return bool(np.isfinite(hit[0]))

    def _output(self, irradiance: float) -> float:
        table = self.sensor.lookup_table
        inputs = [row[0] for row in table]
        value = float(np.interp(irradiance, inputs, [row[1] for row in table]))
        noise = float(np.interp(irradiance, inputs, [row[2] for row in table]))
        if noise > 0.0:
            value += float(self.sim.rng.normal(0.0, noise * abs(value)))
        resolution = self.sensor.resolution
        if resolution > 0.0:
            value = round(value / resolution) * resolution
        return value


def _geometry(light: Any, here: np.ndarray) -> tuple[np.ndarray, float, float, float]:
    """(unit vector to the light, its distance, attenuation factor, spot factor)."""
    if light.kind == 'directional':
        direction = -np.array(light.direction, dtype=float)
        return direction / np.linalg.norm(direction), DIRECTIONAL_DISTANCE, 1.0, 1.0
    offset = np.array(light.position, dtype=float) - here
    distance = float(np.linalg.norm(offset))
    to_light = offset / distance if distance > 0.0 else np.array([0.0, 0.0, 1.0])
    a0, a1, a2 = light.attenuation
    attenuation = 1.0 / (a0 + a1 * distance + a2 * distance * distance)
    spot = 1.0
    if light.kind == 'spot' and light.cutoff is not None:
        axis = -np.array(light.direction, dtype=float)
        axis /= np.linalg.norm(axis)
        alpha = math.acos(max(-1.0, min(1.0, float(to_light @ axis))))
        beam = light.beam_width if light.beam_width is not None else light.cutoff
        if alpha > light.cutoff:
            spot = 0.0
        elif alpha > beam:
            spot = (alpha - light.cutoff) / (beam - light.cutoff)
    return to_light, distance, attenuation, spot
