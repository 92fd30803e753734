"""What a simulator offers: the :class:`Simulator` Protocol, and the value types it speaks.

Everything above the engines (the ROS node, the sensor readers, the renderer, batch runs and the
supervisor) uses a simulation through this Protocol only; :mod:`.engines` builds one (PyBullet
today, ``sim/engines/pybullet/``). Names: an entity is addressed by its name, a link by
``"entity/link"``. Poses are the *model's* link frames (never an engine's inertial frames),
velocities are world-frame, linear velocity of the link frame's origin. A simulation is
deterministic: the same scene, seed and calls give the same numbers, and ``reset('all')``
leaves the state bit-identical to a fresh load.

**Engine handles.** Ray casts, contacts, segmentation masks and the GL renderer's slots name
engine bodies by :data:`LinkHandle` ``(body, link)`` pairs of integers; they mean nothing
outside the engine that gave them and are turned into names with :meth:`Simulator.handle_name`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol

import numpy as np

if TYPE_CHECKING:
    from scene_sim_ros.scene import Entity, Joint, Pose, Scene

Vector = tuple[float, float, float]
Quaternion = tuple[float, float, float, float]
LinkHandle = tuple[int, int]
"""An engine's (body, link) pair; link -1 is a body's base."""
JointSample = tuple[np.ndarray, np.ndarray, np.ndarray]
"""(positions, velocities, applied efforts) of an entity's movable joints, in scene order."""
ResetScope = Literal['all', 'state', 'spawned']
"""What :meth:`Simulator.reset` restores: everything (time too), the state of the entities
(time goes on), or only removes the spawned entities."""


@dataclass(frozen=True, slots=True)
class ContactPoint:
    """One contact of an entity: ``position`` on this entity's ``link`` (world frame),
    ``normal`` pointing from the other body towards this entity, ``normal_force`` in N,
    ``distance`` negative when penetrating."""

    link: str
    other_entity: str
    other_link: str
    position: Vector
    normal: Vector
    normal_force: float
    distance: float


class SensorReader(Protocol):
    """A sensor's reader (:mod:`scene_sim_ros.sim.sensors`)."""

    def read(self) -> Any: ...

    def after_step(self) -> None: ...

    def reset(self) -> None: ...


class BuiltModel(Protocol):
    """An entity as an engine built it, as the GL renderer reads it: which engine link holds
    each model link and where the model link frame is in that engine frame."""

    @property
    def entity(self) -> Entity: ...

    @property
    def fixed(self) -> bool: ...

    @property
    def movable_joints(self) -> tuple[Joint, ...]: ...

    @property
    def link_index(self) -> dict[str, int]: ...

    @property
    def inertial_inverse(self) -> dict[int, Pose]: ...

    def locate(self, index: int) -> LinkHandle: ...


class RenderState(Protocol):
    """The simulation's renderer policy and frame cache
    (:class:`scene_sim_ros.sim.sensors.rendering.Rendering`)."""

    @property
    def policy(self) -> str: ...

    def backend(self) -> str: ...

    def invalidate(self) -> None: ...


