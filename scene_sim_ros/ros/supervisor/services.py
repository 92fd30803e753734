"""The ``simulation_interfaces`` services, one short handler each (names as ros_gz_sim and
Isaac Sim use them, relative to the node's namespace).

Handlers run on the executor thread as coroutines: whatever touches the simulation is a task on
the physics thread (:meth:`Supervisor.physics`), awaited without blocking the executor, so
services stay responsive while a long ``step_simulation`` runs. A handler reports failure by
raising :class:`~.logic.SupervisorError` (code + message); :func:`_handler` turns it (and any
unexpected exception, as RESULT_OPERATION_FAILED) into the response's ``result``.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from concurrent.futures import Future as ConcurrentFuture
from typing import TYPE_CHECKING, Any

import simulation_interfaces.srv
from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.parameter import Parameter
from rclpy.task import Future
from simulation_interfaces.msg import EntityCategory, Result, SimulationState
from simulation_interfaces.srv import SetEntityState, SetSimulationState, SpawnEntity

from scene_sim_ros.errors import SceneLoadError
from scene_sim_ros.ros.bridge.bridged_node import BridgedNode
from scene_sim_ros.ros.supervisor import compat, features, logic
from scene_sim_ros.ros.supervisor.catalog import CORE_SERVICES
from scene_sim_ros.ros.supervisor.logic import EntityInfoValues, State, SupervisorError
from scene_sim_ros.ros.supervisor.spawn_loader import BrokenProcessPool, SpawnLoader
from scene_sim_ros.scene import Entity, Pose, bounds
from scene_sim_ros.scene.transforms import quat, vec3

if TYPE_CHECKING:
    from scene_sim_ros.sim.simulator import ResetScope

CATEGORIES = {
    'robot': EntityCategory.CATEGORY_ROBOT,
    'object': EntityCategory.CATEGORY_DYNAMIC_OBJECT,
    'static': EntityCategory.CATEGORY_STATIC_OBJECT,
}

QUIT_DELAY = 0.2
"""Wall seconds between answering set_simulation_state(QUITTING) and shutting down."""


def _handler(method: Callable[..., Any]) -> Callable[..., Any]:
    """Wrap an ``async`` handler: errors become the response's ``result``; never raises."""
    @functools.wraps(method)
    async def wrapped(self: Supervisor, request: Any, response: Any) -> Any:
        try:
            await method(self, request, response)
            if hasattr(response, 'result'):
                response.result.result = Result.RESULT_OK
        except SupervisorError as err:
            response.result.result = err.code
            response.result.error_message = str(err)
        except Exception as err:  # noqa: BLE001 - a bad request must never stop the node
            self.node.get_logger().error(f'{method.__name__}: {type(err).__name__}: {err}')
            response.result.result = Result.RESULT_OPERATION_FAILED
            response.result.error_message = f'{type(err).__name__}: {err}'
        return response
    return wrapped


