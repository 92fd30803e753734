"""Webots' Propeller in PyBullet: thrust T = t1 |w| w - t2 |w| V along the shaft axis at the
centre of thrust, torque Q = q1 |w| w - q2 |w| V about it (Webots' reference, "Propeller"), on
the body that carries it, with w the velocity of its RotationalMotor.

A quadcopter of four propellers (two spinning each way, their torques cancelling) whose motors
get the hover velocity w = sqrt(m g / (4 t1)) holds its altitude; a quarter more lifts it off
with the acceleration the law predicts."""

from __future__ import annotations

import math

import pytest

from scene_sim_ros.formats import load_scene

T1, Q1 = 1.0e-5, 2.0e-7      # thrust and torque constants (N s^2, N m s^2)
BODY_MASS = 1.0              # kg
ARM = 0.15                   # m, from the centre to each rotor
HELIX_MASS = 1e-3            # kg each (formats/webots/mapping.HELIX_MASS)

ROTOR = """
    Propeller {{
      shaftAxis 0 0 1
      centerOfThrust {x} {y} 0.03
      thrustConstants {t1} 0
      torqueConstants {q1} 0
      device RotationalMotor {{ name "m{n}" maxVelocity 2000 maxTorque 10 }}
      slowHelix Solid {{ translation {x} {y} 0.03
        children [ Shape {{ geometry Cylinder {{ height 0.005 radius 0.06 }} }} ] }}
    }}"""

QUAD_PROTO = """#VRML_SIM R2023b utf8
PROTO Quad [
  field SFVec3f translation 0 0 1
  field SFString name "quad"
  field SFFloat mass 1
]
{{
  Robot {{
    translation IS translation
    name IS name
    children [
      Shape {{ geometry Box {{ size 0.3 0.3 0.05 }} }}
{rotors}
    ]
    boundingObject Box {{ size 0.3 0.3 0.05 }}
    physics Physics {{ density -1 mass IS mass }}
  }}
}}
"""

WORLD = """#VRML_SIM R2023b utf8
EXTERNPROTO "Quad.proto"
WorldInfo { basicTimeStep 4 }
Quad { mass %s }
"""


def quadcopter(tmp_path):
    """The quadcopter from a PROTO (Quad.proto beside the world), as webots_ros2's are."""
    # rotors 1 and 3 spin positive, 2 and 4 negative: their thrust constants carry the sign
    # (as the Mavic's PROTO does) so that all four lift, and their torques cancel
    rotors = ''.join(ROTOR.format(n=n, x=x, y=y, t1=T1 * sign, q1=Q1)
                     for n, (x, y, sign) in enumerate(
                         [(ARM, ARM, 1), (-ARM, ARM, -1), (-ARM, -ARM, 1), (ARM, -ARM, -1)], 1))
    (tmp_path / 'Quad.proto').write_text(QUAD_PROTO.format(rotors=rotors))
    path = tmp_path / 'quad.wbt'
    path.write_text(WORLD % BODY_MASS)
    return load_scene(path)


def test_the_propellers_become_helix_joints_with_their_laws(tmp_path):
    quad = quadcopter(tmp_path).entity('quad')
    assert [p.joint for p in quad.propellers] == ['m1', 'm2', 'm3', 'm4']
    assert quad.propellers[1].thrust == (-T1, 0.0) and quad.propellers[1].torque == (Q1, 0.0)
    assert quad.propellers[0].center == pytest.approx((ARM, ARM, 0.03))
    assert {j.name: j.type for j in quad.joints} == {f'm{n}': 'revolute' for n in range(1, 5)}
    assert quad.mass == pytest.approx(BODY_MASS + 4 * HELIX_MASS)


def _spin(sim, omega):
    for n, sign in zip(range(1, 5), (1, -1, 1, -1)):
        sim.command('quad', f'm{n}', velocity=sign * omega)


def test_a_quadcopter_at_hover_velocity_holds_its_altitude_for_3_s(make_sim, tmp_path):
    scene = quadcopter(tmp_path)
    hover = math.sqrt((BODY_MASS + 4 * HELIX_MASS) * 9.81 / (4 * T1))
    with make_sim(scene) as sim:
        _spin(sim, hover)
        sim.step(int(0.2 / sim.step_length))   # the motors reach their velocity ...
        sim.set_velocity('quad', (0, 0, 0), (0, 0, 0))   # ... and the fall of their first step
        start, _ = sim.get_pose('quad')
        heights = []
        for _ in range(30):
            sim.step(int(0.1 / sim.step_length))
            heights.append(sim.get_pose('quad')[0][2])
        _, angular = sim.get_velocity('quad')
    assert max(abs(h - start[2]) for h in heights) < 0.05, heights   # issue 43: within 5 cm
    assert abs(angular[2]) < 0.05   # the four torques cancel: no yaw


def test_more_velocity_lifts_it_with_the_acceleration_of_the_law(make_sim, tmp_path):
    """At 1.25 x hover velocity the thrust is 1.5625 x the weight: a = 0.5625 g upwards."""
    scene = quadcopter(tmp_path)
    mass = BODY_MASS + 4 * HELIX_MASS
    hover = math.sqrt(mass * 9.81 / (4 * T1))
    with make_sim(scene) as sim:
        _spin(sim, 1.25 * hover)
        sim.step(int(0.2 / sim.step_length))
        z0 = sim.get_pose('quad')[0][2]
        v0 = sim.get_velocity('quad')[0][2]
        duration = 0.5
        sim.step(int(duration / sim.step_length))
        rise = sim.get_pose('quad')[0][2] - z0
    expected = v0 * duration + 0.5 * 0.5625 * 9.81 * duration ** 2
    assert rise == pytest.approx(expected, rel=0.05)
