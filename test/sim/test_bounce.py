"""Restitution as ODE/Webots applies it (sim/engines/pybullet/bounce.py): a ball dropped on a ContactProperties
``bounce`` e surface rebounds to e^2 of its drop height, whatever the step length and wherever
in a step it meets the floor; ``bounceVelocity`` is the speed below which nothing bounces; two
free bodies share the impulse (momentum kept, relative speed times e)."""

from __future__ import annotations

import numpy as np
import pytest

from scene_sim_ros.formats import load_scene
from scene_sim_ros.sim.simulator import Simulator

pytestmark = pytest.mark.engines('pybullet',
                                reason='wires/bounce: MuJoCo engine lacks them (in progress)')

RADIUS = 0.05


@pytest.fixture
def write_file(tmp_path):
    def write(name: str, text: str):
        path = tmp_path / name
        path.write_text(text)
        return path
    return write


def ball_world(make_sim, write_file, height: float, step_ms: float, contact: str
               ) -> Simulator:
    path = write_file('bounce.wbt', f"""#VRML_SIM R2023b utf8
WorldInfo {{ basicTimeStep {step_ms}
  contactProperties [ ContactProperties {{ material1 "ball" material2 "floor" {contact} }} ] }}
Solid {{ name "floor" contactMaterial "floor" boundingObject Plane {{ size 10 10 }} }}
Solid {{ translation 0.3 0.2 {height + RADIUS} name "ball" contactMaterial "ball"
  boundingObject Sphere {{ radius {RADIUS} }} physics Physics {{ density -1 mass 0.1 }} }}
""")
    return make_sim(load_scene(path))


def heights(sim: Simulator, seconds: float) -> np.ndarray:
    out = []
    while sim.time < seconds:
        sim.step()
        out.append(sim.get_pose('ball')[0][2] - RADIUS)
    return np.array(out)


def first_rebound(z: np.ndarray) -> float:
    """The highest point between the first and the second landing."""
    landing = next(k for k in range(1, len(z) - 1) if z[k] <= z[k - 1] and z[k] < z[k + 1])
    rising = z[landing:]
    top = int(np.argmax(np.diff(rising) < 0))  # the first step down after the landing
    return float(rising[top])


@pytest.mark.parametrize('step_ms', [1, 8, 32])
@pytest.mark.parametrize('height', [0.5, 1.0])
def test_ball_rebounds_to_bounce_squared_of_its_drop_height(make_sim, write_file, height, step_ms):
    with ball_world(make_sim, write_file, height, step_ms, 'bounce 0.5') as sim:
        rebound = first_rebound(heights(sim, 1.5 + 0.6 * height))
    assert rebound / height == pytest.approx(0.25, rel=0.03)


def test_stronger_bounce_and_a_second_rebound(make_sim, write_file):
    with ball_world(make_sim, write_file, 1.0, 4, 'bounce 0.8') as sim:
        z = heights(sim, 3.0)
    first = first_rebound(z)
    assert first == pytest.approx(0.64, rel=0.03)
    after = z[int(np.argmax(z == first)):]
    assert first_rebound(after) == pytest.approx(0.64 * 0.64, rel=0.03)


def test_no_bounce_below_bounce_velocity_or_with_bounce_zero(make_sim, write_file):
    # dropped from 1 m the ball lands at 4.4 m/s: below a bounceVelocity of 5 m/s
    for contact in ('bounce 0.5 bounceVelocity 5', 'bounce 0'):
        with ball_world(make_sim, write_file, 1.0, 4, contact) as sim:
            z = heights(sim, 1.0)
        assert z[-1] == pytest.approx(0.0, abs=2e-3), contact
        landed = int(np.argmax(z < 0.01))
        assert z[landed:].max() < 0.01, contact


def test_ball_comes_to_rest_on_the_floor(make_sim, write_file):
    with ball_world(make_sim, write_file, 0.3, 8, 'bounce 0.5') as sim:
        z = heights(sim, 4.0)
        speed = np.linalg.norm(sim.get_velocity('ball')[0])
    assert abs(z[-1]) < 2e-3 and speed < 0.05


def test_two_free_balls_keep_momentum_and_part_at_bounce_times_their_speed(make_sim, write_file):
    path = write_file('balls.wbt', """#VRML_SIM R2023b utf8
WorldInfo { basicTimeStep 4 gravity 0
  contactProperties [ ContactProperties { material1 "ball" material2 "ball" bounce 0.8 } ] }
Solid { translation -0.5 0 1 name "light" contactMaterial "ball"
  boundingObject Sphere { radius 0.05 } physics Physics { density -1 mass 0.1 } }
Solid { translation 0.5 0 1 name "heavy" contactMaterial "ball"
  boundingObject Sphere { radius 0.05 } physics Physics { density -1 mass 0.3 } }
""")
    with make_sim(load_scene(path)) as sim:
        sim.set_velocity('light', (2.0, 0.0, 0.0), (0.0, 0.0, 0.0))
        sim.set_velocity('heavy', (-1.0, 0.0, 0.0), (0.0, 0.0, 0.0))
        sim.step(150)
        light = sim.get_velocity('light')[0][0]
        heavy = sim.get_velocity('heavy')[0][0]
    assert 0.1 * light + 0.3 * heavy == pytest.approx(0.1 * 2.0 - 0.3 * 1.0, abs=1e-3)
    assert heavy - light == pytest.approx(0.8 * 3.0, rel=0.02)


def test_without_contact_properties_webots_bounces_by_its_defaults(make_sim, write_file):
    # Webots: no matching ContactProperties -> bounce 0.5, bounceVelocity 0.01
    path = write_file('default.wbt', f"""#VRML_SIM R2023b utf8
WorldInfo {{ basicTimeStep 4 }}
Solid {{ name "floor" boundingObject Plane {{ size 10 10 }} }}
Solid {{ translation 0 0 {1.0 + RADIUS} name "ball"
  boundingObject Sphere {{ radius {RADIUS} }} physics Physics {{ density -1 mass 0.1 }} }}
""")
    scene = load_scene(path)
    assert (scene.contact_defaults.restitution,
            scene.contact_defaults.restitution_threshold) == (0.5, 0.01)
    with make_sim(scene) as sim:
        assert first_rebound(heights(sim, 2.0)) == pytest.approx(0.25, rel=0.03)
