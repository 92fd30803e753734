"""World-level Webots nodes: ``WorldInfo`` (gravity, ``contactProperties`` -> material pairs),
the lights, and the turn of pre-R2022a Y-up worlds to Z-up."""

from __future__ import annotations

import math

from ...scene.model import Light, MaterialPair
from ...scene.transforms import Pose, Vec3, quat_from_axis_angle
from .context import Context
from .nodes import Node

Y_UP_TO_Z_UP = Pose(orientation=quat_from_axis_angle((1.0, 0.0, 0.0), math.pi / 2.0))
INFINITE_FRICTION = 1e4  # Webots writes -1 for infinite Coulomb friction


def contact_pairs(world_info: Node, context: Context) -> list[MaterialPair]:
    """ContactProperties as material pairs.

    Webots' ``rollingFriction`` is ODE's rolling torque coefficient (torque per normal force);
    the model's rolling friction is a deceleration in m/s^2 that depends on the rolling body's
    radius, which a contact pair does not know, so non-zero values are reported and left out.
    ``bounce`` and ``bounceVelocity`` are the restitution and its threshold speed (ODE's
    ``dContactBounce``; see :mod:`...sim.bounce`).
    """
    pairs = []
    for contact in world_info.nodes('contactProperties'):
        friction = contact.mf_numbers('coulombFriction') or [1.0]
        rolling = contact.floats('rollingFriction', 3, (0.0, 0.0, 0.0))
        if any(rolling):
            context.warn(contact, 'rollingFriction (an ODE torque coefficient) is not converted '
                                  'to a rolling deceleration; left out', 'rollingFriction')
        pairs.append(MaterialPair(contact.string('material1', 'default'),
                                  contact.string('material2', 'default'),
                                  INFINITE_FRICTION if friction[0] < 0 else friction[0],
                                  None, contact.float('bounce', 0.5),
                                  contact.float('bounceVelocity', 0.01)))
    return pairs


def light(node: Node, world: Pose) -> Light:
    r, g, b = node.color('color', (1.0, 1.0, 1.0))
    intensity = node.float('intensity', 1.0)
    ambient = node.float('ambientIntensity', 0.0)
    ambient_colour = (r * ambient, g * ambient, b * ambient, 1.0)
    diffuse_colour = (r * intensity, g * intensity, b * intensity, 1.0)
    if node.type == 'DirectionalLight':
        direction = world.rotate(node.vec3('direction', (0.0, 0.0, -1.0)))
        return Light('directional', direction=direction, ambient=ambient_colour,
                     diffuse=diffuse_colour)
    position = world.transform_point(node.vec3('location', (0.0, 0.0, 0.0)))
    attenuation = node.vec3('attenuation', (1.0, 0.0, 0.0))
    if node.type == 'SpotLight':
        direction = world.rotate(node.vec3('direction', (0.0, 0.0, -1.0)))
        return Light('spot', position, direction, cutoff=node.float('cutOffAngle', 0.7854),
                     ambient=ambient_colour, diffuse=diffuse_colour, attenuation=attenuation,
                     beam_width=node.float('beamWidth', 1.570796))
    return Light('point', position, ambient=ambient_colour, diffuse=diffuse_colour,
                 attenuation=attenuation)


def gravity(world_info: Node, y_up: bool) -> Vec3:
    value = world_info.value('gravity')
    if value is not None and len(value.items) == 3:  # before R2020: a vector
        vector = world_info.vec3('gravity', (0.0, -9.81, 0.0))
        return Y_UP_TO_Z_UP.rotate(vector) if y_up else vector
    magnitude = world_info.float('gravity', 9.81)
    return (0.0, 0.0, -magnitude)
