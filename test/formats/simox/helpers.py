"""Test-only kinematics written out independently of the loader (model semantics only)."""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np

from scene_sim_ros.scene.model import Entity
from scene_sim_ros.scene.transforms import Pose, matrix_from_quat


def rot_x(angle: float) -> np.ndarray:
    c, s = math.cos(angle), math.sin(angle)
    return np.array([[1, 0, 0, 0], [0, c, -s, 0], [0, s, c, 0], [0, 0, 0, 1.0]])


def rot_y(angle: float) -> np.ndarray:
    c, s = math.cos(angle), math.sin(angle)
    return np.array([[c, 0, s, 0], [0, 1, 0, 0], [-s, 0, c, 0], [0, 0, 0, 1.0]])


def rot_z(angle: float) -> np.ndarray:
    c, s = math.cos(angle), math.sin(angle)
    return np.array([[c, -s, 0, 0], [s, c, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1.0]])


def trans(x: float, y: float, z: float) -> np.ndarray:
    m = np.eye(4)
    m[:3, 3] = (x, y, z)
    return m


def axis_rotation(axis, angle: float) -> np.ndarray:
    x, y, z = np.asarray(axis, float) / np.linalg.norm(axis)
    c, s, t = math.cos(angle), math.sin(angle), 1 - math.cos(angle)
    m = np.eye(4)
    m[:3, :3] = [[t * x * x + c, t * x * y - s * z, t * x * z + s * y],
                 [t * x * y + s * z, t * y * y + c, t * y * z - s * x],
                 [t * x * z - s * y, t * y * z + s * x, t * z * z + c]]
    return m


def pose_matrix(pose: Pose) -> np.ndarray:
    m = np.eye(4)
    m[:3, :3] = np.array(matrix_from_quat(pose.orientation))
    m[:3, 3] = pose.position
    return m


def link_matrix(entity: Entity, link: str, q: dict[str, float] | None = None) -> np.ndarray:
    """Link frame in the entity frame by URDF rules: parent * origin * motion(axis, q)."""
    q = q or {}
    by_child = {j.child: j for j in entity.joints}
    chain = []
    while link in by_child:
        joint = by_child[link]
        chain.append(joint)
        link = joint.parent
    m = np.eye(4)
    for joint in reversed(chain):
        value = q.get(joint.name, 0.0)
        m = m @ pose_matrix(joint.origin)
        if joint.type == 'revolute':
            m = m @ axis_rotation(joint.axis, value)
        elif joint.type == 'prismatic':
            m = m @ trans(*(np.asarray(joint.axis) * value))
    return m


ROOT_TAG = re.compile(rb'<\s*([A-Za-z_][\w.-]*)')


def root_tag(path: Path) -> str:
    """The root element's name of an XML file, read leniently (Simox files are not always XML)."""
    head = re.sub(rb'<\?.*?\?>|<!--.*?-->', b'', path.read_bytes(), flags=re.S)
    match = ROOT_TAG.search(head)
    return match.group(1).decode() if match else ''


def simox_files(folder: Path, root: str) -> list[Path]:
    """The ``.xml`` files under ``folder`` whose root element is ``root`` (case-insensitive)."""
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.rglob('*.xml') if root_tag(p).lower() == root)
