"""What the builder makes of an entity: :class:`BuiltEntity` (its PyBullet bodies, and link
indices in model terms), the further multibodies (:class:`Part`) of one over PyBullet's
per-body limits, and :func:`place_parts`, which puts those parts where they hang."""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import pybullet as pb

from scene_sim_ros.scene import Entity, Joint, Pose
from scene_sim_ros.scene.transforms import Vec3
from scene_sim_ros.sim.motors import MotorBank


@dataclass
class BuiltEntity:
    """An entity in the PyBullet world and what is needed to talk about it in model terms."""

    entity: Entity
    body: int
    link_index: dict[str, int]  # model link name -> PyBullet link index (-1: root)
    link_names: dict[int, str]  # the inverse
    inertial: dict[int, Pose]  # PyBullet link index -> inertial frame in the link frame
    movable_joints: tuple[Joint, ...]  # scene order
    joint_indices: list[int]  # PyBullet joint index of each movable joint
    motors: MotorBank
    initial_pose: Pose
    fixed: bool
    kinematic_pose: Pose | None = None
    kinematic_velocity: tuple[Vec3, Vec3] = ((0.0, 0.0, 0.0), (0.0, 0.0, 0.0))  # (linear, angular)
    inertial_inverse: dict[int, Pose] = field(default_factory=dict)  # link frame in inertial
    sensor_links: dict[str, int] = field(default_factory=dict)  # sensor -> helper link index
    helper_parent: dict[int, int] = field(default_factory=dict)  # helper -> model link index
    parts: list[Part] = field(default_factory=list)  # further multibodies of a large entity
    park_key: Hashable | None = None  # its body may be parked for an equal entity (body_pool)

    def __post_init__(self) -> None:
        self.inertial_inverse = {i: pose.inverse() for i, pose in self.inertial.items()}

    @property
    def bodies(self) -> tuple[int, ...]:
        """The PyBullet bodies of the entity: :attr:`body` and those of its :attr:`parts`."""
        return (self.body, *(part.body for part in self.parts))

    def locate(self, index: int) -> tuple[int, int]:
        """(PyBullet body, its link index) of link ``index`` (indices of :attr:`link_index`)."""
        for part in self.parts:
            if part.offset <= index < part.offset + part.count:
                return part.body, index - part.offset
        return self.body, index

    @cached_property
    def link_groups(self) -> tuple[tuple[int, list[int], list[int]], ...]:
        """(body, its link indices, theirs in :attr:`link_index`) per body, the model's links
        (not the root) in index order: what one ``getLinkStates`` per body reads."""
        links = sorted(i for i in self.link_names if i >= 0)
        groups = []
        for body in self.bodies:
            mine = [i for i in links if self.locate(i)[0] == body]
            if mine:
                groups.append((body, [self.locate(i)[1] for i in mine], mine))
        return tuple(groups)

    def global_index(self, body: int, link: int) -> int:
        """The index (as in :attr:`link_index`) of PyBullet ``(body, link)``; a part's base
        stands for the model link it hangs on."""
        for part in self.parts:
            if part.body == body:
                return part.parent_link if link < 0 else part.offset + link
        return link

    def joint_groups(self) -> list[tuple[int, list[int], list[int]]]:
        """(body, its joint indices, positions in :attr:`joint_indices`) per body."""
        groups: dict[int, tuple[list[int], list[int]]] = {}
        for k, index in enumerate(self.joint_indices):
            body, local = self.locate(index)
            group = groups.setdefault(body, ([], []))
            group[0].append(local)
            group[1].append(k)
        return [(body, locals_, ks) for body, (locals_, ks) in groups.items()]

    @property
    def name(self) -> str:
        return self.entity.name

    def model_link_index(self, index: int) -> int:
        """The model link a PyBullet link index stands for (a helper's link; else itself)."""
        return self.helper_parent.get(index, index)

    def model_link_name(self, index: int) -> str | None:
        return self.link_names.get(self.helper_parent.get(index, index))

    def own_link_indices(self, index: int) -> tuple[int, ...]:
        """PyBullet link ``index`` and the indices of its helper links."""
        return (index, *(h for h, parent in self.helper_parent.items() if parent == index))


@dataclass
class Part:
    """One more multibody of an entity with more links than PyBullet takes in one
    (:data:`~scene_sim_ros.sim.link_layout.MAX_LINKS`): its base is a massless-ish proxy fixed
    (by a constraint) at the frame ``origin`` of model link ``parent_link`` where the cut joint
    sits; its links ``offset`` .. ``offset + count - 1`` of the entity's link indices are its
    PyBullet links 0 .. count - 1."""

    body: int
    offset: int
    count: int
    parent_link: int
    origin: Pose
    constraint: int | None = None


def place_parts(client: int, built: BuiltEntity) -> None:
    """Put each part's proxy base where its cut joint is on its parent link, moving with it
    (after the entity was placed, its joints set or its velocity changed)."""
    for part in built.parts:
        body, link = built.locate(part.parent_link)
        if link < 0:
            com, orientation = pb.getBasePositionAndOrientation(body, physicsClientId=client)
            linear, angular = pb.getBaseVelocity(body, physicsClientId=client)
        else:
            state = pb.getLinkState(body, link, computeLinkVelocity=1,
                                    computeForwardKinematics=1, physicsClientId=client)
            com, orientation, linear, angular = state[0], state[1], state[6], state[7]
        frame = Pose(com, orientation) * built.inertial_inverse[part.parent_link] * part.origin
        pb.resetBasePositionAndOrientation(part.body, frame.position, frame.orientation,
                                           physicsClientId=client)
        arm = np.subtract(frame.position, com)
        velocity = np.add(linear, np.cross(angular, arm))
        pb.resetBaseVelocity(part.body, velocity.tolist(), list(angular),
                             physicsClientId=client)
