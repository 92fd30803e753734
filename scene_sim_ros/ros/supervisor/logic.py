"""The supervisor's decisions as plain Python (no rclpy): reference frames, kinematic state in
a frame, reset scopes, spawn names and resources, entity filters. The services translate
messages to these values and back.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import unquote, urlparse

import numpy as np

from scene_sim_ros.formats.fragments import load_entity_file, load_fragment
from scene_sim_ros.scene import Entity, Pose
from scene_sim_ros.scene.bounds import AABB, box_corners, box_sphere_overlap, boxes_overlap, convex_overlap
from scene_sim_ros.scene.transforms import cross, quat_normalized, vec3

if TYPE_CHECKING:
    from scene_sim_ros.sim.simulator import ResetScope

Vector = tuple[float, float, float]

WORLD_FRAMES = ('', 'world')
"""Reference frames meaning the world (the node's ``world_frame`` parameter is one too)."""

VALID_NAME = re.compile(r'[A-Za-z_][A-Za-z0-9_]*\Z')
"""Names of spawned entities: one ROS name token, so that topics and frames follow it."""

# reset scope bits of simulation_interfaces/srv/ResetSimulation
SCOPE_DEFAULT, SCOPE_TIME, SCOPE_STATE, SCOPE_SPAWNED, SCOPE_ALL = 0, 1, 2, 4, 255


@dataclass(frozen=True, slots=True)
class EntityInfoValues:
    """What set_entity_info gave an entity (replacing what it had)."""

    category: int
    description: str
    tags: tuple[str, ...]


class SupervisorError(Exception):
    """A request that cannot be served: ``code`` is the Result code to answer with."""

    def __init__(self, code: int, message: str):
        super().__init__(message)
        self.code = code


@dataclass(frozen=True, slots=True)
class State:
    """Kinematic state of a frame: pose, linear velocity of its origin, angular velocity."""

    pose: Pose
    linear: Vector
    angular: Vector


# --- frames and states ----------------------------------------------------------------------

def is_world(frame: str, world_frame: str) -> bool:
    return frame in WORLD_FRAMES or frame == world_frame


def relative_state(state: State, reference: State) -> State:
    """``state`` (world) as seen from the moving frame ``reference`` (world): pose in that
    frame, velocities relative to it, expressed in its axes."""
    inverse = reference.pose.inverse()
    offset = _sub(state.pose.position, reference.pose.position)
    linear = _sub(_sub(state.linear, reference.linear), cross(reference.angular, offset))
    return State(inverse * state.pose, inverse.rotate(linear),
                 inverse.rotate(_sub(state.angular, reference.angular)))


def world_state(state: State, reference: State) -> State:
    """Inverse of :func:`relative_state`: ``state`` given in ``reference``, in the world."""
    pose = reference.pose * state.pose
    offset = _sub(pose.position, reference.pose.position)
    linear = _add(_add(reference.linear, cross(reference.angular, offset)),
                  reference.pose.rotate(state.linear))
    return State(pose, linear, _add(reference.angular, reference.pose.rotate(state.angular)))


def checked_pose(position: Sequence[float], orientation: Sequence[float]) -> Pose:
    """A pose from message numbers; ValueError for non-finite values or a zero quaternion.
    Other quaternions are normalised (as Gazebo and PyBullet do)."""
    values = [float(v) for v in (*position, *orientation)]
    if not all(math.isfinite(v) for v in values):
        raise ValueError(f'pose has non-finite values: {values}')
    if math.sqrt(sum(v * v for v in values[3:])) < 1e-9:
        raise ValueError('pose has a zero quaternion')
    return Pose(vec3(values[:3]), quat_normalized(values[3:]))


def checked_vector(values: Sequence[float], what: str) -> Vector:
    vector = vec3(values)
    if not all(math.isfinite(v) for v in vector):
        raise ValueError(f'{what} has non-finite values: {list(vector)}')
    return vector


def _add(a: Sequence[float], b: Sequence[float]) -> Vector:
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2])


def _sub(a: Sequence[float], b: Sequence[float]) -> Vector:
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


# --- reset scopes ---------------------------------------------------------------------------

def reset_scope(bits: int) -> ResetScope:
    """The Simulation.reset scope for a ResetSimulation ``scope`` bit field.

    SCOPE_TIME is accepted only together with another scope and then changes nothing: sim time
    never goes back (see docs/supervisor.md). Raises ValueError for what we cannot do.
    """
    if bits in (SCOPE_DEFAULT, SCOPE_ALL):
        return 'all'
    unknown = bits & ~(SCOPE_TIME | SCOPE_STATE | SCOPE_SPAWNED)
    if unknown:
        raise ValueError(f'unknown reset scope bits {unknown:#x}')
    state, spawned = bool(bits & SCOPE_STATE), bool(bits & SCOPE_SPAWNED)
    if state and spawned:
        return 'all'
    if state:
        return 'state'
    if spawned:
        return 'spawned'
    raise ValueError('SCOPE_TIME alone is not supported: simulation time never goes back; '
                     'reset with SCOPE_STATE (time keeps increasing)')


# --- spawning -------------------------------------------------------------------------------

def unique_name(wanted: str, taken: set[str]) -> str:
    """``wanted`` if free, else ``wanted_2``, ``wanted_3``, ..."""
    if wanted not in taken:
        return wanted
    k = 2
    while f'{wanted}_{k}' in taken:
        k += 1
    return f'{wanted}_{k}'


