"""Small scenes built directly from the model, for simulator tests."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from scene_sim_ros.scene import (
    Box,
    Collision,
    Cylinder,
    Entity,
    Inertial,
    Joint,
    Link,
    MaterialPair,
    Plane,
    Pose,
    Scene,
    ServoMotor,
    Sphere,
    VelocityMotor,
    Visual,
)
from scene_sim_ros.scene.inertia import box_inertia, cylinder_inertia, sphere_inertia
from scene_sim_ros.scene.transforms import quat_from_rpy
from support.corpus import CORPUS, missing
from support.engines import engine, make_sim, pytest_generate_tests  # noqa: F401 (fixtures, hook)

GAME = CORPUS / 'simrobot' / 'BHumanCodeRelease' / 'Config' / 'Scenes' / 'Game.ros2'


@pytest.fixture(scope='session')
def corpus_dir() -> Path:
    """The corpus (``$SCENE_SIM_ROS_CORPUS``, default ``../shared/corpus``); skips where absent."""
    if not CORPUS.is_dir():
        pytest.skip(missing(CORPUS))
    return CORPUS


def ground(material: str | None = None) -> Entity:
    """A static infinite plane at z = 0."""
    return Entity('ground', 'static', (Link('ground', collisions=(
        Collision(Plane(), material=material),)),), fixed_base=True)


def ball(name: str = 'ball', radius: float = 0.05, mass: float = 0.1,
         position=(0.0, 0.0, 1.0), material: str | None = None) -> Entity:
    link = Link(name, Inertial(mass, (0.0, 0.0, 0.0), sphere_inertia(mass, radius)),
                collisions=(Collision(Sphere(radius), material=material),),
                visuals=(Visual(Sphere(radius), color=(1.0, 0.5, 0.0, 1.0)),))
    return Entity(name, 'object', (link,), pose=Pose(position))


def crate(name: str = 'crate', size=(0.2, 0.2, 0.2), mass: float = 1.0, position=(0, 0, 0.1),
          material: str | None = None) -> Entity:
    link = Link(name, Inertial(mass, (0.0, 0.0, 0.0), box_inertia(mass, size)),
                collisions=(Collision(Box(size), material=material),),
                visuals=(Visual(Box(size)),))
    return Entity(name, 'object', (link,), pose=Pose(tuple(float(v) for v in position)))


def pendulum(length: float = 1.0, bob_mass: float = 1.0, start_angle: float = 0.1,
             motor=None) -> Entity:
    """A point-like bob on a massless rod, hinged about y to a fixed support at z = 2."""
    support = Link('support', collisions=(Collision(Box((0.05, 0.05, 0.05))),))
    tiny = 1e-6  # a (nearly) point mass: the analytic period 2*pi*sqrt(L/g) holds
    bob = Link('bob', Inertial(bob_mass, (0.0, 0.0, -length), (tiny, 0, 0, tiny, 0, tiny)),
               visuals=(Visual(Sphere(0.02), Pose((0.0, 0.0, -length))),))
    hinge = Joint('hinge', 'revolute', 'support', 'bob', axis=(0.0, 1.0, 0.0),
                  initial_position=start_angle, motor=motor)
    return Entity('pendulum', 'robot', (support, bob), (hinge,), pose=Pose((0.0, 0.0, 2.0)),
                  fixed_base=True)


def arm(motor, limits=(-2.0, 2.0), inertia_rpy=(0.3, 0.2, 0.1)) -> Entity:
    """A fixed-base single-joint arm about z (no gravity torque), rod along x."""
    base = Link('base', collisions=(Collision(Cylinder(0.05, 0.1)),))
    mass, size = 0.5, (0.4, 0.04, 0.04)
    inertia = box_inertia(mass, size)
    rod = Link('rod', Inertial(mass, (0.2, 0.0, 0.0), inertia),
               collisions=(Collision(Box(size), Pose((0.2, 0.0, 0.0))),),
               visuals=(Visual(Box(size), Pose((0.2, 0.0, 0.0))),))
    joint = Joint('shoulder', 'revolute', 'base', 'rod', Pose((0.0, 0.0, 0.1)),
                  (0.0, 0.0, 1.0), limits, motor=motor)
    return Entity('arm', 'robot', (base, rod), (joint,), pose=Pose((0.0, 0.0, 0.5)),
                  fixed_base=True)


def wheel(max_velocity: float = 10.0, max_force: float = 5.0) -> Entity:
    """A fixed axle with a wheel on a velocity motor (axis y)."""
    axle = Link('axle', collisions=(Collision(Box((0.02, 0.02, 0.02))),))
    mass, radius, width = 0.3, 0.1, 0.03
    i = cylinder_inertia(mass, radius, width)
    wheel_link = Link('wheel', Inertial(mass, (0, 0, 0), i),
                      collisions=(Collision(Cylinder(radius, width),
                                            Pose((0, 0, 0), quat_from_rpy(math.pi / 2, 0, 0))),))
    joint = Joint('spin', 'revolute', 'axle', 'wheel', Pose((0.0, 0.05, 0.0)), (0.0, 1.0, 0.0),
                  motor=VelocityMotor(max_velocity, max_force))
    return Entity('wheel', 'robot', (axle, wheel_link), (joint,), pose=Pose((0, 0, 1.0)),
                  fixed_base=True)


def scene_of(*entities: Entity, step_length: float = 0.001, **kwargs) -> Scene:
    return Scene('test', tuple(entities), step_length=step_length, **kwargs)


def servo(max_velocity: float = 1.0, max_force: float = 50.0, p: float = 100.0) -> ServoMotor:
    return ServoMotor(max_velocity=max_velocity, max_force=max_force, p=p)


def busy_scene() -> Scene:
    """A servo arm, a crate, a falling ball and a pendulum on the ground: motors, contacts and
    free bodies in one world, for bit-for-bit comparisons of two simulations."""
    return scene_of(ground(), arm(servo(max_velocity=2.0)), crate(position=(1.0, 0.0, 0.3)),
                    ball(position=(1.0, 0.02, 0.8)), pendulum(start_angle=0.4), step_length=0.005)


def drive(sim) -> None:
    """Command :func:`busy_scene`'s arm, push its crate, 200 steps in all."""
    sim.command('arm', 'shoulder', position=1.0)
    sim.step(100)
    sim.apply_force('crate', None, (5.0, 0.0, 0.0), duration=0.1)
    sim.step(100)


def world_state(sim) -> list:
    """Time, and every entity's pose, velocity, joint states and link poses."""
    out = [sim.time]
    for name in sim.entity_names():
        out.append(sim.get_pose(name))
        out.append(sim.get_velocity(name))
        out.append(sorted(sim.joint_states(name).items()))
        out.append(sorted(sim.link_poses(name).items(), key=lambda kv: kv[0]))
    return out


__all__ = ['GAME', 'MaterialPair', 'arm', 'ball', 'busy_scene', 'crate', 'drive', 'ground',
           'pendulum', 'scene_of', 'servo', 'wheel', 'world_state']