class Supervisor:
    """The standard services of one node; ``extras`` and ``actions`` add the rest."""

    def __init__(self, node: BridgedNode):
        self.node = node
        self.sim = node.sim
        self.stepper = node.stepper
        self.stopped = False
        self.quitting = False
        self.loading = False      # a load_world is parsing or swapping
        self.no_world = False     # unload_world emptied the simulation
        self._resume_playing = False
        self.spawned: set[str] = set()
        self.info: dict[str, EntityInfoValues] = {}   # set_entity_info's, by entity
        # Reentrant: a handler awaiting the physics thread (a long step_simulation) leaves the
        # executor free for the other services, the command topics and parameter requests.
        self.callback_group = ReentrantCallbackGroup()
        # scene files are parsed in a process of their own (a large one takes seconds)
        self.loader = SpawnLoader()
        self.loader.start()
        self.services = [
            node.create_service(getattr(simulation_interfaces.srv, type_name), name,
                                getattr(self, name), callback_group=self.callback_group)
            for name, type_name in CORE_SERVICES]

    # --- plumbing -------------------------------------------------------------------------------

    async def physics(self, task: Callable[[], Any]) -> Any:
        """Run ``task()`` on the physics thread at the next step boundary; await its result."""
        return await self.awaitable(self.stepper.submit(task))

    def awaitable(self, done: ConcurrentFuture[Any]) -> Future[Any]:
        """An rclpy Future mirroring ``done``; completing it wakes the executor."""
        mirror: Future[Any] = Future(executor=self.node.executor)
        mirror.add_done_callback(lambda _: None)  # its scheduling wakes the waiting coroutine

        def copy(source: ConcurrentFuture[Any]) -> None:
            if source.cancelled():
                mirror.set_exception(SupervisorError(Result.RESULT_OPERATION_FAILED,
                                                     'the simulation is shutting down'))
            elif (error := source.exception()) is not None:
                # rclpy annotates Exception, but stores and re-raises any BaseException
                mirror.set_exception(error)  # type: ignore[arg-type]
            else:
                mirror.set_result(source.result())
        done.add_done_callback(copy)
        return mirror

    @property
    def state(self) -> int:
        if self.quitting:
            return SimulationState.STATE_QUITTING
        if self.loading:
            return SimulationState.STATE_LOADING_WORLD
        if self.no_world:
            return SimulationState.STATE_NO_WORLD
        if not self.stepper.paused:
            self.stopped = False
            return SimulationState.STATE_PLAYING
        return SimulationState.STATE_STOPPED if self.stopped else SimulationState.STATE_PAUSED

    def _set_paused(self, paused: bool) -> None:
        """Through the ``paused`` parameter, so that it always tells the truth."""
        self.node.set_parameters([Parameter('paused', value=paused)])

    def suspend(self) -> None:
        """No world from now on: paused, remembering whether it played."""
        self._resume_playing = not self.stepper.paused
        self.stopped = False
        self._set_paused(True)
        self.no_world = True

    def resume(self) -> None:
        """A world again: playing if it played when the last one was unloaded."""
        self.no_world = False
        if self._resume_playing:
            self._set_paused(False)

    def need_world(self) -> None:
        if self.no_world or self.loading:
            raise SupervisorError(Result.RESULT_INCORRECT_STATE,
                                  'no world is loaded' if self.no_world
                                  else 'a world is being loaded')

    def entity(self, name: str) -> Entity:
        """The model of a live entity (physics thread); NOT_FOUND if there is none."""
        bridge = self.node.bridges.get(name)
        if bridge is None:
            raise SupervisorError(Result.RESULT_NOT_FOUND, f'no entity named {name!r}; '
                                  'entities: ' + ', '.join(self.node.bridges))
        return bridge.entity

    def world_state(self, name: str) -> State:
        position, orientation = self.sim.get_pose(name)
        linear, angular = self.sim.get_velocity(name)
        return State(Pose(vec3(position), quat(orientation)), vec3(linear), vec3(angular))

    def frame_state(self, frame: str) -> State | None:
        """World state of a reference frame (physics thread); None for the world."""
        if logic.is_world(frame, self.node.frames.world):
            return None
        frame = self.node.frames.unprefixed(frame)
        entity, _, _ = frame.partition('/')
        if entity not in self.node.bridges:
            raise SupervisorError(Result.RESULT_NOT_FOUND, f'unknown reference frame {frame!r}: '
                                  "use '' or 'world', an entity name or 'entity/link'")
        try:
            return self.world_state(frame)
        except Exception as err:  # noqa: BLE001 - SimulationError: no such link
            raise SupervisorError(Result.RESULT_NOT_FOUND,
                                  f'unknown reference frame {frame!r}: {err}') from None

    def refresh_tf(self) -> None:
        """Publish /tf now (physics thread): a teleport while paused shows at once."""
        self.node.publish_tf(self.stepper.time, None)  # re-read the joints: a teleport moved them

    # --- simulation state -------------------------------------------------------------------

    @_handler
    async def get_simulator_features(self, request: Any, response: Any) -> None:
        response.features = features.simulator_features()

    @_handler
    async def get_simulation_state(self, request: Any, response: Any) -> None:
        response.state.state = self.state

    @_handler
    async def set_simulation_state(self, request: Any, response: Any) -> None:
        target, current = request.state.state, self.state
        S = SimulationState
        if self.stepper.stepping and target in (S.STATE_PAUSED, S.STATE_PLAYING, S.STATE_STOPPED):
            # a running step_simulation ends here (it answers with what it did)
            self.stepper.cancel_steps(f'interrupted by set_simulation_state '
                                      f'{_state_name(target)}')
            if target == current:
                return
        if current in (S.STATE_NO_WORLD, S.STATE_LOADING_WORLD) and target != S.STATE_QUITTING:
            raise SupervisorError(SetSimulationState.Response.INCORRECT_TRANSITION,
                                  f'the simulation is {_state_name(current)}: load a world first')
        if target == current:
            raise SupervisorError(SetSimulationState.Response.ALREADY_IN_TARGET_STATE,
                                  f'already in state {_state_name(target)}')
        if target == S.STATE_PLAYING:
            self.stopped = False
            self._set_paused(False)
        elif target == S.STATE_PAUSED:
            if current == S.STATE_STOPPED:
                raise SupervisorError(SetSimulationState.Response.INCORRECT_TRANSITION,
                                      'a stopped simulation cannot be paused; play it first')
            self._set_paused(True)
        elif target == S.STATE_STOPPED:
            self._set_paused(True)
            await self.physics(lambda: self.reset('all'))
            self.stopped = True
        elif target == S.STATE_QUITTING:
            self.quit()
        else:
            raise SupervisorError(SetSimulationState.Response.INCORRECT_TRANSITION,
                                  f'cannot go to state {_state_name(target)}')

    def quit(self) -> None:
        """Answer first, then shut the context down: the node's spin loop ends cleanly."""
        self.quitting = True
        self._set_paused(True)
        context = self.node.context
        timer = threading.Timer(QUIT_DELAY, context.try_shutdown)
        timer.daemon = True
        timer.start()

    @_handler
    async def step_simulation(self, request: Any, response: Any) -> None:
        await self.step(request.steps)

    async def step(self, steps: int) -> float:
        if self.state != SimulationState.STATE_PAUSED:
            raise SupervisorError(Result.RESULT_OPERATION_FAILED,
                                  f'stepping needs a paused simulation; it is '
                                  f'{_state_name(self.state)}')
        if steps < 1:
            raise SupervisorError(Result.RESULT_OPERATION_FAILED, 'steps must be at least 1')
        limit = int(self.node.get_parameter('max_steps_per_call').value)
        if steps > limit:
            raise SupervisorError(Result.RESULT_OPERATION_FAILED,
                                  f'{steps} steps is more than max_steps_per_call ({limit}); '
                                  'use the simulate_steps action for long runs')
        try:
            time = await self.awaitable(self.stepper.request_steps(int(steps)))
        except RuntimeError as err:  # started playing in between, or interrupted
            raise SupervisorError(Result.RESULT_OPERATION_FAILED, str(err)) from None
        assert time is not None  # request_steps completes with the simulation time
        return time

    @_handler
    async def reset_simulation(self, request: Any, response: Any) -> None:
        self.need_world()
        try:
            scope = logic.reset_scope(request.scope)
        except ValueError as err:
            raise SupervisorError(Result.RESULT_FEATURE_UNSUPPORTED, str(err)) from None
        await self.physics(lambda: self.reset(scope))

    def reset(self, scope: ResetScope) -> None:
        """Reset the simulation (physics thread); /clock keeps increasing (time_offset) and
        the bridges follow the entities that come back or go away."""
        before = self.stepper.time
        self.sim.reset(scope)
        if scope != 'spawned':
            self.stepper.time_offset = before - self.sim.time
        if scope in ('all', 'spawned'):
            self.spawned.clear()
        if scope == 'all':
            self.info.clear()
        self._sync_bridges()
        for bridge in self.node.bridges.values():
            bridge.trajectory = None
        self.refresh_tf()

    def _sync_bridges(self) -> None:
        alive = set(self.sim.entity_names())
        for name in [n for n in self.node.bridges if n not in alive]:
            self.remove_bridge(name)
        loaded = {e.name: e for e in self.node.scene.entities}
        for name in self.sim.entity_names():
            if name not in self.node.bridges and name in loaded:
                self.add_bridge(loaded[name])

    def add_bridge(self, entity: Entity) -> None:
        bridge = self.node.add_entity(entity)
        if bridge.is_robot:
            from scene_sim_ros.sim.urdf import entity_to_urdf
            bridge.publish_description(entity_to_urdf(entity))
        extras = getattr(self, 'extras', None)
        if extras is not None:
            extras.add_entity(entity.name)

    def remove_bridge(self, name: str) -> None:
        self.node.remove_entity(name)
        self.info.pop(name, None)
        extras = getattr(self, 'extras', None)
        if extras is not None:
            extras.remove_entity(name)

    # --- entities ---------------------------------------------------------------------------

    def matching(self, filters: Any) -> list[str]:
        """Names of the live entities that pass ``filters`` (physics thread)."""
        try:
            overlaps = logic.bounds_filter(filters.bounds.type,
                                           [_xyz(p) for p in filters.bounds.points])
        except ValueError as err:
            raise SupervisorError(Result.RESULT_OPERATION_FAILED, str(err)) from None
        try:
            name_ok = logic.name_filter(filters.filter)
        except ValueError as err:
            raise SupervisorError(Result.RESULT_OPERATION_FAILED, str(err)) from None
        categories = {c.category for c in filters.categories}
        wanted_tags = list(filters.tags.tags)
        match_all = filters.tags.filter_mode == filters.tags.FILTER_MODE_ALL
        names = []
        for name, bridge in self.node.bridges.items():
            entity = bridge.entity
            if not name_ok(name):
                continue
            if categories and self.category(entity) not in categories:
                continue
            if not logic.tags_match(self.tags(entity), wanted_tags, match_all):
                continue
            if overlaps is not None and not overlaps(bounds.aabb(self.entity_points(name,
                                                                                    'world'))):
                continue
            names.append(name)
        return names

    def tags(self, entity: Entity) -> list[str]:
        if entity.name in self.info:
            return list(self.info[entity.name].tags)
        return logic.entity_tags(entity, entity.name in self.spawned)

    def category(self, entity: Entity) -> int:
        if entity.name in self.info:
            return self.info[entity.name].category
        return CATEGORIES[entity.kind]

    def description(self, entity: Entity) -> str:
        if entity.name in self.info:
            return self.info[entity.name].description
        return (f'{entity.kind}: {len(entity.links)} links, {len(entity.movable_joints)} movable '
                f'joints, {len(entity.sensors)} sensors, {entity.mass:g} kg'
                + (f', from {entity.source}' if entity.source else ''))

    def entity_points(self, name: str, frame: str = 'entity') -> Any:
        """Points enclosing entity ``name``'s collision shapes as they are now, in its own
        frame ('entity') or the world's (physics thread); None where none is bounded."""
        entity = self.entity(name)
        poses = self.sim.link_poses(name)
        if frame == 'entity':
            root = Pose(*self.sim.get_pose(name)).inverse()
            poses = {link: root * pose for link, pose in poses.items()}
        return bounds.entity_points(entity, poses, logic.mesh_file_vertices)

    @_handler
    async def get_entities(self, request: Any, response: Any) -> None:
        response.entities = await self.physics(lambda: self.matching(request.filters))

    @_handler
    async def get_entity_info(self, request: Any, response: Any) -> None:
        def info() -> Entity:
            return self.entity(request.entity)
        entity = await self.physics(info)
        response.info.category.category = self.category(entity)
        response.info.tags = self.tags(entity)
        response.info.description = self.description(entity)

    def fill_state(self, msg: Any, name: str) -> None:
        state = self.world_state(name)
        msg.header.frame_id = self.node.frames.world
        _stamp(msg.header.stamp, self.stepper.time)
        _set_pose(msg.pose, state.pose)
        _set_vector(msg.twist.linear, state.linear)
        _set_vector(msg.twist.angular, state.angular)

    @_handler
    async def get_entity_state(self, request: Any, response: Any) -> None:
        def read() -> None:
            self.entity(request.entity)
            self.fill_state(response.state, request.entity)
        await self.physics(read)

    @_handler
    async def get_entities_states(self, request: Any, response: Any) -> None:
        from simulation_interfaces.msg import EntityState

        def read() -> None:
            names = self.matching(request.filters)
            states = []
            for name in names:
                states.append(EntityState())
                self.fill_state(states[-1], name)
            response.entities, response.states = names, states
        await self.physics(read)

    @_handler
    async def set_entity_state(self, request: Any, response: Any) -> None:
        set_pose, set_twist, set_acceleration = compat.state_flags(request)
        if set_acceleration:
            raise SupervisorError(Result.RESULT_FEATURE_UNSUPPORTED,
                                  'accelerations cannot be set')
        msg = request.state
        try:
            pose = logic.checked_pose(_xyz(msg.pose.position), _xyzw(msg.pose.orientation))
        except ValueError as err:
            if set_pose:
                raise SupervisorError(SetEntityState.Response.INVALID_POSE, str(err)) from None
            pose = Pose()
        try:
            linear = logic.checked_vector(_xyz(msg.twist.linear), 'twist.linear')
            angular = logic.checked_vector(_xyz(msg.twist.angular), 'twist.angular')
        except ValueError as err:
            if set_twist:
                raise SupervisorError(Result.RESULT_OPERATION_FAILED, str(err)) from None
            linear = angular = (0.0, 0.0, 0.0)
        wanted = State(pose, linear, angular)
        await self.physics(lambda: self.apply_state(request.entity, msg.header.frame_id, wanted,
                                                    set_pose, set_twist))

    def apply_state(self, name: str, frame: str, wanted: State, set_pose: bool,
                    set_twist: bool) -> None:
        """Teleport and/or set velocities of ``name`` (physics thread); ``wanted`` is given in
        ``frame``; the parts not set keep their current values. A fixed entity takes only a
        zero twist (ignored), as the standard says."""
        entity = self.entity(name)
        reference = self.frame_state(frame)
        if set_twist and entity.fixed_base:
            if any(wanted.linear) or any(wanted.angular):
                raise SupervisorError(Result.RESULT_OPERATION_FAILED,
                                      f'{name!r} is fixed to the world: it has no velocity to '
                                      'set')
            set_twist = False
        current = self.world_state(name)
        if reference is not None:
            current = logic.relative_state(current, reference)
        state = State(wanted.pose if set_pose else current.pose,
                      wanted.linear if set_twist else current.linear,
                      wanted.angular if set_twist else current.angular)
        if reference is not None:
            state = logic.world_state(state, reference)
        if set_pose:
            self.sim.set_pose(name, state.pose.position, state.pose.orientation)
            self._move_static_frames(name, state.pose)
        if set_twist or (set_pose and not entity.fixed_base):
            # a teleport stops the body (PyBullet): a twist not set keeps its value
            self.sim.set_velocity(name, state.linear, state.angular)
        if set_pose:
            self.refresh_tf()

    def _move_static_frames(self, name: str, pose: Pose) -> None:
        bridge = self.node.bridges[name]
        if bridge.moves:
            return
        from scene_sim_ros.ros.bridge.tf import set_transform
        frames = bridge.frames
        assert frames is not None  # set when the entity was added
        set_transform(frames.root, pose.position, pose.orientation)
        self.node.static_tf.set([frames.root], self.stepper.time)

    # --- spawn and delete -------------------------------------------------------------------

    @_handler
    async def spawn_entity(self, request: Any, response: Any) -> None:
        response.entity_name = await self.spawn(request)

    async def spawn(self, request: Any) -> str:
        """Spawn what a SpawnEntity request describes; the entity's name."""
        codes = SpawnEntity.Response
        self.need_world()
        uri, text = compat.spawn_resource(request)
        if not uri and not text:
            raise SupervisorError(codes.NO_RESOURCE, 'neither uri nor resource_string given')
        entity = await self._load_entity(uri, text)
        name = request.name or entity.name
        if not logic.VALID_NAME.match(name):
            raise SupervisorError(codes.NAME_INVALID, f'{name!r} is not a valid entity name '
                                  '(letters, digits and _, not starting with a digit)')
        namespace = request.entity_namespace.strip('/')
        if namespace and namespace != name:
            raise SupervisorError(codes.NAMESPACE_INVALID, f'topics of an entity live under its '
                                  f'name; leave entity_namespace empty or set it to {name!r}')
        try:
            pose = logic.checked_pose(_xyz(request.initial_pose.pose.position),
                                      _xyzw(request.initial_pose.pose.orientation))
        except ValueError as err:
            raise SupervisorError(codes.INVALID_POSE, str(err)) from None
        frame = request.initial_pose.header.frame_id
        name = await self.physics(
            lambda: self.add(entity, name, request.allow_renaming, frame, pose))
        assert isinstance(name, str)
        return name

    async def _load_entity(self, uri: str, text: str) -> Entity:
        codes = SpawnEntity.Response
        try:
            entity = await self.awaitable(self.loader.submit(uri, text))
        except SceneLoadError as err:
            raise SupervisorError(codes.RESOURCE_PARSE_ERROR, str(err)) from None
        except FileNotFoundError as err:
            raise SupervisorError(Result.RESULT_NOT_FOUND, str(err)) from None
        except ValueError as err:
            raise SupervisorError(codes.UNSUPPORTED_FORMAT, str(err)) from None
        except BrokenProcessPool:
            raise SupervisorError(codes.RESOURCE_PARSE_ERROR, 'the scene loader process died '
                                  'reading it (out of memory or a crash)') from None
        assert isinstance(entity, Entity)  # the loader returns an Entity or raises
        return entity

    def add(self, entity: Entity, name: str, allow_renaming: bool, frame: str,
            pose: Pose) -> str:
        """Spawn on the physics thread: unique name, pose in the world, simulation, bridge."""
        taken = set(self.sim.entity_names()) | set(self.node.bridges)
        if name in taken and not allow_renaming:
            raise SupervisorError(SpawnEntity.Response.NAME_NOT_UNIQUE,
                                  f'an entity named {name!r} exists already')
        name = logic.unique_name(name, taken)
        reference = self.frame_state(frame)
        if reference is not None:
            pose = reference.pose * pose
        entity = logic.placed(entity, name, pose)
        self.sim.add_entity(entity)
        try:
            self.add_bridge(entity)
        except BaseException:
            self.sim.remove_entity(name)
            if name in self.node.bridges:
                self.remove_bridge(name)
            raise
        self.spawned.add(name)
        return name

    @_handler
    async def delete_entity(self, request: Any, response: Any) -> None:
        def delete() -> None:
            self.entity(request.entity)
            self.remove_bridge(request.entity)
            self.sim.remove_entity(request.entity)
            self.spawned.discard(request.entity)
        await self.physics(delete)

    def destroy(self) -> None:
        for service in self.services:
            self.node.destroy_service(service)
        self.services.clear()
        self.loader.shutdown()


STATE_NAMES = ('stopped', 'playing', 'paused', 'quitting', 'no_world', 'loading_world')


def _state_name(state: int) -> str:
    return STATE_NAMES[state] if state < len(STATE_NAMES) else f'unknown ({state})'


def _xyz(v: Any) -> tuple[float, float, float]:
    return (v.x, v.y, v.z)


def _xyzw(q: Any) -> tuple[float, float, float, float]:
    return (q.x, q.y, q.z, q.w)


def _set_vector(msg: Any, values: Any) -> None:
    msg.x, msg.y, msg.z = (float(v) for v in values)


def _set_pose(msg: Any, pose: Pose) -> None:
    _set_vector(msg.position, pose.position)
    q = msg.orientation
    q.x, q.y, q.z, q.w = (float(v) for v in pose.orientation)


def _stamp(stamp: Any, t: float) -> None:
    from scene_sim_ros.ros.bridge.conversions import set_stamp
    set_stamp(stamp, t)