def resource_path(uri: str) -> tuple[Path, str]:
    """``(path, entity)`` of a spawn URI: a path or ``file://`` URI, optionally ending in
    ``#name`` to take one entity out of a whole scene file. Raises ValueError for other
    schemes."""
    parsed = urlparse(uri)
    if parsed.scheme == 'file':
        path = unquote(parsed.netloc + parsed.path)
    elif parsed.scheme == '' or len(parsed.scheme) == 1:  # a path (or a Windows drive)
        path, _, _ = uri.partition('#')
    else:
        raise ValueError(f'unsupported URI scheme {parsed.scheme!r} (use a path or file://)')
    return Path(path).expanduser(), parsed.fragment


def load_spawn_entity(uri: str, text: str) -> Entity:
    """The entity a spawn request describes (its name and pose as the description has them):
    fragment ``text``, or the file of ``uri`` (``scene-file#entity`` for one entity of any scene
    format; see :mod:`scene_sim_ros.formats.fragments`). Raises SceneLoadError,
    FileNotFoundError or ValueError (unsupported format or scheme)."""
    if not uri:
        return load_fragment(text, source='<resource_string>')
    path, entity_name = resource_path(uri)
    return load_entity_file(path, entity_name)


def placed(entity: Entity, name: str, pose: Pose) -> Entity:
    """``entity`` renamed and put at ``pose``: the description's own placement (e.g. a body
    written 0.2 m above the ground) applies relative to the requested pose."""
    return replace(entity, name=name, pose=pose * entity.pose)


# --- filters and info -----------------------------------------------------------------------

def entity_tags(entity: Entity, spawned: bool) -> list[str]:
    """Tags of an entity: its kind, 'spawned' or 'loaded', 'fixed' for fixed-base ones."""
    tags = [entity.kind, 'spawned' if spawned else 'loaded']
    if entity.fixed_base:
        tags.append('fixed')
    return tags


def tags_match(tags: Sequence[str], wanted: Sequence[str], match_all: bool) -> bool:
    if not wanted:
        return True
    hits = [tag in tags for tag in wanted]
    return all(hits) if match_all else any(hits)


def name_filter(pattern: str) -> Callable[[str], bool]:
    """A predicate for a POSIX-ERE-like name filter (Python ``re.search``); ValueError when
    the expression does not compile."""
    if not pattern:
        return lambda name: True
    try:
        compiled = re.compile(pattern)
    except re.error as err:
        raise ValueError(f'bad name filter {pattern!r}: {err}') from None
    return lambda name: compiled.search(name) is not None


# bounds types of simulation_interfaces/msg/Bounds
BOUNDS_EMPTY, BOUNDS_BOX, BOUNDS_CONVEX_HULL, BOUNDS_SPHERE = 0, 1, 2, 3


def bounds_filter(kind: int, points: Sequence[Sequence[float]]
                  ) -> Callable[[AABB | None], bool] | None:
    """The overlap test of an EntityFilters ``bounds`` (world frame) for an entity's world box
    (None: unbounded, overlaps everything); None for empty bounds (no filter). ValueError for
    malformed bounds."""
    if kind == BOUNDS_EMPTY:
        return None
    if not all(math.isfinite(v) for p in points for v in p):
        raise ValueError('bounds points must be finite')
    if kind == BOUNDS_BOX:
        if len(points) != 2:
            raise ValueError(f'box bounds need 2 points (two corners), got {len(points)}')
        a, b = points
        region: AABB = ((min(a[0], b[0]), min(a[1], b[1]), min(a[2], b[2])),
                        (max(a[0], b[0]), max(a[1], b[1]), max(a[2], b[2])))
        return lambda box: box is None or boxes_overlap(box, region)
    if kind == BOUNDS_SPHERE:
        if len(points) != 2 or points[1][0] < 0:
            raise ValueError('sphere bounds need 2 points: the centre, then the radius in x')
        center, radius = points[0], points[1][0]
        return lambda box: box is None or box_sphere_overlap(box, center, radius)
    if kind == BOUNDS_CONVEX_HULL:
        if len(points) < 3:
            raise ValueError(f'convex hull bounds need at least 3 points, got {len(points)}')
        hull = np.array(points, float)
        return lambda box: box is None or convex_overlap(box_corners(box), hull)
    raise ValueError(f'unknown bounds type {kind}')


def bounds_points(box: AABB | None) -> tuple[int, list[tuple[float, float, float]]]:
    """(type, points) of a Bounds message for ``box`` (None: TYPE_EMPTY, unbounded)."""
    if box is None:
        return BOUNDS_EMPTY, []
    return BOUNDS_BOX, [box[1], box[0]]   # "upper right and lower left corners"


def mesh_file_vertices(path: Path) -> np.ndarray | None:
    """The vertices of a mesh file as the loaders read it (None: unreadable), for bounds."""
    from scene_sim_ros.formats.mesh_files import MeshFileError, read_mesh_file
    try:
        return read_mesh_file(path).vertices
    except MeshFileError:
        return None


def rest_box(entity: Entity) -> AABB | None:
    """The box of ``entity``'s collision shapes with its joints at 0, in its own frame."""
    from scene_sim_ros.scene import bounds
    return bounds.aabb(bounds.entity_points(entity, bounds.link_poses_at_zero(entity),
                                            mesh_file_vertices))
