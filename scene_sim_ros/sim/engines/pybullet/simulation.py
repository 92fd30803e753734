"""The PyBullet simulation of a scene: stepping, state access, commands, reset, spawn/delete.

``Simulation(scene)`` owns one PyBullet client (DIRECT unless ``gui=True``), so several
simulations coexist in one process. Names: an entity is addressed by its name, a link by
``"entity/link"``. Poses are the *model's* link frames (never PyBullet's inertial frames), as
``(xyz, quat_xyzw)`` tuples or :class:`~scene_sim_ros.scene.Pose`. Velocities are world-frame,
linear velocity of the link frame's origin. Everything here is deterministic: the same scene,
seed and calls give the same numbers, and :meth:`Simulation.reset` rebuilds the world so that the
state afterwards is bit-identical to a fresh load.

Sensor readers come from :mod:`scene_sim_ros.sim.sensors` (``create_reader(sim, entity, sensor)``
returning an object with ``read()``, ``after_step()`` and ``reset()``): non-image readers are
created as soon as an entity is built (so finite differences have history from step 1),
image readers on their first :meth:`Simulation.read`; ``after_step()`` runs after every physics
step. A rebuild (:meth:`reset`) creates new readers, as a fresh load would.

:class:`Simulation` implements :class:`scene_sim_ros.sim.simulator.Simulator`. This module holds
building, lifecycle, stepping and sensor access; the rest of the class comes from mixins: name
lookup (``entity_lookup``), state read and set (``state_queries``), spawn, delete and reset
(``world_edits``), ray casts, contacts and frames for the sensors (``sensing``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import pybullet as pb

from scene_sim_ros.errors import SimulationError
from scene_sim_ros.scene import Entity, Pose, Scene
from scene_sim_ros.scene.sensors import IMAGE_SENSORS
from scene_sim_ros.sim.engines.pybullet.body_pool import BodyPool
from scene_sim_ros.sim.engines.pybullet.bounce import Bounce
from scene_sim_ros.sim.engines.pybullet.builder import Builder
from scene_sim_ros.sim.engines.pybullet.built_entity import BuiltEntity
from scene_sim_ros.sim.engines.pybullet.guard import PyBulletGuard
from scene_sim_ros.sim.engines.pybullet.motor_world import MotorWorld
from scene_sim_ros.sim.engines.pybullet.native_step import native_step
from scene_sim_ros.sim.engines.pybullet.sensing import Sensing
from scene_sim_ros.sim.engines.pybullet.shapes import ShapeCache
from scene_sim_ros.sim.engines.pybullet.state_queries import StateQueries
from scene_sim_ros.sim.engines.pybullet.wires import WireSet
from scene_sim_ros.sim.engines.pybullet.world_edits import WorldEdits
from scene_sim_ros.sim.materials import fit_materials
from scene_sim_ros.sim.meshes import default_mesh_dir
from scene_sim_ros.sim.requests import advanced
from scene_sim_ros.sim.sensors import create_reader
from scene_sim_ros.sim.sensors.access import SensorAccess
from scene_sim_ros.sim.sensors.rendering import Rendering
from scene_sim_ros.sim.simulator import (
    ContactPoint,
    JointSample,
    Quaternion,
    ResetScope,
    SensorReader,
    Vector,
)
from scene_sim_ros.sim.torque_servos import substeps_for

__all__ = ['DEFAULT_SOLVER_ITERATIONS', 'ContactPoint', 'Quaternion', 'ResetScope', 'Simulation',
           'Vector']

# Game.ros2, 14 NAOs standing 10 s: 10 iterations let them fall (27 cm), 20 hold within 1.7 cm,
# 30 within 1.6 cm, 50 within 1.5 cm at about half the speed of 30; 30 keeps a margin.
DEFAULT_SOLVER_ITERATIONS = 30


class Simulation(StateQueries, WorldEdits, Sensing, SensorAccess):
    """A PyBullet world built from ``scene``.

    ``seed`` seeds :attr:`rng` (sensor noise). ``solver_iterations`` sets PyBullet's constraint
    solver iterations. ``mesh_dir`` receives the .obj files of inline meshes. ``renderer``
    ('auto', 'gl' or 'tiny'; default ``$SCENE_SIM_ROS_RENDERER`` or 'auto') draws the cameras
    (:mod:`scene_sim_ros.sim.sensors.rendering`). ``release_gil`` lets other Python threads run
    while PyBullet steps (:mod:`.native_step`); the caller then promises that no other thread
    uses this simulation meanwhile.
    """

    def __init__(self, scene: Scene, gui: bool = False, *, seed: int = 0,
                 solver_iterations: int = DEFAULT_SOLVER_ITERATIONS,
                 mesh_dir: Path | None = None, renderer: str | None = None,
                 release_gil: bool = False):
        self.scene = scene
        self.step_length = float(scene.step_length)
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        self.solver_iterations = solver_iterations
        self.client = pb.connect(pb.GUI if gui else pb.DIRECT)
        if self.client < 0:
            raise SimulationError('cannot connect to PyBullet'
                                  + (' (only one GUI per process)' if gui else ''))
        if gui:  # the scene only: no side panel, no RGB/depth/segmentation preview windows
            pb.configureDebugVisualizer(pb.COV_ENABLE_GUI, 0, physicsClientId=self.client)
        self.warnings: list[str] = []
        self._shapes = ShapeCache(self.client, Path(mesh_dir or default_mesh_dir()))
        self._pool = BodyPool(self.client)
        self._entities: dict[str, BuiltEntity] = {}
        self._by_body: dict[int, BuiltEntity] = {}
        self._spawned: dict[str, Entity] = {}
        self._removed: set[str] = set()
        self._readers: dict[tuple[str, str], SensorReader] = {}
        self._link_states: dict[tuple[str, str], tuple[Pose, Vector, Vector]] = {}
        """:meth:`link_world_state` of this step (emptied by every step and every teleport)."""
        self._world_sample: JointSample | None = None
        """The joint states of all entities, read since the last step (``_world_joint_sample``)."""
        self._joint_samples: dict[str, JointSample] = {}
        """Each entity's part of it (``_joint_sample``), by entity."""
        self._motor_world: MotorWorld | None = None
        """The motors of all entities as one; None after entities came or went (``_motors``)."""
        self._pushes = []
        self._steps = 0
        self.release_gil = release_gil and not gui
        self._physics_step: Callable[[], None] | None = None  # chosen when built or first stepped
        self.on_gil_release: Callable[[float], None] | None = None
        """Called on the stepping thread right before PyBullet steps without the GIL, with how
        long such a step took lately (s): the node publishes meanwhile."""
        self.gil_free_seconds = 0.0
        """CPU seconds of the recent GIL-free PyBullet steps (a moving average)."""
        self._guard = PyBulletGuard(self.client, self._entities, self.step_length, self.warnings,
                                    lambda: self.time)
        self.rendering = Rendering(self, renderer)
        self._shapes.visuals = gui or self.rendering.engine_draws()
        self._load(scene.entities)
        if self.release_gil:  # decided now, so that release_gil tells the truth from the start
            self._choose_physics_step()

    # -- building --------------------------------------------------------------------------
    def _load(self, entities: Iterable[Entity]) -> None:
        self._configure()
        contacts = fit_materials(self.scene)
        self._builder = Builder(self.client, self.scene, self._shapes, contacts, pool=self._pool)
        self._bounce = Bounce(self.client, self.scene, self.step_length / self.substeps)
        for entity in entities:
            self._add(entity)
        self._add_wires()

    def _configure(self) -> None:
        client = self.client
        pb.setGravity(*self.scene.gravity, physicsClientId=client)
        self.substeps = substeps_for(self.scene)  # physics steps per scene step
        pb.setTimeStep(self.step_length / self.substeps, physicsClientId=client)
        params: dict[str, Any] = dict(numSolverIterations=self.solver_iterations,
                                      deterministicOverlappingPairs=1)
        if self.scene.erp is not None:
            params.update(erp=self.scene.erp, contactERP=self.scene.erp,
                          frictionERP=self.scene.erp)
        if self.scene.cfm is not None:
            params['globalCFM'] = self.scene.cfm
        pb.setPhysicsEngineParameter(physicsClientId=client, **params)

    def _add(self, entity: Entity) -> BuiltEntity:
        if entity.name in self._entities:
            raise SimulationError(f'an entity named {entity.name!r} exists already')
        built = self._builder.build(entity)
        self._entities[entity.name] = built
        self._motor_world = None
        self._bounce.add(built)
        for body in built.bodies:
            self._by_body[body] = built
        self._flush_shape_warnings()
        if not built.fixed and any((*entity.linear_velocity, *entity.angular_velocity)):
            self.set_velocity(entity.name, entity.linear_velocity, entity.angular_velocity)
        for sensor in entity.sensors:
            if not isinstance(sensor, IMAGE_SENSORS):
                self._readers[(entity.name, sensor.name)] = self._create_reader(entity.name, sensor)
        return built

    def _flush_shape_warnings(self) -> None:
        for warning in self._shapes.warnings:
            if warning not in self.warnings:
                self.warnings.append(warning)
        self._shapes.warnings.clear()

    def _add_wires(self) -> None:
        self._wires = WireSet(self, self.scene.wires)
        self.warnings.extend(w for w in self._wires.warnings if w not in self.warnings)

    def _create_reader(self, entity: str, sensor: Any) -> SensorReader:
        return create_reader(self, entity, sensor)

    # -- lifecycle -------------------------------------------------------------------------
    def close(self) -> None:
        """Disconnect from PyBullet (the simulation is unusable afterwards)."""
        if self.client >= 0:
            try:
                pb.disconnect(physicsClientId=self.client)
            except pb.error:
                pass
            self.client = -1
            self._physics_step = None  # the native step's handle is gone with the client

    def __enter__(self) -> Simulation:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # interpreter shutdown: pybullet may be gone already
            pass

    # -- time ------------------------------------------------------------------------------
    @property
    def time(self) -> float:
        """Simulated seconds since loading (or the last reset of scope 'state'/'all')."""
        return self._steps * self.step_length

    @property
    def steps(self) -> int:
        """Physics steps taken since loading (or the last reset)."""
        return self._steps

    def step(self, n: int = 1) -> None:
        """Advance ``n`` physics steps: motors, forces, kinematic bodies, physics, sensors."""
        for _ in range(int(n)):
            self._link_states.clear()
            self._move_kinematic()
            for sub in range(self.substeps, 0, -1):
                self._apply_motors()
                self._apply_propellers()
                self._apply_pushes(last=sub == 1)
                self._wires.apply(self.step_length / self.substeps)
                self._bounce.before_step()
                (self._physics_step or self._choose_physics_step())()
                self._world_sample = None
                self._joint_samples.clear()
                self._bounce.after_step()
            self._link_states.clear()
            self._steps += 1
            self._guard.check(self._steps)
            for reader in list(self._readers.values()):
                reader.after_step()

    def _choose_physics_step(self) -> Callable[[], None]:
        """PyBullet's step, without the GIL where asked for and possible (checked once the
        world has bodies, see :func:`.native_step.native_step`)."""
        client = self.client
        native = native_step(client) if self.release_gil else None
        self.release_gil = native is not None
        if native is None:
            self._physics_step = partial(pb.stepSimulation, physicsClientId=client)
            return self._physics_step

        def gil_free_step() -> None:
            if self.on_gil_release is not None:
                self.on_gil_release(self.gil_free_seconds)
            started = time.thread_time()  # CPU time: not the wait for the GIL afterwards
            native()
            seconds = time.thread_time() - started
            average = self.gil_free_seconds
            self.gil_free_seconds = seconds if average == 0.0 else average + 0.2 * (
                seconds - average)
        self._physics_step = gil_free_step
        return gil_free_step

    def _apply_motors(self) -> None:
        """Every motor of the world for the coming physics step, in one evaluation (see
        :mod:`.motor_world`)."""
        world = self._motors()
        positions, velocities, _ = self._world_joint_sample(world)
        world.apply(positions, velocities)

    def _apply_propellers(self) -> None:
        """Thrust and torque of every propeller from its joint's velocity (Webots' law, see
        :class:`~scene_sim_ros.scene.Propeller`), on its link, for the coming physics step."""
        for built in self._entities.values():
            propellers = built.entity.propellers
            if not propellers:
                continue
            _, velocities, _ = self._joint_sample(built)
            joints = [j.name for j in built.movable_joints]
            for propeller in propellers:
                omega = float(velocities[joints.index(propeller.joint)])
                index = self.link_index(built.name, propeller.link)
                pose, linear, angular = self._link_state(built, index)
                center = pose * Pose(propeller.center)
                axis = pose.rotate(propeller.axis)
                arm = [c - p for c, p in zip(center.position, pose.position)]
                spin = np.cross(angular, arm)
                along = sum((v + w) * a for v, w, a in zip(linear, spin, axis))
                (t1, t2), (q1, q2) = propeller.thrust, propeller.torque
                thrust = t1 * abs(omega) * omega - t2 * abs(omega) * along
                torque = q1 * abs(omega) * omega - q2 * abs(omega) * along
                body, link = built.locate(index)
                pb.applyExternalForce(body, link, [thrust * a for a in axis], center.position,
                                      pb.WORLD_FRAME, physicsClientId=self.client)
                pb.applyExternalTorque(body, link, [torque * a for a in axis], pb.WORLD_FRAME,
                                       physicsClientId=self.client)

    def _apply_pushes(self, last: bool = True) -> None:
        for push in self._pushes:
            com = self._com_position(push.body, push.link)
            pb.applyExternalForce(push.body, push.link, push.force, com, pb.WORLD_FRAME,
                                  physicsClientId=self.client)
            pb.applyExternalTorque(push.body, push.link, push.torque, pb.WORLD_FRAME,
                                   physicsClientId=self.client)
            push.steps_left -= last
        if not last:
            return
        self._pushes = [p for p in self._pushes if p.steps_left > 0]

    def _move_kinematic(self) -> None:
        for built in self._entities.values():
            if built.kinematic_pose is None:
                continue
            built.kinematic_pose = advanced(built.kinematic_pose, built.kinematic_velocity,
                                            self.step_length)
            self._place_root(built, built.kinematic_pose)
