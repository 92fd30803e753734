"""Named poses (``get_named_poses``, ``get_named_pose_bounds``) as plain Python: where each
entity of the loaded world starts (``<entity>_start``), a Webots world's ``Viewpoint``
(``viewpoint``), and those of a YAML file named by the ``named_poses`` parameter::

    dock:                              # the pose's name
      position: [1.0, 2.0, 0.0]        # m, world frame
      yaw: 1.57                        # rad; or orientation: [x, y, z, w]
      description: by the charging station
      tags: [spawn, parking]
      bounds: [[-0.5, -0.5, 0.0], [0.5, 0.5, 1.0]]   # optional box corners around the pose

A pose in the file replaces a start pose of the same name. A malformed file is an error naming
the file and the pose.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scene_sim_ros.ros.supervisor.logic import rest_box
from scene_sim_ros.scene import Entity, Pose, Scene
from scene_sim_ros.scene.bounds import AABB
from scene_sim_ros.scene.transforms import quat_from_axis_angle, quat_normalized


@dataclass(frozen=True, slots=True)
class NamedPoseValues:
    name: str
    pose: Pose
    description: str = ''
    tags: tuple[str, ...] = ()
    box: AABB | None = None   # around the pose, in its frame; None: unbounded


class NamedPoseError(ValueError):
    pass


def scene_poses(scene: Scene, world: str) -> list[NamedPoseValues]:
    """The named poses a scene file defines: the start poses of its entities and, for a Webots
    world, its Viewpoint (where Webots' 3D view starts, unbounded)."""
    poses = start_poses(scene.entities, world)
    viewpoint = scene.metadata.get('viewpoint')
    if isinstance(viewpoint, Pose):
        poses.append(NamedPoseValues('viewpoint', viewpoint, f"{world}'s Viewpoint (where "
                                     "Webots' 3D view starts)", ('viewpoint', 'camera')))
    return poses


def start_poses(entities: Iterable[Entity], world: str) -> list[NamedPoseValues]:
    """Where each robot and free object of the world starts, bounded by its own box."""
    poses = []
    for entity in entities:
        if entity.kind == 'static':
            continue
        box = rest_box(entity)
        poses.append(NamedPoseValues(
            f'{entity.name}_start', entity.pose, f'where {entity.name} starts in {world}',
            ('start', entity.kind, entity.name), box))
    return poses


def poses_file(path: str | Path) -> list[NamedPoseValues]:
    """The named poses of a YAML file (see the module's text); NamedPoseError if malformed."""
    import yaml
    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text(encoding='utf-8'))
    except OSError as err:
        raise NamedPoseError(f'{path}: {err.strerror or err}') from None
    except yaml.YAMLError as err:
        raise NamedPoseError(f'{path}: not YAML: {err}') from None
    if data is None:
        return []
    if not isinstance(data, Mapping):
        raise NamedPoseError(f'{path}: expected a mapping of pose names to poses')
    return [_pose(path, str(name), fields) for name, fields in data.items()]


def _pose(path: Path, name: str, fields: Any) -> NamedPoseValues:
    def fail(what: str) -> NamedPoseError:
        return NamedPoseError(f'{path}: pose {name!r}: {what}')
    if not isinstance(fields, Mapping):
        raise fail('expected a mapping (position, yaw or orientation, description, tags, '
                   'bounds)')
    x, y, z = _numbers(fields.get('position', [0, 0, 0]), 3, fail, 'position')
    if 'orientation' in fields:
        quaternion = _numbers(fields['orientation'], 4, fail, 'orientation')
        if math.sqrt(sum(v * v for v in quaternion)) < 1e-9:
            raise fail('orientation is a zero quaternion')
        orientation = quat_normalized(quaternion)
    else:
        yaw = _numbers([fields.get('yaw', 0.0)], 1, fail, 'yaw')[0]
        orientation = quat_from_axis_angle((0.0, 0.0, 1.0), yaw)
    tags = fields.get('tags', [])
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        raise fail('tags must be a list of strings')
    box: AABB | None = None
    if 'bounds' in fields:
        corners = fields['bounds']
        if not isinstance(corners, list) or len(corners) != 2:
            raise fail('bounds must be two corners [[x, y, z], [x, y, z]]')
        a, b = (_numbers(c, 3, fail, 'bounds') for c in corners)
        box = ((min(a[0], b[0]), min(a[1], b[1]), min(a[2], b[2])),
               (max(a[0], b[0]), max(a[1], b[1]), max(a[2], b[2])))
    return NamedPoseValues(name, Pose((x, y, z), orientation),
                           str(fields.get('description', '')), tuple(tags), box)


def _numbers(value: Any, count: int, fail: Any, what: str) -> list[float]:
    if not isinstance(value, list | tuple) or len(value) != count:
        raise fail(f'{what} needs {count} number{"s" if count > 1 else ""}')
    try:
        numbers = [float(v) for v in value]
    except (TypeError, ValueError):
        raise fail(f'{what} needs numbers, got {value!r}') from None
    if not all(math.isfinite(v) for v in numbers):
        raise fail(f'{what} has non-finite values')
    return numbers


def merged(*groups: Iterable[NamedPoseValues]) -> list[NamedPoseValues]:
    """The poses of all ``groups``, a later one replacing an earlier one of the same name."""
    by_name: dict[str, NamedPoseValues] = {}
    for group in groups:
        for pose in group:
            by_name[pose.name] = pose
    return list(by_name.values())
