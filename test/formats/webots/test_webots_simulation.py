"""Webots scenes in the simulator: twins written in .wbt and SimRobot .ros2 behave alike,
and the device sample worlds of the corpus and the Webots world that ships run without NaN."""

from __future__ import annotations

import math

import numpy as np
import pytest

from scene_sim_ros.formats import load_scene
from scene_sim_ros.sim.simulator import Simulator
from support.corpus import CORPUS
from support.examples import shipped, shipped_ids

ANGLE = 0.3
LENGTH = 0.8

PENDULUM_WBT = f"""#VRML_SIM R2023b utf8
WorldInfo {{ basicTimeStep 5 }}
Robot {{
  name "pendulum"
  children [ HingeJoint {{
    jointParameters HingeJointParameters {{ axis 0 1 0 anchor 0 0 1 position {ANGLE} }}
    endPoint Solid {{
      translation {-LENGTH * math.sin(ANGLE)} 0 {1 - LENGTH * math.cos(ANGLE)}
      rotation 0 1 0 {ANGLE}
      name "bob"
      boundingObject Sphere {{ radius 0.02 }}
      physics Physics {{ density -1 mass 1 }}
    }}
  }} ]
}}
"""

PENDULUM_ROS2 = f"""<Simulation>
<Scene name="twin" stepLength="0.005">
  <Compound name="pendulum">
    <Hinge name="hinge">
      <Translation z="1"/>
      <Axis y="1"><Deflection min="-180degree" max="180degree" init="{math.degrees(ANGLE)}degree"/></Axis>
      <Body name="bob">
        <Translation z="-{LENGTH}"/>
        <SphereMass value="1kg" radius="0.02"/>
        <SphereGeometry radius="0.02"/>
      </Body>
    </Hinge>
  </Compound>
</Scene>
</Simulation>
"""


def period(sim: Simulator, entity: str, joint: str) -> float:
    crossings, last = [], sim.joint_states(entity)[joint][0]
    while sim.time < 6.0:
        sim.step()
        angle = sim.joint_states(entity)[joint][0]
        if last > 0.0 >= angle:
            crossings.append(sim.time - sim.step_length * angle / (angle - last))
        last = angle
    assert len(crossings) >= 3
    return float(np.mean(np.diff(crossings)))


def test_webots_pendulum_swings_like_its_simrobot_twin(make_sim, write_file):
    webots = load_scene(write_file('pendulum.wbt', PENDULUM_WBT))
    simrobot = load_scene(write_file('pendulum.ros2', PENDULUM_ROS2))
    webots_joint = webots.entity('pendulum').movable_joints[0]
    assert webots_joint.initial_position == pytest.approx(ANGLE)
    webots_period = period(make_sim(webots), 'pendulum', webots_joint.name)
    twin_period = period(make_sim(simrobot), 'pendulum', 'hinge')
    assert webots_period == pytest.approx(twin_period, rel=0.01)
    # and both are a physical pendulum of that length (large-angle correction ~0.6 %)
    assert webots_period == pytest.approx(2 * math.pi * math.sqrt(LENGTH / 9.81), rel=0.02)


WHEEL_WBT = """#VRML_SIM R2023b utf8
WorldInfo { basicTimeStep 5 gravity 0 }
Robot {
  name "wheel"
  children [ HingeJoint {
    jointParameters HingeJointParameters { axis 0 1 0 anchor 0 0 0.5 }
    device [ RotationalMotor { name "spin" maxVelocity 2 maxTorque 10 controlPID 10 0 0 } ]
    endPoint Solid {
      translation 0 0 0.5
      name "tyre"
      boundingObject Pose { rotation 1 0 0 1.5707963267948966
                            children [ Cylinder { radius 0.1 height 0.05 } ] }
      physics Physics { density -1 mass 0.5 }
    }
  } ]
}
"""

