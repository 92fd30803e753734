"""Webots' LightSensor in PyBullet, against Webots' law (WbLightSensor): per light
att * (ambient + intensity * max(0, N.L) * spot) * colour, E = (filter . RGB) / 3, then the
lookup table. Closed forms below; tolerance 1e-9 (no noise)."""

from __future__ import annotations

import math

import pytest

from scene_sim_ros.formats import load_scene
from scene_sim_ros.sim.engines.pybullet.simulation import Simulation

SENSOR_UP = 'rotation 0 1 0 -1.5707963267948966'   # the sensor's +x turned to +z

WORLD = """#VRML_SIM R2023b utf8
WorldInfo {{ basicTimeStep 10 }}
{lights}
{obstacle}
Robot {{ name "probe" translation 0 0 0
  children [ LightSensor {{ name "eye" {rotation} {fields} }} ] }}
"""


def reading(tmp_path, lights, rotation=SENSOR_UP, fields='', obstacle=''):
    path = tmp_path / 'light.wbt'
    path.write_text(WORLD.format(lights=lights, rotation=rotation, fields=fields,
                                 obstacle=obstacle))
    with Simulation(load_scene(path)) as sim:
        return sim.read('probe', 'eye')


POINT = 'PointLight { location 0 0 2 intensity 1 attenuation 0 0 1 }'


def test_a_point_light_above_gives_intensity_over_distance_squared(tmp_path):
    # E = (1 + 1 + 1) / 3 * 1 / 2^2 = 0.25 W/m^2 -> 250 by the default table (0..1 -> 0..1000)
    assert reading(tmp_path, POINT) == pytest.approx(250.0, abs=1e-9)


def test_the_cosine_law_and_nothing_from_behind(tmp_path):
    tilted = 'rotation 0 1 0 -0.5235987755982988'   # +x 60 degrees from the light
    assert reading(tmp_path, POINT, tilted) == pytest.approx(250.0 * 0.5, abs=1e-9)
    assert reading(tmp_path, POINT, 'rotation 0 1 0 1.5707963267948966') == 0.0   # facing down


def test_ambient_light_counts_whatever_the_direction_and_colour_filters_weigh_it(tmp_path):
    lights = ('DirectionalLight { direction 0 0 -1 color 1 0 0 intensity 0.6 '
              'ambientIntensity 0.3 }')
    # facing the light: (0.3 + 0.6) * red, a red-only filter: 0.9 / 3 = 0.3 W/m^2 -> 300
    assert reading(tmp_path, lights, fields='colorFilter 1 0 0') == pytest.approx(300.0)
    # facing away: only the ambient 0.3 / 3; a blue filter sees nothing of a red light
    assert reading(tmp_path, lights, 'rotation 0 1 0 1.5707963267948966',
                   'colorFilter 1 0 0') == pytest.approx(100.0)
    assert reading(tmp_path, lights, fields='colorFilter 0 0 1') == 0.0


def test_a_spot_lights_fully_within_its_beam_and_fades_to_its_cutoff(tmp_path):
    def spot(beam, cutoff):
        return (f'SpotLight {{ location 0 0 1 direction 0 0 -1 intensity 1 beamWidth {beam} '
                f'cutOffAngle {cutoff} }}')
    assert reading(tmp_path, spot(0.5, 0.8)) == pytest.approx(1000.0)   # on the axis: full
    # the sensor 1 m off the axis sees the spot at 45 degrees: factor (a - cut) / (beam - cut),
    # times cos 45 (no attenuation by default: 1 0 0)
    aside = ('SpotLight { location 1 0 1 direction 0 0 -1 intensity 1 beamWidth 0.5 '
             'cutOffAngle 1.0 }')
    alpha = math.pi / 4
    factor = (alpha - 1.0) / (0.5 - 1.0)
    assert reading(tmp_path, aside) == pytest.approx(1000.0 * math.cos(alpha) * factor, rel=1e-9)


def test_occlusion_hides_the_direct_part_of_a_light_behind_an_obstacle(tmp_path):
    box = 'Solid { translation 0 0 1 boundingObject Box { size 1 1 0.1 } }'
    assert reading(tmp_path, POINT, obstacle=box) == pytest.approx(250.0)   # transparent
    assert reading(tmp_path, POINT, fields='occlusion TRUE', obstacle=box) == 0.0


def test_the_lookup_table_maps_and_clamps_and_resolution_rounds(tmp_path):
    table = 'lookupTable [ 0 0 0, 0.1 50 0, 0.2 100 0 ]'
    assert reading(tmp_path, POINT, fields=table) == pytest.approx(100.0)   # 0.25 beyond: clamp
    light = 'PointLight { location 0 0 4 intensity 1 attenuation 0 0 1 }'   # 1/16 W/m^2
    assert reading(tmp_path, light, fields=table) == pytest.approx(31.25)
    assert reading(tmp_path, light, fields=table + ' resolution 10') == pytest.approx(30.0)
