"""Spawning, deleting and resetting the entities of a :class:`Simulation`, and replacing its
scene (a supervisor's LoadWorld)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

import numpy as np
import pybullet as pb

from scene_sim_ros.errors import SimulationError
from scene_sim_ros.scene import Entity, Pose, Scene
from scene_sim_ros.sim.engines.pybullet.built_entity import BuiltEntity, place_parts
from scene_sim_ros.sim.engines.pybullet.entity_lookup import EntityLookup
from scene_sim_ros.sim.simulator import ResetScope


class WorldEdits(EntityLookup):
    """Spawn, delete and reset (a mixin of :class:`Simulation`)."""

    if TYPE_CHECKING:  # defined by Simulation (building) and StateQueries
        def _load(self, entities: Iterable[Entity]) -> None: ...

        def _add(self, entity: Entity) -> BuiltEntity: ...

        def _place_root(self, built: BuiltEntity, pose: Pose) -> None: ...

        def set_velocity(self, name: str, linear: Sequence[float],
                         angular: Sequence[float]) -> None: ...

    # -- spawn, delete, reset ----------------------------------------------------------------
    def add_entity(self, entity: Entity) -> None:
        """Spawn ``entity`` (its name must be new) at its pose; :meth:`reset` with scope
        'spawned' or 'all' removes it again."""
        if entity.name in self._entities:
            raise SimulationError(f'an entity named {entity.name!r} exists already')
        self._add(entity)
        self._spawned[entity.name] = entity
        self._world_moved()

    def remove_entity(self, name: str) -> None:
        """Delete an entity; a loaded one comes back on reset with scope 'spawned' or 'all'."""
        built = self._built(name)
        self._bounce.remove(built)
        for part in built.parts:
            if part.constraint is not None:
                pb.removeConstraint(part.constraint, physicsClientId=self.client)
        for body in built.bodies:
            del self._by_body[body]
        if name in self._spawned and built.park_key is not None:  # loaded ones may be wired
            self._pool.park(built.park_key, built.body, built.fixed)
        else:
            for body in built.bodies:
                pb.removeBody(body, physicsClientId=self.client)
        del self._entities[name]
        self._motor_world = None
        self._guard.reports.pop(name, None)  # a new entity of this name gets its own report
        self._pushes = [p for p in self._pushes if p.body not in built.bodies]
        for key in [k for k in self._readers if k[0] == name]:
            del self._readers[key]
        if name in self._spawned:
            del self._spawned[name]
        else:
            self._removed.add(name)
        self._world_moved()

    def reset_entity(self, name: str) -> None:
        """Put one entity back to its initial pose, velocity and joint positions (motors too)."""
        built = self._built(name)
        entity = built.entity
        client = self.client
        built.kinematic_pose = entity.pose if entity.kinematic else None
        built.kinematic_velocity = (entity.linear_velocity, entity.angular_velocity)
        self._place_root(built, entity.pose)
        self.set_velocity(name, entity.linear_velocity, entity.angular_velocity)
        for joint, index in zip(built.movable_joints, built.joint_indices):
            pb.resetJointState(*built.locate(index), joint.initial_position, 0.0,
                               physicsClientId=client)
        if built.parts:
            place_parts(client, built)
        built.motors.reset()
        self._pushes = [p for p in self._pushes if p.body not in built.bodies]
        self._world_moved()

    def reset(self, scope: ResetScope = 'all') -> None:
        """Reset the simulation.

        - ``'all'``: exactly the state after loading: loaded entities only (spawned ones gone,
          deleted ones back), initial poses, velocities, joints, motor states, time 0, ``rng``
          reseeded. The world is rebuilt, so the state is bit-identical to a fresh load.
        - ``'state'``: the current entities (spawned ones included, deleted ones stay deleted)
          rebuilt in their initial state; time 0, ``rng`` reseeded.
        - ``'spawned'``: only removes spawned entities and restores deleted loaded ones (in
          their initial state); everything else, time included, is untouched.
        """
        if scope == 'spawned':
            for name in list(self._spawned):
                self.remove_entity(name)
            for entity in self.scene.entities:
                if entity.name in self._removed:
                    self._add(entity)
            self._removed.clear()
            self._world_moved()
            return
        if scope == 'all':
            entities = list(self.scene.entities)
            self._spawned.clear()
            self._removed.clear()
        elif scope == 'state':
            entities = [self._entities[name].entity for name in self._entities]
        else:
            raise SimulationError(f"reset scope must be 'state', 'spawned' or 'all', not {scope!r}")
        pb.resetSimulation(physicsClientId=self.client)
        self._shapes.clear()
        self._pool.clear()
        self._entities.clear()
        self._motor_world = None
        self._by_body.clear()
        self._readers.clear()
        self._pushes.clear()
        self._steps = 0
        self._guard.reset()
        self.rng = np.random.default_rng(self.seed)
        self._world_moved()
        self._load(entities)

    def replace_scene(self, scene: Scene) -> None:
        """Throw the world away and build ``scene`` in its place, on the same PyBullet client:
        the state afterwards is that of a new ``Simulation(scene)`` with this one's seed and
        settings (time 0, ``rng`` reseeded); :meth:`reset` ``'all'`` then returns to it."""
        self.scene = scene
        self.step_length = float(scene.step_length)
        self.reset('all')
