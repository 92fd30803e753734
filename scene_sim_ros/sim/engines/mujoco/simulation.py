"""The MuJoCo simulation of a scene (:class:`MujocoSimulation`, a
:class:`~scene_sim_ros.sim.simulator.Simulator`): building, stepping, edits.

A step is SimRobotCore3's (Simulation.cpp): ``mj_step1``, the motors, ``mj_step2``. The world
is kept *forward-consistent*: after every step and edit ``mj_step1`` has run on the current
state, so poses, velocities and contacts read between steps are the state's own (the next step
then needs only the motors and ``mj_step2``). Spawning and deleting recompile the MjSpec keeping
the state of everything else; ``reset('all')`` builds the world anew, bit-identical to a fresh
load. State queries are :mod:`.state_queries`', the sensors' engine queries :mod:`.sensing`'s.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager

import mujoco
import numpy as np

from scene_sim_ros.errors import SimulationError
from scene_sim_ros.scene import Entity, Scene
from scene_sim_ros.scene.sensors import IMAGE_SENSORS
from scene_sim_ros.sim.engines.mujoco.bounce import MjBounce
from scene_sim_ros.sim.engines.mujoco.builder import SpecBuilder, new_spec
from scene_sim_ros.sim.engines.mujoco.built_entity import MjEntity
from scene_sim_ros.sim.engines.mujoco.guard import MujocoGuard
from scene_sim_ros.sim.engines.mujoco.propellers import Propellers
from scene_sim_ros.sim.engines.mujoco.rolling import RollingResistance
from scene_sim_ros.sim.engines.mujoco.sensing import Sensing
from scene_sim_ros.sim.engines.mujoco.state_queries import Push
from scene_sim_ros.sim.engines.mujoco.wires import MjWires
from scene_sim_ros.sim.engines.mujoco.world_motors import MujocoMotors
from scene_sim_ros.sim.requests import advanced
from scene_sim_ros.sim.sensors import create_reader
from scene_sim_ros.sim.sensors.access import SensorAccess
from scene_sim_ros.sim.sensors.rendering import Rendering
from scene_sim_ros.sim.simulator import ResetScope, SensorReader
from scene_sim_ros.sim.torque_servos import is_torque_controlled

LOG = logging.getLogger('scene_sim_ros')


def log_mujoco_warning(message: str) -> None:
    """MuJoCo's warnings (an unstable state, a full contact buffer) into the log, where the
    explosion guard's reports go; MuJoCo's own handler prints them and appends them to
    MUJOCO_LOG.TXT in the working directory."""
    LOG.warning('MuJoCo: %s', message.strip())


MAX_CONTACT_STEP = 0.0125
"""s: the longest MuJoCo step of a scene without SimRobot Core3 servos (see
:func:`physics_substeps`)."""


def physics_substeps(scene: Scene) -> int:
    """MuJoCo steps per scene step. A scene with SimRobot Core3's servos steps as Core3 does, one
    MuJoCo step per scene step; others in steps of at most :data:`MAX_CONTACT_STEP`: MuJoCo's
    contacts are soft, with a time constant of at least two steps, and at 16 ms a driving robot
    hops and slips (the Webots scout covered 0.29 m of the 0.5 m its wheels rolled in 2 s; at
    8 ms 0.42 m; PyBullet at 16 ms 0.46 m)."""
    step = float(scene.step_length)
    if step <= MAX_CONTACT_STEP * 1.0001 or any(
            is_torque_controlled(joint) for entity in scene.entities for joint in entity.joints):
        return 1
    return math.ceil(step / MAX_CONTACT_STEP - 1e-9)


@contextmanager
def _mujoco_errors() -> Iterator[None]:
    """MuJoCo's compiler errors as SimulationError (one line, the scene's fault)."""
    try:
        yield
    except ValueError as error:
        raise SimulationError(f'MuJoCo cannot build the scene: {error}') from None


class MujocoSimulation(Sensing, SensorAccess):
    """A MuJoCo world built from ``scene`` (``seed`` seeds :attr:`rng`, the sensor noise;
    ``renderer`` draws the cameras, 'gl' or 'auto': MuJoCo has no software renderer here)."""

    def __init__(self, scene: Scene, *, seed: int = 0, renderer: str | None = None,
                 release_gil: bool = False):
        if mujoco.get_mju_user_warning() is None:  # a handler of the application's stays
            mujoco.set_mju_user_warning(log_mujoco_warning)
        self.scene = scene
        self.step_length = float(scene.step_length)
        self.substeps = physics_substeps(scene)
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        self.warnings: list[str] = []
        # MuJoCo's functions release the GIL while they run, but a step is several calls with
        # Python between them: no single GIL-free step for publishing to overlap (see
        # ros/runtime/publishing.py), so the node publishes on the physics thread
        self.release_gil = False
        self.on_gil_release: Callable[[float], None] | None = None
        self.gil_free_seconds = 0.0
        self._readers: dict[tuple[str, str], SensorReader] = {}
        self._spawned: dict[str, Entity] = {}
        self._removed: set[str] = set()
        self._pushes: list[Push] = []
        self._pushed = False  # xfrc_applied holds forces
        self._steps = 0
        self._numbers = 0
        self.rendering = Rendering(self, 'gl' if renderer in (None, 'auto') else renderer)
        self._guard = MujocoGuard(self, self.step_length, self.warnings, lambda: self.time)
        self._build(scene.entities)

    # -- building --------------------------------------------------------------------------
    def _build(self, entities: Iterable[Entity]) -> None:
        self.spec = new_spec(self.scene, self.physics_step)
        # a non-finite state stays as it is, for the explosion guard to report (MuJoCo would
        # reset the whole world to its initial state, silently for the caller)
        self.spec.option.disableflags |= mujoco.mjtDisableBit.mjDSBL_AUTORESET
        self._builder = SpecBuilder(self.scene, self.spec, self.warnings)
        self._entities: dict[str, MjEntity] = {}
        self._by_number: dict[int, MjEntity] = {}
        for entity in entities:
            self._add_to_spec(entity)
        self._wires = MjWires(self.spec, self.physics_step, self.warnings)
        self._wires.build(self.scene.wires, self._entities)
        with _mujoco_errors():
            self.model = self.spec.compile()
        self.data = mujoco.MjData(self.model)
        self._index()
        for built in self._entities.values():
            self._initial_state(built)
        self._forward()
        for built in self._entities.values():
            self._create_readers(built)

    def _warn(self, message: str) -> None:
        if message not in self.warnings:
            self.warnings.append(message)

    def _add_to_spec(self, entity: Entity) -> MjEntity:
        if entity.name in self._entities:
            raise SimulationError(f'an entity named {entity.name!r} exists already')
        self._numbers += 1
        built = self._builder.add(entity, self._numbers, self.physics_step)
        self._entities[entity.name] = built
        self._by_number[built.number] = built
        return built

    def _index(self) -> None:
        """Addresses of every entity's bodies and joints in the compiled model, the maps from
        MuJoCo bodies and geoms back to entities, and the world's motors and forces."""
        model = self.model
        for built in self._entities.values():
            self._index_entity(built)
        self._body_number = np.zeros(model.nbody, dtype=np.int64)
        self._body_link = np.full(model.nbody, -1, dtype=np.int64)
        for built in self._entities.values():
            self._body_number[built.bodies] = built.number
            self._body_link[built.bodies] = np.arange(len(built.bodies)) - 1
        self._geom_sensor: dict[int, tuple[int, int]] = {}
        for built in self._entities.values():
            for sensor, names in built.sensor_geoms.items():
                for name in names:
                    geom = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_GEOM, name)
                    self._geom_sensor[geom] = (built.number, built.sensor_index[sensor])
        self._motors = MujocoMotors(list(self._entities.values()), self.physics_step, model)
        self._propellers = Propellers(model, self._entities.values())
        self._rolling = RollingResistance(model, self._builder.rolling_geoms)
        self._bounce = MjBounce(self.scene, model, self.data, self._entities.values(),
                                self.warnings)

    def _index_entity(self, built: MjEntity) -> None:
        model = self.model
        body, joint = mujoco.mjtObj.mjOBJ_BODY, mujoco.mjtObj.mjOBJ_JOINT
        built.bodies = np.array([mujoco.mj_name2id(model, body, name)
                                 for name in built.body_names], dtype=np.int64)
        ids = [mujoco.mj_name2id(model, joint, f'{built.name}/{j.name}')
               for j in built.movable_joints]
        built.qpos = np.array([model.jnt_qposadr[i] for i in ids], dtype=np.int64)
        built.dofs = np.array([model.jnt_dofadr[i] for i in ids], dtype=np.int64)
        free = mujoco.mj_name2id(model, joint, f'{built.name}/$root')
        built.free_qpos = int(model.jnt_qposadr[free]) if free >= 0 else -1
        built.free_dof = int(model.jnt_dofadr[free]) if free >= 0 else -1
        built.mocap = int(model.body_mocapid[built.bodies[0]])
        built.sensor_index = {sensor: len(built.link_names) - 1 + k
                              for k, sensor in enumerate(built.sensor_geoms)}

    def _initial_state(self, built: MjEntity) -> None:
        entity = built.entity
        for joint, address in zip(built.movable_joints, built.qpos):
            self.data.qpos[address] = joint.initial_position
        self.data.qvel[built.dofs] = 0.0
        if built.free_dof >= 0:
            self._set_root_velocity(built, entity.linear_velocity, entity.angular_velocity)
        self._motors.hold_initial(built, self.data.qpos[self._motors.qpos])

    def _create_readers(self, built: MjEntity) -> None:
        for sensor in built.entity.sensors:
            if not isinstance(sensor, IMAGE_SENSORS):
                self._readers[(built.name, sensor.name)] = create_reader(self, built.name, sensor)

    def _forward(self) -> None:
        """Positions, velocities and contacts of the current state (``mj_step1``); cached
        readings no longer hold."""
        mujoco.mj_step1(self.model, self.data)
        self._rolling.forget()
        self.rendering.invalidate()

    # -- lifecycle -------------------------------------------------------------------------
    def close(self) -> None:
        """Drop the readers and the world (the simulation is unusable afterwards): the spec's
        element handles (wires) first, then the data, the model and the spec, in that order
        now rather than in whatever order a garbage collection of the simulation's reference
        cycles (readers, guard) would free them later."""
        self._readers.clear()
        self._entities = {}
        self._by_number = {}
        for name in ('_wires', '_builder', '_motors', '_propellers', '_rolling', '_bounce', 'data',
                     'model', 'spec'):
            self.__dict__.pop(name, None)

    def __enter__(self) -> MujocoSimulation:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def time(self) -> float:
        return self._steps * self.step_length

    @property
    def physics_step(self) -> float:
        """Seconds of one MuJoCo step (:func:`physics_substeps` of them make a scene step)."""
        return self.step_length / self.substeps

    @property
    def steps(self) -> int:
        return self._steps

    def step(self, n: int = 1) -> None:
        """Advance ``n`` steps: kinematic bodies, motors and forces, ``mj_step2``, the bounces
        (:mod:`.bounce`), then ``mj_step1`` of the new state, the explosion guard and the
        sensors."""
        model, data = self.model, self.data
        motors = self._motors
        for _ in range(int(n)):
            self._move_kinematic()
            for sub in range(self.substeps, 0, -1):
                if motors.count:
                    data.qfrc_applied[motors.dofs] = motors.torques(model, data)
                if self._pushes or self._pushed or self._propellers.active or \
                        self._rolling.active:
                    self._apply_body_forces(last=sub == 1)
                self._bounce.before_step()
                mujoco.mj_step2(model, data)
                motors.after_solve(data)
                self._rolling.capture(data)
                self._bounce.after_step()
                mujoco.mj_step1(model, data)
            self._steps += 1
            self._guard.check(self._steps)
            for reader in list(self._readers.values()):
                reader.after_step()
        self.rendering.invalidate()

    def _apply_body_forces(self, last: bool = True) -> None:
        """The pushes of :meth:`apply_force` (at each body's centre of mass), the propellers'
        thrusts and the rolling friction for the coming MuJoCo step (a push lasts whole scene
        steps: ``last`` is the scene step's last); MuJoCo keeps ``xfrc_applied`` until changed,
        so it is cleared first."""
        forces = self.data.xfrc_applied
        forces[:] = 0.0
        self._propellers.apply(self.data, forces)
        self._rolling.apply(self.data, forces)
        for push in self._pushes:
            body = self._entities[push.entity].body_of(push.index)
            forces[body, :3] += push.force
            forces[body, 3:] += push.torque
            push.steps_left -= last
        self._pushed = bool(forces.any())  # to be cleared next step
        self._pushes = [p for p in self._pushes if p.steps_left > 0]

    def _move_kinematic(self) -> None:
        for built in self._entities.values():
            if built.kinematic_pose is None or built.mocap < 0:
                continue
            built.kinematic_pose = advanced(built.kinematic_pose, built.kinematic_velocity,
                                            self.step_length)
            self._place_root(built, built.kinematic_pose)

    # -- spawn, delete, reset ----------------------------------------------------------------
    def add_entity(self, entity: Entity) -> None:
        """Spawn ``entity`` (a recompile that keeps everything else's state)."""
        built = self._add_to_spec(entity)
        self._recompile()
        self._initial_state(built)
        self._forward()
        self._create_readers(built)
        self._spawned[entity.name] = entity

    def remove_entity(self, name: str) -> None:
        built = self._built(name)
        self._wires.remove_entity(name)  # before its sites go with its bodies
        self.spec.delete(self.spec.body(built.body_names[0]))
        self._builder.remove(name)  # its excluded body pairs
        del self._entities[name]
        del self._by_number[built.number]
        self._pushes = [p for p in self._pushes if p.entity != name]
        self._recompile()
        self._forward()
        self._guard.reports.pop(name, None)
        for key in [k for k in self._readers if k[0] == name]:
            del self._readers[key]
        if name in self._spawned:
            del self._spawned[name]
        else:
            self._removed.add(name)

    def _recompile(self) -> None:
        """Recompile keeping the state; the motors' world arrays are rebuilt around the
        banks, which keep their commands."""
        with _mujoco_errors():
            self.model, self.data = self.spec.recompile(self.model, self.data)
        self._index()

    def reset_entity(self, name: str) -> None:
        built = self._built(name)
        entity = built.entity
        built.kinematic_pose = entity.pose if entity.kinematic else None
        built.kinematic_velocity = (entity.linear_velocity, entity.angular_velocity)
        self._place_root(built, entity.pose)
        self._initial_state(built)
        self._pushes = [p for p in self._pushes if p.entity != name]
        self._forward()

    def reset(self, scope: ResetScope = 'all') -> None:
        """As the PyBullet engine's: 'all' rebuilds the loaded scene (time 0, rng reseeded),
        'state' rebuilds the current entities in their initial state, 'spawned' removes the
        spawned entities and brings deleted loaded ones back."""
        if scope == 'spawned':
            for name in list(self._spawned):
                self.remove_entity(name)
            for entity in self.scene.entities:
                if entity.name in self._removed:
                    self.add_entity(entity)
                    del self._spawned[entity.name]
            self._removed.clear()
            return
        if scope == 'all':
            entities = list(self.scene.entities)
            self._spawned.clear()
            self._removed.clear()
        elif scope == 'state':
            entities = [built.entity for built in self._entities.values()]
        else:
            raise SimulationError(f"reset scope must be 'state', 'spawned' or 'all', not {scope!r}")
        self._readers.clear()
        self._pushes.clear()
        self._steps = 0
        self._numbers = 0
        self._guard.reset()
        self.rng = np.random.default_rng(self.seed)
        self._build(entities)

    def replace_scene(self, scene: Scene) -> None:
        """Throw the world away and build ``scene`` in its place (time 0, rng reseeded)."""
        self.scene = scene
        self.step_length = float(scene.step_length)
        self.substeps = physics_substeps(scene)
        self.reset('all')