class Simulator(Protocol):
    """A running world built from a :class:`~scene_sim_ros.scene.Scene`."""

    scene: Scene
    step_length: float
    """Seconds of one :meth:`step`."""
    seed: int
    rng: np.random.Generator
    """Seeded by ``seed``: every sensor's noise comes from it."""
    warnings: list[str]
    """What the engine could not build as the scene says, and explosions; each once."""
    release_gil: bool
    """Whether a step lets other Python threads run (the caller then promises that no other
    thread uses the simulation meanwhile)."""
    on_gil_release: Callable[[float], None] | None
    """Called on the stepping thread right before a GIL-free step, with how long such a step
    took lately (s)."""
    gil_free_seconds: float

    @property
    def rendering(self) -> RenderState:
        """The renderer policy and the frame cache of the cameras."""

    # -- time and lifecycle ---------------------------------------------------------------
    @property
    def time(self) -> float:
        """Simulated seconds since loading (or the last reset of scope 'all')."""

    @property
    def steps(self) -> int:
        """Steps taken since loading (or the last reset)."""

    def step(self, n: int = 1) -> None:
        """Advance ``n`` steps: motors, forces, kinematic bodies, physics, sensors."""

    def close(self) -> None:
        """Free the engine; the simulation is unusable afterwards."""

    # -- entities and links ----------------------------------------------------------------
    def entity_names(self) -> list[str]:
        """The entities now in the world (loaded first, then spawned)."""

    def link_index(self, entity: str, link: str) -> int:
        """The index of model link ``link`` of ``entity`` (SimulationError if unknown)."""

    def link_world_pose(self, entity: str, link: str) -> Pose: ...

    def link_poses(self, entity: str) -> dict[str, Pose]:
        """World poses of all links of ``entity`` (for TF)."""

    def get_pose(self, name: str) -> tuple[Vector, Quaternion]:
        """World pose of an entity's root (``"entity"``) or of a link (``"entity/link"``)."""

    def set_pose(self, name: str, xyz: Sequence[float], quat_xyzw: Sequence[float]) -> None:
        """Teleport an entity so that its root link frame is at ``xyz``/``quat_xyzw``."""

    def link_world_velocity(self, entity: str, link: str) -> tuple[Vector, Vector]: ...

    def link_world_state(self, entity: str, link: str) -> tuple[Pose, Vector, Vector]:
        """(pose, linear velocity, angular velocity) of a link, from one engine query."""

    def get_velocity(self, name: str) -> tuple[Vector, Vector]: ...

    def set_velocity(self, name: str, linear: Sequence[float], angular: Sequence[float]) -> None: ...

    def center_of_mass(self, entity: str) -> Vector: ...

    def contacts(self, entity: str) -> list[ContactPoint]:
        """Contact points of ``entity`` after the last step."""

    # -- joints and forces -----------------------------------------------------------------
    def joint_states(self, entity: str) -> dict[str, tuple[float, float, float]]:
        """``{joint: (position, velocity, effort)}`` of the movable joints, in scene order."""

    def joint_state_arrays(self, entity: str) -> JointSample:
        """:meth:`joint_states` as three arrays in scene order."""

    def command(self, entity: str, joint: str, position: float | None = None,
                velocity: float | None = None, effort: float | None = None) -> None:
        """Command one joint (:mod:`scene_sim_ros.sim.motors`); raises CommandError."""

    def set_joint_position(self, entity: str, joint: str, position: float) -> None: ...

    def apply_force(self, entity: str, link: str | None, force: Sequence[float],
                    torque: Sequence[float] = (0.0, 0.0, 0.0), duration: float = 0.0) -> None:
        """Force (at the link's centre of mass) and torque, world frame, for ``duration``."""

    # -- sensors ---------------------------------------------------------------------------
    def read(self, entity: str, sensor: str) -> Any:
        """Current reading of a sensor (numpy array, float or dict)."""

    def reader(self, entity: str, sensor: str) -> Any:
        """The reader of a sensor (created on first use)."""

    def sensor_readers(self) -> list[Any]: ...

    # -- edits -----------------------------------------------------------------------------
    def add_entity(self, entity: Entity) -> None: ...

    def remove_entity(self, name: str) -> None: ...

    def reset_entity(self, name: str) -> None: ...

    def reset(self, scope: ResetScope = 'all') -> None: ...

    def replace_scene(self, scene: Scene) -> None:
        """Unload everything and build ``scene`` instead (time goes on)."""

    # -- engine queries of the sensors and the renderer (engine handles) ---------------------
    def link_handles(self, entity: str, link: str) -> tuple[LinkHandle, ...]:
        """The engine links of model link ``link``: its own and its helper links'."""

    def sensor_handle(self, entity: str, sensor: str) -> LinkHandle:
        """The engine link holding the shapes ``sensor`` names (else the sensor's link)."""

    def handle_name(self, handle: LinkHandle) -> str:
        """``"entity/link"`` of an engine link (``"None/None"`` if unknown)."""

    def entity_of_body(self, body: int) -> str | None: ...

    def cast_rays(self, origins: np.ndarray, ends: np.ndarray,
                  exclude: Sequence[LinkHandle] = ()) -> np.ndarray:
        """(N, 3) rows of engine body, engine link, hit fraction of the first hit along each
        segment ``origins[i] -> ends[i]`` on a link not in ``exclude`` (body -1: no hit); an
        engine that cannot exclude links itself looks past them with
        :func:`scene_sim_ros.sim.ray_casts.first_hits_past`."""

    def touching(self, handle: LinkHandle, max_distance: float) -> set[LinkHandle]:
        """The engine links in contact with ``handle`` (closer than ``max_distance``)."""

    def built_entities(self) -> Sequence[BuiltModel]:
        """The entities as built, for renderers."""

    def handle_frames(self, handles: Sequence[LinkHandle]) -> tuple[np.ndarray, np.ndarray]:
        """(N, 3) positions and (N, 4) xyzw orientations of the engine frames of ``handles``
        (each :class:`BuiltModel` says where the model link frame is in its engine frame)."""

    def draw_software(self, width: int, height: int, view: list[float], projection: list[float],
                      need_mask: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """The engine's own software rendering of a view: (HxWx4 uint8 RGBA, HxW float32 depth
        buffer in [0, 1], HxW int32 mask of ``body + ((link + 1) << 24)`` or None)."""
