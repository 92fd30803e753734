"""An entity's links as PyBullet gets them: their order (:func:`link_order`), the helper
links of collision sensors (:func:`sensor_links`), the cut of a large entity into parts of at
most :data:`MAX_LINKS` links and :data:`MAX_DOFS` degrees of freedom (:class:`_Layout`), and
each link's mass and principal inertia (:func:`principal_inertia`)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from scene_sim_ros.errors import SimulationError
from scene_sim_ros.scene import Collision, Entity, Joint, Link, Pose
from scene_sim_ros.scene.sensors import CollisionSensor
from scene_sim_ros.scene.transforms import quat_from_matrix, vec3

MIN_MASS = 1e-3
POINT_MASS_RADIUS = 0.01
MIN_PRINCIPAL_INERTIA = 1e-9
# PyBullet's createMultiBody silently keeps at most 127 links, and (measured, pybullet 3.2.7)
# getLinkState reports link 0 wrong once a body's joints have more than 123 degrees of freedom
# (124 revolute joints after stepping, 42 ball joints at once); loadURDF builds more links but
# then answers no state query at all. Larger entities are cut into parts
# (:class:`~scene_sim_ros.sim.engines.pybullet.built_entity.Part`).
MAX_LINKS = 127
MAX_DOFS = 120
DOFS = {'revolute': 1, 'prismatic': 1, 'ball': 3, 'fixed': 0}


@dataclass
class _SensorLink:
    """A helper link carrying the collision shapes ``collisions`` that ``sensors`` name."""

    parent: str
    collisions: tuple[Collision, ...]
    sensors: list[str]


def sensor_links(entity: Entity, warnings: list[str]) -> list[_SensorLink]:
    """Helper links for the collision sensors of ``entity`` that name shapes of their link."""
    links = {link.name: link for link in entity.links}
    helpers: dict[tuple[str, frozenset[str]], _SensorLink] = {}
    taken: dict[str, set[str]] = {}
    for sensor in entity.sensors:
        if not isinstance(sensor, CollisionSensor) or not sensor.shapes or \
                sensor.link not in links:
            continue
        wanted = frozenset(sensor.shapes)
        key = (sensor.link, wanted)
        if key in helpers:
            helpers[key].sensors.append(sensor.name)
            continue
        named = tuple(c for c in links[sensor.link].collisions if c.name in wanted)
        missing = wanted - {c.name for c in named}
        used = taken.setdefault(sensor.link, set())
        if missing or not named or used & wanted:
            reason = (f'names unknown shapes {sorted(missing)}' if missing or not named
                      else 'shares shapes with another collision sensor')
            warnings.append(f'entity {entity.name!r}: collision sensor {sensor.name!r} {reason}; '
                            f'it reports contacts of all shapes of link {sensor.link!r}')
            continue
        used |= wanted
        helpers[key] = _SensorLink(sensor.link, named, [sensor.name])
    return list(helpers.values())


def link_order(entity: Entity) -> tuple[list[Link], dict[str, Joint]]:
    """Links reachable from the root in depth-first pre-order (children in joint order) and the
    joint above each child. PyBullet's importer numbers links depth-first, so this order makes
    our indices PyBullet's."""
    children: dict[str, list[Joint]] = {}
    for joint in entity.joints:
        children.setdefault(joint.parent, []).append(joint)
    names = {link.name: link for link in entity.links}
    order, parent_joint = [], {}
    stack = [entity.root.name]
    while stack:
        name = stack.pop()
        order.append(names[name])
        below = children.get(name, [])
        for joint in below:
            if joint.child in parent_joint or joint.child == entity.root.name:
                raise SimulationError(f'entity {entity.name!r}: link {joint.child!r} has more '
                                      f'than one parent (joint {joint.name!r})')
            if joint.child not in names:
                raise SimulationError(f'entity {entity.name!r}: joint {joint.name!r} names an '
                                      f'unknown link {joint.child!r}')
            parent_joint[joint.child] = joint
        stack.extend(joint.child for joint in reversed(below))
    return order, parent_joint


class _Layout:
    """How a large entity's links are cut into pieces of at most :data:`MAX_LINKS` PyBullet
    links (model links and their sensor helpers) and :data:`MAX_DOFS` joint degrees of freedom:
    depth-first, a link joins its parent's piece while that has room, else starts a new piece
    (its joint is then that piece's ``cut``).

    ``index``: model link -> the entity's link index (piece 0: PyBullet's; piece k: offset_k +
    its PyBullet index); ``helper_index``: helper k -> its link index."""

    def __init__(self, order: list[Link], parent_joint: dict[str, Joint],
                 helpers: list[_SensorLink]):
        self.order, self.parent_joint, self.helpers = order, parent_joint, helpers
        helpers_of: dict[str, list[int]] = {}
        for k, helper in enumerate(helpers):
            helpers_of.setdefault(helper.parent, []).append(k)
        root = order[0].name
        self.pieces: list[list[Link]] = [[]]
        self.cuts: list[Joint | None] = [None]
        sizes = [len(helpers_of.get(root, []))]
        dofs = [0]
        piece_of = {root: 0}
        for link in order[1:]:
            weight = 1 + len(helpers_of.get(link.name, []))
            joint = parent_joint[link.name]
            k = piece_of[joint.parent]
            if sizes[k] + weight > MAX_LINKS or dofs[k] + DOFS[joint.type] > MAX_DOFS:
                k = len(self.pieces)
                self.pieces.append([])
                self.cuts.append(joint)
                sizes.append(0)
                dofs.append(0)
            self.pieces[k].append(link)
            sizes[k] += weight
            dofs[k] += DOFS[joint.type]
            piece_of[link.name] = k
        self.piece_helpers = [[h for link in ([order[0]] if k == 0 else []) + links
                               for h in helpers_of.get(link.name, [])]
                              for k, links in enumerate(self.pieces)]
        self.index: dict[str, int] = {root: -1}
        self.helper_index = [0] * len(helpers)
        self.offsets: list[int] = []
        offset = 0
        for k, links in enumerate(self.pieces):
            self.offsets.append(offset)
            for i, link in enumerate(links):
                self.index[link.name] = offset + i
            for i, h in enumerate(self.piece_helpers[k]):
                self.helper_index[h] = offset + len(links) + i
            offset += len(links) + len(self.piece_helpers[k])


def principal_inertia(link: Link, movable: bool) -> tuple[float, Pose, tuple[float, float, float]]:
    """Mass, inertial frame (in the link frame) and principal moments PyBullet receives."""
    inertial = link.inertial
    mass = inertial.mass
    xx, xy, xz, yy, yz, zz = inertial.inertia
    if movable and mass <= 0.0:
        mass = MIN_MASS
    if max(abs(xx), abs(yy), abs(zz)) <= 0.0:
        moment = 0.4 * mass * POINT_MASS_RADIUS ** 2
        return mass, Pose(inertial.com), (moment, moment, moment)
    if abs(xy) + abs(xz) + abs(yz) <= 1e-12 * (abs(xx) + abs(yy) + abs(zz)):
        moments, orientation = (xx, yy, zz), (0.0, 0.0, 0.0, 1.0)
    else:
        values, vectors = np.linalg.eigh(np.array([[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]]))
        if np.linalg.det(vectors) < 0.0:
            vectors[:, 2] = -vectors[:, 2]
        moments = vec3(values.tolist())
        orientation = quat_from_matrix(vectors.tolist())
    moments = vec3([max(m, MIN_PRINCIPAL_INERTIA) for m in moments])
    return mass, Pose(inertial.com, orientation), moments

