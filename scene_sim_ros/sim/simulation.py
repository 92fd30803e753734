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
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pybullet as pb

from ..errors import CommandError, SimulationError
from ..scene import Entity, Pose, Scene
from ..scene.sensors import IMAGE_SENSORS
from ..scene.transforms import cross, quat_from_axis_angle, quat_multiply, quat_normalized, vec3
from .body_pool import BodyPool
from .bounce import Bounce
from .builder import Builder, BuiltEntity, place_parts
from .guard import ExplosionGuard
from .materials import fit_materials
from .meshes import default_mesh_dir
from .motors import POSITION
from .shapes import ShapeCache
from .torque_servos import substeps_for
from .wires import WireSet

# Game.ros2, 14 NAOs standing 10 s: 10 iterations let them fall (27 cm), 20 hold within 1.7 cm,
# 30 within 1.6 cm, 50 within 1.5 cm at about half the speed of 30; 30 keeps a margin.
DEFAULT_SOLVER_ITERATIONS = 30
ResetScope = Literal['state', 'spawned', 'all']
Vector = tuple[float, float, float]
Quaternion = tuple[float, float, float, float]


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


@dataclass
class _Push:
    body: int
    link: int
    force: Vector
    torque: Vector
    steps_left: int


class Simulation:
    """A PyBullet world built from ``scene``.

    ``seed`` seeds :attr:`rng` (sensor noise). ``solver_iterations`` sets PyBullet's constraint
    solver iterations. ``mesh_dir`` receives the .obj files of inline meshes. ``renderer``
    ('auto', 'gl' or 'tiny'; default ``$SCENE_SIM_ROS_RENDERER`` or 'auto') draws the cameras
    (:mod:`scene_sim_ros.sim.sensors.rendering`).
    """

    def __init__(self, scene: Scene, gui: bool = False, *, seed: int = 0,
                 solver_iterations: int = DEFAULT_SOLVER_ITERATIONS,
                 mesh_dir: Path | None = None, renderer: str | None = None):
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
        self._readers: dict[tuple[str, str], Any] = {}
        self._link_states: dict[tuple[str, str], tuple[Pose, Vector, Vector]] = {}
        """:meth:`link_world_state` of this step (emptied by every step and every teleport)."""
        self._pushes: list[_Push] = []
        self._steps = 0
        self._guard = ExplosionGuard(self)
        _prepare_rendering(self, scene, renderer)
        self._shapes.visuals = gui or _pybullet_draws(self)
        self._load(scene.entities)

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
        self._bounce.add(built)
        for body in built.bodies:
            self._by_body[body] = built
        self._flush_shape_warnings()
        if not built.fixed and any((*entity.linear_velocity, *entity.angular_velocity)):
            self.set_velocity(entity.name, entity.linear_velocity, entity.angular_velocity)
        for sensor in entity.sensors:
            if not isinstance(sensor, IMAGE_SENSORS):
                reader = self._create_reader(entity.name, sensor)
                if reader is not None:
                    self._readers[(entity.name, sensor.name)] = reader
        return built

    def _flush_shape_warnings(self) -> None:
        for warning in self._shapes.warnings:
            if warning not in self.warnings:
                self.warnings.append(warning)
        self._shapes.warnings.clear()

    def _add_wires(self) -> None:
        self._wires = WireSet(self, self.scene.wires)
        self.warnings.extend(w for w in self._wires.warnings if w not in self.warnings)

    def _create_reader(self, entity: str, sensor: Any) -> Any:
        create = _reader_factory()
        if create is None:
            return None
        return create(self, entity, sensor)

    # -- lifecycle -------------------------------------------------------------------------
    def close(self) -> None:
        """Disconnect from PyBullet (the simulation is unusable afterwards)."""
        if self.client >= 0:
            try:
                pb.disconnect(physicsClientId=self.client)
            except pb.error:
                pass
            self.client = -1

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
                self._apply_pushes(last=sub == 1)
                self._wires.apply(self.step_length / self.substeps)
                self._bounce.before_step()
                pb.stepSimulation(physicsClientId=self.client)
                self._bounce.after_step()
            self._link_states.clear()
            self._steps += 1
            self._guard.check(self._steps)
            for reader in list(self._readers.values()):
                reader.after_step()

    def _apply_motors(self) -> None:
        client = self.client
        for built in self._entities.values():
            if not built.joint_indices or not built.motors.active:
                continue
            if built.parts:
                self._apply_part_motors(built)
                continue
            states = pb.getJointStates(built.body, built.joint_indices, physicsClientId=client)
            positions = np.fromiter((s[0] for s in states), float, len(states))
            velocities = np.fromiter((s[1] for s in states), float, len(states))
            out = built.motors.output(positions, velocities)
            pb.setJointMotorControlArray(built.body, built.joint_indices, pb.VELOCITY_CONTROL,
                                         targetVelocities=out.velocities.tolist(),
                                         forces=out.forces.tolist(), physicsClientId=client)
            if len(out.effort_joints):
                pb.setJointMotorControlArray(
                    built.body, [built.joint_indices[k] for k in out.effort_joints],
                    pb.TORQUE_CONTROL, forces=out.efforts.tolist(), physicsClientId=client)

    def _apply_part_motors(self, built: BuiltEntity) -> None:
        """:meth:`_apply_motors` for an entity of several PyBullet bodies (see ``Part``)."""
        client = self.client
        states = self._joint_states(built)
        positions = np.fromiter((s[0] for s in states), float, len(states))
        velocities = np.fromiter((s[1] for s in states), float, len(states))
        out = built.motors.output(positions, velocities)
        efforts = dict(zip(out.effort_joints.tolist(), out.efforts.tolist()))
        for body, indices, ks in built.joint_groups():
            pb.setJointMotorControlArray(body, indices, pb.VELOCITY_CONTROL,
                                         targetVelocities=[out.velocities[k] for k in ks],
                                         forces=[out.forces[k] for k in ks],
                                         physicsClientId=client)
            torque = [(i, efforts[k]) for i, k in zip(indices, ks) if k in efforts]
            if torque:
                pb.setJointMotorControlArray(body, [i for i, _ in torque], pb.TORQUE_CONTROL,
                                             forces=[f for _, f in torque],
                                             physicsClientId=client)

    def _joint_states(self, built: BuiltEntity) -> list:
        """PyBullet's joint states of ``built.joint_indices``, in their order."""
        if not built.parts:
            return list(pb.getJointStates(built.body, built.joint_indices,
                                          physicsClientId=self.client))
        states: list = [None] * len(built.joint_indices)
        for body, indices, ks in built.joint_groups():
            for k, state in zip(ks, pb.getJointStates(body, indices,
                                                      physicsClientId=self.client)):
                states[k] = state
        return states

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
        dt = self.step_length
        for built in self._entities.values():
            if built.kinematic_pose is None:
                continue
            linear, angular = built.kinematic_velocity
            pose = built.kinematic_pose
            speed = math.sqrt(sum(w * w for w in angular))
            orientation = pose.orientation
            if speed > 0.0:
                turn = quat_from_axis_angle(angular, speed * dt)
                orientation = quat_normalized(quat_multiply(turn, orientation))
            position = tuple(p + v * dt for p, v in zip(pose.position, linear))
            built.kinematic_pose = Pose(position, orientation)
            self._place_root(built, built.kinematic_pose)

    # -- names -----------------------------------------------------------------------------
    def entity_names(self) -> list[str]:
        """Names of the entities now in the world (loaded first, then spawned)."""
        return list(self._entities)

    def _built(self, entity: str, error: type[SimulationError] = SimulationError) -> BuiltEntity:
        try:
            return self._entities[entity]
        except KeyError:
            raise error(f'unknown entity {entity!r}; entities: '
                        + ', '.join(self._entities)) from None

    def _resolve(self, name: str) -> tuple[BuiltEntity, int]:
        """``"entity"`` or ``"entity/link"`` -> (entity, PyBullet link index)."""
        if name in self._entities:
            return self._entities[name], -1
        entity, sep, link = name.rpartition('/')
        if not sep:
            self._built(name)
        return self._entities.get(entity) or self._built(entity), self.link_index(entity, link)

    def locate(self, entity: str, index: int) -> tuple[int, int]:
        """(PyBullet body, its link index) of ``entity``'s link index ``index`` (as
        :meth:`link_index` gives it): an entity with more links than one PyBullet body takes
        is several bodies (:class:`~scene_sim_ros.sim.builder.Part`); else ``(body_id, index)``."""
        return self._built(entity).locate(index)

    def body_id(self, entity: str) -> int:
        """PyBullet body unique id of ``entity``."""
        return self._built(entity).body

    def link_index(self, entity: str, link: str) -> int:
        """PyBullet link index of the model link ``link`` (-1 for the root); of an entity built
        in parts (over PyBullet's per-body limits) the entity's own index, which
        :meth:`locate` turns into a PyBullet (body, link) pair."""
        built = self._built(entity)
        try:
            return built.link_index[link]
        except KeyError:
            raise SimulationError(f'entity {entity!r} has no link {link!r}; links: '
                                  + ', '.join(built.link_index)) from None

    def sensor_link_index(self, entity: str, sensor: str) -> int:
        """PyBullet link index holding the collision shapes ``sensor`` names (a helper link
        that no model API shows; see :mod:`scene_sim_ros.sim.builder`), else the index of the
        sensor's link."""
        built = self._built(entity)
        if sensor in built.sensor_links:
            return built.sensor_links[sensor]
        try:
            link = built.entity.sensor(sensor).link
        except KeyError:
            raise SimulationError(f'entity {entity!r} has no sensor {sensor!r}') from None
        return self.link_index(entity, link)

    def own_link_indices(self, entity: str, link: str) -> tuple[int, ...]:
        """PyBullet link indices of the model link ``link``: its own and its helper links'."""
        return self._built(entity).own_link_indices(self.link_index(entity, link))

    def built_entities(self) -> list[BuiltEntity]:
        """The entities as built in PyBullet (bodies, link indices, frames), for renderers."""
        return list(self._entities.values())

    def entity_of_body(self, body_id: int) -> str | None:
        """Name of the entity whose PyBullet body is ``body_id`` (None if none)."""
        built = self._by_body.get(body_id)
        return built.name if built is not None else None

    def link_name(self, body_id: int, link_index: int) -> str | None:
        """Model link name of PyBullet ``(body_id, link_index)`` (None if unknown)."""
        built = self._by_body.get(body_id)
        if built is None:
            return None
        return built.model_link_name(built.global_index(body_id, link_index))

    # -- poses -----------------------------------------------------------------------------
    def _inertial(self, built: BuiltEntity, link: int) -> Pose:
        return built.inertial[link]

    def _com_position(self, body: int, link: int) -> Vector:
        if link < 0:
            return pb.getBasePositionAndOrientation(body, physicsClientId=self.client)[0]
        return pb.getLinkState(body, link, computeForwardKinematics=1,
                               physicsClientId=self.client)[0]

    def link_world_pose(self, entity: str, link: str) -> Pose:
        """World pose of the model's frame of ``link`` (root: ``entity.links[0].name``)."""
        built = self._built(entity)
        return self._link_pose(built, self.link_index(entity, link))

    def _link_pose(self, built: BuiltEntity, index: int) -> Pose:
        if index < 0:
            position, orientation = pb.getBasePositionAndOrientation(
                built.body, physicsClientId=self.client)
            self._guard.require_finite(built.name, (*position, *orientation))
            return Pose(position, orientation) * built.inertial_inverse[-1]
        # the centre-of-mass frame comes in double precision, the link frame [4:6] in float
        state = pb.getLinkState(*built.locate(index), computeForwardKinematics=1,
                                physicsClientId=self.client)
        self._guard.require_finite(built.name, (*state[0], *state[1]))
        return Pose(state[0], state[1]) * built.inertial_inverse[index]

    def link_poses(self, entity: str) -> dict[str, Pose]:
        """World poses of all links of ``entity`` (one batched PyBullet query, for TF)."""
        built = self._built(entity)
        poses = {built.link_names[-1]: self._link_pose(built, -1)}
        indices = [i for i in built.link_names if i >= 0]
        for body in built.bodies:
            mine = [i for i in indices if built.locate(i)[0] == body]
            if not mine:
                continue
            states = pb.getLinkStates(body, [built.locate(i)[1] for i in mine],
                                      computeForwardKinematics=1, physicsClientId=self.client)
            for i, state in zip(mine, states):
                poses[built.link_names[i]] = Pose(state[0], state[1]) * built.inertial_inverse[i]
        return poses

    def get_pose(self, name: str) -> tuple[Vector, Quaternion]:
        """World pose of an entity's root (``"entity"``) or of a link (``"entity/link"``)."""
        built, index = self._resolve(name)
        pose = self._link_pose(built, index)
        return pose.position, pose.orientation

    def set_pose(self, name: str, xyz: Sequence[float], quat_xyzw: Sequence[float]) -> None:
        """Teleport an entity so that its root link frame is at ``xyz``/``quat_xyzw``."""
        built, index = self._resolve(name)
        if index != -1:
            raise SimulationError(f'{name!r}: only an entity root can be placed')
        values = [float(v) for v in (*xyz, *quat_xyzw)]
        if len(values) != 7 or not all(math.isfinite(v) for v in values):
            raise SimulationError(f'{name!r}: pose needs 3 + 4 finite numbers, got {values}')
        try:
            pose = Pose(vec3(values[:3]), quat_normalized(values[3:]))
        except ValueError:
            raise SimulationError(f'{name!r}: zero quaternion') from None
        if built.kinematic_pose is not None:
            built.kinematic_pose = pose
        self._place_root(built, pose)
        _invalidate_renders(self)

    def _place_root(self, built: BuiltEntity, pose: Pose) -> None:
        inertial = pose * built.inertial[-1]
        pb.resetBasePositionAndOrientation(built.body, inertial.position, inertial.orientation,
                                           physicsClientId=self.client)
        if built.parts:
            place_parts(self.client, built)

    # -- velocities ------------------------------------------------------------------------
    def link_world_velocity(self, entity: str, link: str) -> tuple[Vector, Vector]:
        """(linear velocity of the link frame's origin, angular velocity), world frame."""
        built = self._built(entity)
        return self._link_velocity(built, self.link_index(entity, link))

    def _link_velocity(self, built: BuiltEntity, index: int) -> tuple[Vector, Vector]:
        if index < 0:
            com = pb.getBasePositionAndOrientation(built.body, physicsClientId=self.client)[0]
            origin = self._link_pose(built, -1).position
            linear, angular = pb.getBaseVelocity(built.body, physicsClientId=self.client)
        else:
            state = pb.getLinkState(*built.locate(index), computeLinkVelocity=1,
                                    computeForwardKinematics=1, physicsClientId=self.client)
            com, linear, angular = state[0], state[6], state[7]
            origin = (Pose(state[0], state[1]) * built.inertial_inverse[index]).position
        offset = tuple(o - c for o, c in zip(origin, com))
        linear = tuple(v + w for v, w in zip(linear, cross(angular, offset)))
        return linear, tuple(angular)

    def link_world_state(self, entity: str, link: str) -> tuple[Pose, Vector, Vector]:
        """:meth:`link_world_pose` and :meth:`link_world_velocity` from one PyBullet query
        (an IMU reads both after every step; kept until the next step or teleport)."""
        cached = self._link_states.get((entity, link))
        if cached is not None:
            return cached
        built = self._built(entity)
        index = self.link_index(entity, link)
        if index < 0:
            com, orientation = pb.getBasePositionAndOrientation(built.body,
                                                                physicsClientId=self.client)
            self._guard.require_finite(built.name, (*com, *orientation))
            pose = Pose(com, orientation) * built.inertial_inverse[-1]
            linear, angular = pb.getBaseVelocity(built.body, physicsClientId=self.client)
        else:
            state = pb.getLinkState(*built.locate(index), computeLinkVelocity=1,
                                    computeForwardKinematics=1, physicsClientId=self.client)
            self._guard.require_finite(built.name, (*state[0], *state[1]))
            pose = Pose(state[0], state[1]) * built.inertial_inverse[index]
            com, linear, angular = state[0], state[6], state[7]
        offset = tuple(o - c for o, c in zip(pose.position, com))
        linear = tuple(v + w for v, w in zip(linear, cross(angular, offset)))
        state = (pose, linear, tuple(angular))
        self._link_states[(entity, link)] = state
        return state

    def get_velocity(self, name: str) -> tuple[Vector, Vector]:
        """(linear, angular) world velocity of an entity root or ``"entity/link"``."""
        built, index = self._resolve(name)
        return self._link_velocity(built, index)

    def set_velocity(self, name: str, linear: Sequence[float], angular: Sequence[float]) -> None:
        """Set an entity's root velocity (linear of the root frame's origin, world frame)."""
        built, index = self._resolve(name)
        if index != -1:
            raise SimulationError(f'{name!r}: only an entity root velocity can be set')
        values = [float(v) for v in (*linear, *angular)]
        if len(values) != 6 or not all(math.isfinite(v) for v in values):
            raise SimulationError(f'{name!r}: velocity needs 3 + 3 finite numbers')
        linear_v, angular_v = vec3(values[:3]), vec3(values[3:])
        if built.kinematic_pose is not None:
            built.kinematic_velocity = (linear_v, angular_v)
        com = pb.getBasePositionAndOrientation(built.body, physicsClientId=self.client)[0]
        origin = self._link_pose(built, -1).position
        offset = tuple(c - o for c, o in zip(com, origin))
        com_velocity = tuple(v + w for v, w in zip(linear_v, cross(angular_v, offset)))
        pb.resetBaseVelocity(built.body, com_velocity, angular_v, physicsClientId=self.client)
        if built.parts:
            place_parts(self.client, built)
        _invalidate_renders(self)

    # -- joints ----------------------------------------------------------------------------
    def joint_states(self, entity: str) -> dict[str, tuple[float, float, float]]:
        """``{joint: (position, velocity, effort)}`` of the movable joints, in scene order.

        Effort is the commanded torque/force for effort-commanded joints, else the torque/force
        PyBullet's motor applied in the last step.
        """
        built = self._built(entity)
        if not built.joint_indices:
            return {}
        states = self._joint_states(built)
        motors = built.motors
        out = {}
        for k, (joint, state) in enumerate(zip(built.movable_joints, states)):
            out[joint.name] = (state[0], state[1], motors.effort(k, state[3]))
        return out

    def joint_state_arrays(self, entity: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`joint_states` as three arrays (position, velocity, effort) in scene order:
        one call per step for the ROS node's joint states and TF, without a dict per joint."""
        built = self._built(entity)
        if not built.joint_indices:
            empty = np.zeros(0)
            return empty, empty, empty
        positions, velocities, _, applied = zip(*self._joint_states(built))
        return (np.array(positions, dtype=np.float64), np.array(velocities, dtype=np.float64),
                built.motors.efforts(np.array(applied, dtype=np.float64)))

    def command(self, entity: str, joint: str, position: float | None = None,
                velocity: float | None = None, effort: float | None = None) -> None:
        """Command one joint (see :mod:`scene_sim_ros.sim.motors`); raises CommandError."""
        self._built(entity, CommandError).motors.command(joint, position, velocity, effort)

    def set_joint_position(self, entity: str, joint: str, position: float) -> None:
        """Teleport a movable joint to ``position`` at rest; a position-controlled joint then
        holds it there (its set-point moves along)."""
        built = self._built(entity)
        motors = built.motors
        if joint not in motors.index:
            raise SimulationError(f'entity {entity!r} has no movable joint {joint!r}')
        position = float(position)
        if not math.isfinite(position):
            raise SimulationError(f'joint {joint!r}: position must be finite')
        k = motors.index[joint]
        pb.resetJointState(*built.locate(built.joint_indices[k]), position, 0.0,
                           physicsClientId=self.client)
        if built.parts:
            place_parts(self.client, built)
        if motors.mode[k] == POSITION:
            motors.position_target[k] = min(max(position, motors.lower[k]), motors.upper[k])
        _invalidate_renders(self)

    # -- forces, contacts, mass --------------------------------------------------------------
    def apply_force(self, entity: str, link: str | None, force: Sequence[float],
                    torque: Sequence[float] = (0.0, 0.0, 0.0), duration: float = 0.0) -> None:
        """Apply ``force`` (N, at the link's centre of mass) and ``torque`` (N*m), both in the
        world frame, during each of the next ``max(1, round(duration / step_length))`` steps."""
        built = self._built(entity)
        index = -1 if link is None else self.link_index(entity, link)
        values = [float(v) for v in (*force, *torque)]
        if len(values) != 6 or not all(math.isfinite(v) for v in values) or \
                not math.isfinite(duration) or duration < 0.0:
            raise SimulationError('apply_force needs finite force, torque and duration >= 0')
        steps = max(1, round(duration / self.step_length))
        self._pushes.append(_Push(*built.locate(index), vec3(values[:3]), vec3(values[3:]),
                                  steps))

    def contacts(self, entity: str) -> list[ContactPoint]:
        """Contact points of ``entity`` after the last step."""
        built = self._built(entity)
        points = []
        for body in built.bodies:
            for c in pb.getContactPoints(bodyA=body, physicsClientId=self.client):
                other = self._by_body.get(c[2])
                points.append(ContactPoint(
                    link=built.model_link_name(built.global_index(body, c[3])) or '',
                    other_entity=other.name if other else '',
                    other_link=(other.model_link_name(other.global_index(c[2], c[4])) or '')
                    if other else '',
                    position=c[5], normal=tuple(c[7]),
                    normal_force=c[9], distance=c[8]))
        return points

    def center_of_mass(self, entity: str) -> Vector:
        """World position of the centre of mass of ``entity`` (static bodies: of their links)."""
        built = self._built(entity)
        client = self.client
        masses, positions = [], []
        for index in (*built.link_names, *built.helper_parent):
            body, local = built.locate(index)
            mass = pb.getDynamicsInfo(body, local, physicsClientId=client)[0]
            if index == -1 and built.fixed:
                mass = built.entity.root.inertial.mass
            masses.append(mass)
            positions.append(self._com_position(body, local))
        total = sum(masses)
        if total <= 0.0:
            return self._link_pose(built, -1).position
        return tuple(sum(m * p[k] for m, p in zip(masses, positions)) / total
                     for k in range(3))

    # -- sensors ---------------------------------------------------------------------------
    def read(self, entity: str, sensor: str) -> Any:
        """Current reading of ``sensor`` of ``entity`` (numpy array or dict)."""
        return self.reader(entity, sensor).read()

    def reader(self, entity: str, sensor: str) -> Any:
        """The reader object of a sensor (created on first use), e.g. to ``set()`` a user input.

        Readers are replaced by a rebuilding :meth:`reset`: look them up again afterwards.
        """
        built = self._built(entity)
        key = (entity, sensor)
        if key not in self._readers:
            try:
                model = built.entity.sensor(sensor)
            except KeyError:
                names = ', '.join(s.name for s in built.entity.sensors)
                raise SimulationError(f'entity {entity!r} has no sensor {sensor!r}; '
                                      f'sensors: {names or "none"}') from None
            if _reader_factory() is None:
                raise SimulationError('sensor readers are not available: '
                                      'scene_sim_ros.sim.sensors.create_reader is missing')
            self._readers[key] = self._create_reader(entity, model)
        return self._readers[key]

    # -- spawn, delete, reset ----------------------------------------------------------------
    def add_entity(self, entity: Entity) -> None:
        """Spawn ``entity`` (its name must be new) at its pose; :meth:`reset` with scope
        'spawned' or 'all' removes it again."""
        if entity.name in self._entities:
            raise SimulationError(f'an entity named {entity.name!r} exists already')
        self._add(entity)
        self._spawned[entity.name] = entity
        _invalidate_renders(self)

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
        self._guard.reports.pop(name, None)  # a new entity of this name gets its own report
        self._pushes = [p for p in self._pushes if p.body not in built.bodies]
        for key in [k for k in self._readers if k[0] == name]:
            del self._readers[key]
        if name in self._spawned:
            del self._spawned[name]
        else:
            self._removed.add(name)
        _invalidate_renders(self)

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
        _invalidate_renders(self)

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
            _invalidate_renders(self)
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
        self._by_body.clear()
        self._readers.clear()
        self._pushes.clear()
        self._steps = 0
        self._guard.reset()
        self.rng = np.random.default_rng(self.seed)
        _invalidate_renders(self)
        self._load(entities)


def _sensors_module() -> Any:
    """``scene_sim_ros.sim.sensors``, or None while that package is missing."""
    try:
        return importlib.import_module('scene_sim_ros.sim.sensors')
    except ModuleNotFoundError as err:
        if err.name and err.name.startswith('scene_sim_ros.sim.sensors'):
            return None
        raise


def _prepare_rendering(sim: Simulation, scene: Scene, renderer: str | None) -> None:
    prepare = getattr(_sensors_module(), 'prepare_rendering', None)
    if prepare is not None:
        prepare(sim, scene, renderer)


def _pybullet_draws(sim: Simulation) -> bool:
    """Whether TinyRenderer draws ``sim``'s images, so PyBullet needs the visual shapes."""
    draws = getattr(_sensors_module(), 'pybullet_draws', None)
    return True if draws is None else bool(draws(sim))


def _invalidate_renders(sim: Simulation) -> None:
    """Cached camera frames (and link states) no longer show the world once bodies moved
    between steps."""
    sim._link_states.clear()  # noqa: SLF001
    invalidate = getattr(_sensors_module(), 'invalidate_renders', None)
    if invalidate is not None:
        invalidate(sim)


def _reader_factory() -> Any:
    """``scene_sim_ros.sim.sensors.create_reader``, or None while that package is missing."""
    return getattr(_sensors_module(), 'create_reader', None)
