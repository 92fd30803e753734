"""Rolling friction from the body's own inertia (sim/materials.py rolling_factor): a rolling
body decelerates at the scene's value whatever its mass distribution."""

from __future__ import annotations

import pytest

from scene_sim_ros.scene import Collision, Entity, Inertial, Link, MaterialPair, Plane, Pose, Scene, Sphere
from scene_sim_ros.scene.inertia import sphere_inertia


def rolling_scene(mass_radius: float) -> Scene:
    # B-Human's ball: 45 g, collision radius 50 mm, SphereMass radius 5 mm (so I / (m r^2) is
    # 0.004, not a solid ball's 0.4); RollingFriction 0.3 against the carpet
    ball = Entity('ball', 'object', (Link('ball', Inertial(0.045, (0.0, 0.0, 0.0),
                                                           sphere_inertia(0.045, mass_radius)),
                                          collisions=(Collision(Sphere(0.05), material='ball'),)),),
                  pose=Pose((0.0, 0.0, 0.05)), linear_velocity=(2.0, 0.0, 0.0),
                  angular_velocity=(0.0, 2.0 / 0.05, 0.0))
    ground = Entity('ground', 'static', (Link('ground', collisions=(
        Collision(Plane(), material='carpet'),)),), fixed_base=True)
    return Scene('roll', (ground, ball), step_length=0.01, gravity=(0.0, 0.0, -9.81),
                 material_pairs=(MaterialPair('ball', 'carpet', friction=0.3,
                                              rolling_friction=0.3),))


@pytest.mark.parametrize('mass_radius', [0.005, 0.05])
def test_ball_deceleration_matches_the_scene_value(make_sim, mass_radius):
    with make_sim(rolling_scene(mass_radius)) as sim:
        sim.step(20)
        v0 = sim.get_velocity('ball')[0][0]
        sim.step(200)
        v1 = sim.get_velocity('ball')[0][0]
    assert v1 > 0.5  # still rolling
    # closed form: a = mu_r g / ((1 + I / (m r^2)) r) with mu_r fitted from that inertia: 0.3
    assert (v0 - v1) / 2.0 == pytest.approx(0.3, rel=0.03)
