"""What the MuJoCo builder makes of an entity: :class:`MjEntity`, its bodies and joints in
MuJoCo's numbering and in model terms.

A MuJoCo body's frame is the model link's frame (the inertial frame is separate), so the frames
the renderer and the sensors get need no conversion. Engine handles are ``(entity number, link
index)``: link -1 is the root, 0.. the other links in :func:`~scene_sim_ros.sim.link_layout.link_order`;
a collision sensor naming shapes gets an index after the links (its geoms only).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from scene_sim_ros.scene import Entity, Joint, Pose
from scene_sim_ros.scene.transforms import Vec3
from scene_sim_ros.sim.motors import MotorBank


@dataclass
class MjEntity:
    """An entity in the MuJoCo world (addresses are refreshed after every recompile)."""

    entity: Entity
    number: int  # the engine handle's "body": unique per entity in one simulation
    link_index: dict[str, int]  # model link -> index (-1: root)
    link_names: dict[int, str]
    body_names: list[str]  # MuJoCo body name per index + 1 (root first)
    movable_joints: tuple[Joint, ...]  # scene order
    motors: MotorBank
    fixed: bool
    kinematic: bool
    sensor_geoms: dict[str, list[str]] = field(default_factory=dict)  # sensor -> geom names
    kinematic_pose: Pose | None = None
    kinematic_velocity: tuple[Vec3, Vec3] = ((0.0, 0.0, 0.0), (0.0, 0.0, 0.0))
    # -- addresses in the compiled model (see MujocoSimulation._index) ----------------------
    bodies: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    qpos: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    dofs: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    free_qpos: int = -1  # address of the root's free joint (-1: none)
    free_dof: int = -1
    mocap: int = -1  # the root's mocap index (a kinematic entity; -1: none)
    sensor_index: dict[str, int] = field(default_factory=dict)  # sensor -> handle link index
    inertial_inverse: dict[int, Pose] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.inertial_inverse = {i: Pose() for i in self.link_names}

    @property
    def name(self) -> str:
        return self.entity.name

    def locate(self, index: int) -> tuple[int, int]:
        return self.number, index

    def body_of(self, index: int) -> int:
        """The MuJoCo body id of link ``index`` (-1: the root)."""
        return int(self.bodies[index + 1])