WHEEL_ROS2 = f"""<Simulation>
<Scene name="twin" stepLength="0.005" gravity="0">
  <Compound name="wheel">
    <Hinge name="spin">
      <Translation z="0.5"/>
      <Axis y="1"><ServoMotor maxVelocity="{math.degrees(2)}degree/s" maxForce="10" p="200"/></Axis>
      <Body name="tyre">
        <Rotation x="90degree"/>
        <CylinderMass value="0.5kg" radius="0.1" height="0.05"/>
        <CylinderGeometry radius="0.1" height="0.05"/>
      </Body>
    </Hinge>
  </Compound>
</Scene>
</Simulation>
"""


def spin_speed(make_sim, scene, joint: str) -> tuple[float, float]:
    sim = make_sim(scene)
    sim.command('wheel', joint, position=5.0)
    sim.step(round(1.0 / sim.step_length))
    position, velocity, _ = sim.joint_states('wheel')[joint]
    return position, velocity


def test_webots_wheel_turns_like_its_simrobot_twin(make_sim, write_file):
    # the Webots P of 10 becomes 1 / step = 200 (see the loader docstring): the twin says so
    webots = spin_speed(make_sim, load_scene(write_file('wheel.wbt', WHEEL_WBT)), 'spin')
    twin = spin_speed(make_sim, load_scene(write_file('wheel.ros2', WHEEL_ROS2)), 'spin')
    assert webots[1] == pytest.approx(2.0, rel=0.02)  # at its speed limit, far from 5 rad
    assert webots[1] == pytest.approx(twin[1], rel=0.01)
    assert webots[0] == pytest.approx(twin[0], abs=0.02)


SAMPLES = CORPUS / 'webots/webots/projects/samples/devices/worlds'
# the corpus's device sample worlds where the corpus is present, and always the world that ships
DEVICE_WORLDS = [p for p in shipped('webots') if p.suffix == '.wbt'] + [
    p for p in (SAMPLES / name for name in ('camera.wbt', 'range_finder.wbt', 'accelerometer.wbt',
                                            'inertial_unit.wbt')) if p.is_file()]


@pytest.mark.parametrize('path', DEVICE_WORLDS, ids=shipped_ids(DEVICE_WORLDS, SAMPLES))
def test_device_sample_world_simulates_five_seconds_without_nan(make_sim, path):
    scene = load_scene(path)
    sim = make_sim(scene)
    sim.step(round(5.0 / scene.step_length))
    assert sim.time == pytest.approx(5.0, abs=scene.step_length)
    robot = next(e for e in scene.entities if e.kind == 'robot')
    position, orientation = sim.get_pose(robot.name)
    assert np.all(np.isfinite(position)) and np.all(np.isfinite(orientation))
    assert position[2] > -0.05  # it stands on the stand-in floor instead of falling
    for joint, state in sim.joint_states(robot.name).items():
        assert np.all(np.isfinite(state)), joint
    for sensor in robot.sensors:
        reading = sim.read(robot.name, sensor.name)
        values = reading.values() if isinstance(reading, dict) else [reading]
        for value in values:
            if isinstance(value, (float, np.ndarray)) and sensor.kind != 'depth_camera':
                assert not np.any(np.isnan(value)), sensor.name


def test_accelerometer_world_keeps_mybot_on_the_slope(make_sim):
    """In Webots "the robot turns on a slope" (the world's info), its held wheel motors keeping
    it there. It rolled off while the arena's stand-in floor had no material: '' fought Webots'
    'default' in the friction fit and the wheels got 0.03 against the board."""
    path = SAMPLES / 'accelerometer.wbt'
    if not path.is_file():
        pytest.skip(f'the corpus has no {path}')
    scene = load_scene(path)
    sim = make_sim(scene)
    sim.step(round(2.0 / scene.step_length))
    position, _ = sim.get_pose('MyBot')
    # the slope (a 0.8 m board tilted 0.4 rad, centre 0.15 m up) is above 0.05 m within 0.3 m
    assert position[2] > 0.05 and abs(position[1]) < 0.3, position
    # and it stays: with Core3's pyramidal cone MuJoCo's soft friction let it creep 0.2 m down
    # in the next 18 s (off the board at 30 s); PyBullet moves 0.1 mm, MuJoCo now 7 mm
    sim.step(round(18.0 / scene.step_length))
    later, _ = sim.get_pose('MyBot')
    assert np.linalg.norm(np.subtract(later, position)) < 0.015, (position, later)
