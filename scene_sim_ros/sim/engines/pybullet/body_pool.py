"""Deleted entities' PyBullet bodies kept aside for the next spawn of the same entity.

PyBullet (3.2.7) frees a multibody on ``removeBody`` but keeps what it allocated to build it
until ``resetSimulation``: a compound collision shape per link (``m_collisionShapes``), the
base, link and joint names (``m_strings``) and a record per body (``m_saveWorldBodyData``);
measured, about 0.9 KB per body plus 0.8 KB per link with shared shapes, so a robot spawned and
deleted 1,000 times grows the process by megabytes. Collision shapes cannot be freed either:
``removeCollisionShape`` refuses a shape once a body used it (its use count never goes down).

So a deleted spawned entity's body is *parked* instead of removed: moved far away, its links
put in collision group 0 with mask 0 (no pairs, no ray hits) and put to sleep with wake-up
disabled (not simulated). Spawning an equal entity again (same content up to its name, pose
and velocities, see :func:`pool_key`) revives that body: awake, default collision filters,
zero velocities and joint positions, then the builder applies every setting of a fresh build.
At most :data:`MAX_PARKED` bodies wait (:data:`MAX_PARKED_PER_KEY` per entity); beyond that the
oldest is removed. ``resetSimulation`` (reset 'all'/'state') empties the pool.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Hashable

import pybullet as pb

from scene_sim_ros.scene import Entity, Pose

MAX_PARKED = 64
MAX_PARKED_PER_KEY = 4
PARK_POSITION = (0.0, 0.0, -1.0e5)  # beyond any camera's far plane
NO_COLLISION = (0, 0)
# PyBullet's defaults for a new multibody's colliders (URDF2Bullet): a fixed base is static
DYNAMIC_FILTER = (1, -1)  # btBroadphaseProxy::DefaultFilter, AllFilter
STATIC_FILTER = (2, -1 ^ 2)  # StaticFilter, AllFilter ^ StaticFilter
_PARK = pb.ACTIVATION_STATE_SLEEP | pb.ACTIVATION_STATE_ENABLE_SLEEPING | \
    pb.ACTIVATION_STATE_DISABLE_WAKEUP
_ZERO = (0.0, 0.0, 0.0)


def pool_key(entity: Entity) -> Hashable | None:
    """Entities with equal keys build equal PyBullet bodies (name, pose and initial velocities
    aside), so one's parked body can stand in for the other's; None for an entity that cannot
    be hashed (it is never parked)."""
    key = dataclasses.replace(entity, name='', pose=Pose(), linear_velocity=_ZERO,
                              angular_velocity=_ZERO)
    try:
        hash(key)
    except TypeError:
        return None
    return key


@dataclasses.dataclass
class _Parked:
    body: int
    fixed_base: bool
    serial: int  # parking order


class BodyPool:
    """Parked bodies of one PyBullet client, by :func:`pool_key`, oldest first."""

    def __init__(self, client: int):
        self.client = client
        self._parked: dict[Hashable, list[_Parked]] = {}
        self._serial = 0

    def __len__(self) -> int:
        return sum(len(bodies) for bodies in self._parked.values())

    def bodies(self) -> list[int]:
        """The parked bodies (oldest first)."""
        parked = sorted((p for bodies in self._parked.values() for p in bodies),
                        key=lambda p: p.serial)
        return [p.body for p in parked]

    def clear(self) -> None:
        """Forget every parked body (after ``resetSimulation`` removed them)."""
        self._parked.clear()

    def park(self, key: Hashable, body: int, fixed_base: bool) -> None:
        """Take ``body`` out of the world's physics, for :meth:`take` with the same ``key``;
        a body whose state is not finite (exploded) is removed instead."""
        if not _finite_state(self.client, body):
            pb.removeBody(body, physicsClientId=self.client)
            return
        if len(self._parked.get(key, ())) >= MAX_PARKED_PER_KEY:
            self._remove(key)
        elif len(self) >= MAX_PARKED:
            self._remove(min(self._parked, key=lambda k: self._parked[k][0].serial))
        client = self.client
        for link in range(-1, pb.getNumJoints(body, physicsClientId=client)):
            pb.setCollisionFilterGroupMask(body, link, *NO_COLLISION, physicsClientId=client)
        pb.resetBasePositionAndOrientation(body, PARK_POSITION, (0.0, 0.0, 0.0, 1.0),
                                           physicsClientId=client)
        pb.resetBaseVelocity(body, _ZERO, _ZERO, physicsClientId=client)
        pb.changeDynamics(body, -1, activationState=_PARK, physicsClientId=client)
        self._serial += 1
        self._parked.setdefault(key, []).append(_Parked(body, fixed_base, self._serial))

    def take(self, key: Hashable | None, pose: Pose) -> int:
        """A parked body of ``key`` revived with its base's inertial frame at ``pose``, or -1."""
        bodies = None if key is None else self._parked.get(key)
        if not bodies:
            return -1
        parked = bodies.pop()
        if not bodies:
            del self._parked[key]
        self._revive(parked, pose)
        return parked.body

    def _revive(self, parked: _Parked, pose: Pose) -> None:
        client, body = self.client, parked.body
        # as a new body: awake, can wake up, never sleeps (wake-up first: PyBullet changes
        # "can sleep" only on a body that can wake up)
        pb.changeDynamics(body, -1, activationState=pb.ACTIVATION_STATE_ENABLE_WAKEUP
                          | pb.ACTIVATION_STATE_WAKE_UP, physicsClientId=client)
        pb.changeDynamics(body, -1, activationState=pb.ACTIVATION_STATE_DISABLE_SLEEPING,
                          physicsClientId=client)
        pb.setCollisionFilterGroupMask(body, -1, *(STATIC_FILTER if parked.fixed_base
                                                   else DYNAMIC_FILTER), physicsClientId=client)
        for joint in range(pb.getNumJoints(body, physicsClientId=client)):
            pb.setCollisionFilterGroupMask(body, joint, *DYNAMIC_FILTER, physicsClientId=client)
            joint_type = pb.getJointInfo(body, joint, physicsClientId=client)[2]
            if joint_type == pb.JOINT_SPHERICAL:
                pb.resetJointStateMultiDof(body, joint, [0.0, 0.0, 0.0, 1.0], [0.0, 0.0, 0.0],
                                           physicsClientId=client)
            elif joint_type != pb.JOINT_FIXED:
                pb.resetJointState(body, joint, 0.0, 0.0, physicsClientId=client)
        pb.resetBasePositionAndOrientation(body, pose.position, pose.orientation,
                                           physicsClientId=client)
        pb.resetBaseVelocity(body, _ZERO, _ZERO, physicsClientId=client)

    def _remove(self, key: Hashable) -> None:
        """Remove the oldest parked body of ``key`` from the world."""
        bodies = self._parked[key]
        pb.removeBody(bodies.pop(0).body, physicsClientId=self.client)
        if not bodies:
            del self._parked[key]


def _finite_state(client: int, body: int) -> bool:
    base = pb.getBasePositionAndOrientation(body, physicsClientId=client)
    values = [*base[0], *base[1], *(v for vs in pb.getBaseVelocity(body, physicsClientId=client)
                                    for v in vs)]
    joints = pb.getNumJoints(body, physicsClientId=client)
    if joints:
        for state in pb.getJointStates(body, range(joints), physicsClientId=client):
            values += [state[0], state[1]]
    return all(math.isfinite(v) for v in values)
