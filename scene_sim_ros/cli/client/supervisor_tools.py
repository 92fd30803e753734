"""Simulation control from the command line through the node's ``simulation_interfaces``
services (``pause``, ``play``, ``step``, ``reset``, ``state``, ``entities``, ``spawn``,
``delete``, ``set-pose``), as ``ros2 service call`` would, in one word each.

Service names are relative to the simulation's namespace (``/step_simulation``, or
``/sim/step_simulation`` for ``run --namespace /sim``). A request the simulation refuses is a
:class:`UserError` naming the result code and the simulation's message (exit 2).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from scene_sim_ros.cli.client.session import UserError, call, client_node, resolve
from scene_sim_ros.cli.client.values import BadValue, parse_pose

RESULT_NAMES = {0: 'FEATURE_UNSUPPORTED', 1: 'OK', 2: 'NOT_FOUND', 3: 'INCORRECT_STATE',
                4: 'OPERATION_FAILED'}
STATE_NAMES = {0: 'stopped', 1: 'playing', 2: 'paused', 3: 'quitting', 4: 'no world',
               5: 'loading world'}
RESET_SCOPES = {'all': 255, 'state': 2, 'spawned': 4}
CATEGORY_NAMES = {0: 'object', 1: 'robot', 2: 'human', 4: 'dynamic', 5: 'static'}


class Supervisor:
    """Calls to the supervisor services of the simulation under ``namespace``."""

    def __init__(self, node: Any, namespace: str = '/', timeout: float = 10.0) -> None:
        self.node, self.namespace, self.timeout = node, namespace, timeout

    def call(self, service: str, srv_type: Any, request: Any, *,
             codes: dict[int, str] | None = None) -> Any:
        """Call ``service``; :class:`UserError` unless the result is OK."""
        response = call(self.node, srv_type, resolve(self.namespace, service), request,
                        self.timeout)
        result = response.result
        if result.result != result.RESULT_OK:
            name = (codes or {}).get(result.result) or RESULT_NAMES.get(result.result,
                                                                        str(result.result))
            raise UserError(f'{service}: {name}'
                            + (f': {result.error_message}' if result.error_message else ''))
        return response


def _set_state(namespace: str, state: int, timeout: float) -> int:
    from simulation_interfaces.msg import SimulationState
    from simulation_interfaces.srv import SetSimulationState
    with client_node('scene_sim_ros_state') as node:
        request = SetSimulationState.Request(state=SimulationState(state=state))
        try:
            Supervisor(node, namespace, timeout).call(
                'set_simulation_state', SetSimulationState, request,
                codes={101: 'ALREADY_IN_TARGET_STATE', 102: 'STATE_TRANSITION_ERROR',
                       103: 'INCORRECT_TRANSITION'})
        except UserError as err:
            if 'ALREADY_IN_TARGET_STATE' not in str(err):
                raise
            print(f'already {STATE_NAMES[state]}')
            return 0
    print(STATE_NAMES[state])
    return 0


def pause(namespace: str = '/', timeout: float = 10.0) -> int:
    return _set_state(namespace, 2, timeout)


def play(namespace: str = '/', timeout: float = 10.0) -> int:
    return _set_state(namespace, 1, timeout)


def step(steps: int, namespace: str = '/', timeout: float = 60.0) -> int:
    from simulation_interfaces.srv import StepSimulation
    if steps < 1:
        raise UserError(f'step: N must be >= 1, got {steps}')
    with client_node('scene_sim_ros_step') as node:
        Supervisor(node, namespace, timeout).call(
            'step_simulation', StepSimulation, StepSimulation.Request(steps=steps))
    print(f'stepped {steps} step{"s" if steps != 1 else ""}')
    return 0


def reset(scope: str = 'all', namespace: str = '/', timeout: float = 30.0) -> int:
    from simulation_interfaces.srv import ResetSimulation
    with client_node('scene_sim_ros_reset') as node:
        Supervisor(node, namespace, timeout).call(
            'reset_simulation', ResetSimulation,
            ResetSimulation.Request(scope=RESET_SCOPES[scope]))
    print(f'reset ({scope})')
    return 0


def state(namespace: str = '/', as_json: bool = False, timeout: float = 10.0) -> int:
    from simulation_interfaces.srv import GetSimulationState
    with client_node('scene_sim_ros_state') as node:
        response = Supervisor(node, namespace, timeout).call(
            'get_simulation_state', GetSimulationState, GetSimulationState.Request())
    code = response.state.state
    name = STATE_NAMES.get(code, str(code))
    print(json.dumps({'state': name, 'code': code}) if as_json else name)
    return 0


def entities(namespace: str = '/', name_filter: str = '', as_json: bool = False,
             timeout: float = 10.0) -> int:
    """Every entity with its category and world pose (position, quaternion xyzw)."""
    from simulation_interfaces.msg import EntityFilters
    from simulation_interfaces.srv import GetEntitiesStates, GetEntityInfo
    rows = []
    with client_node('scene_sim_ros_entities') as node:
        supervisor = Supervisor(node, namespace, timeout)
        response = supervisor.call('get_entities_states', GetEntitiesStates,
                                   GetEntitiesStates.Request(
                                       filters=EntityFilters(filter=name_filter)))
        for name, entity_state in zip(response.entities, response.states):
            info = supervisor.call('get_entity_info', GetEntityInfo,
                                   GetEntityInfo.Request(entity=name)).info
            p, q = entity_state.pose.position, entity_state.pose.orientation
            rows.append({'name': name,
                         'category': CATEGORY_NAMES.get(info.category.category,
                                                        str(info.category.category)),
                         'tags': list(info.tags),
                         'position': [p.x, p.y, p.z], 'orientation': [q.x, q.y, q.z, q.w]})
    if as_json:
        print(json.dumps(rows))
        return 0
    for row in rows:
        x, y, z = row['position']
        print(f'{row["name"]:<20} {row["category"]:<8} x {x:8.3f}  y {y:8.3f}  z {z:8.3f}   '
              f'{",".join(row["tags"])}')
    return 0


def resource(source: str) -> tuple[str, str]:
    """(uri, resource_string) for ``spawn``'s SOURCE: a SimRobot fragment as text (starts with
    ``<``), a URI (``file://...``), or a path with an optional ``#entity`` (made absolute, so
    the node finds it whatever its working directory)."""
    if source.lstrip().startswith('<'):
        return '', source
    if '://' in source:
        return source, ''
    path, sep, entity = source.partition('#')
    file = Path(path).expanduser()
    if not file.is_file():
        raise UserError(f'spawn: no file {path}')
    return file.resolve().as_uri() + (sep + entity), ''


def spawn(name: str, source: str, pose: list[str] | None = None, *, frame: str = '',
          allow_renaming: bool = False, namespace: str = '/', timeout: float = 30.0) -> int:
    from geometry_msgs.msg import PoseStamped
    from simulation_interfaces.srv import SpawnEntity

    from scene_sim_ros.ros.supervisor import compat
    uri, text = resource(source)
    request = SpawnEntity.Request(name=name, allow_renaming=allow_renaming,
                                  **compat.spawn_resource_fields(uri, text),
                                  initial_pose=_pose_stamped(PoseStamped, pose, frame))
    with client_node('scene_sim_ros_spawn') as node:
        response = Supervisor(node, namespace, timeout).call(
            'spawn_entity', SpawnEntity, request,
            codes={101: 'NAME_NOT_UNIQUE', 102: 'NAME_INVALID', 103: 'UNSUPPORTED_FORMAT',
                   104: 'NO_RESOURCE', 105: 'NAMESPACE_INVALID', 106: 'RESOURCE_PARSE_ERROR',
                   107: 'MISSING_ASSETS', 108: 'UNSUPPORTED_ASSETS', 109: 'INVALID_POSE'})
    print(f'spawned {response.entity_name}')
    return 0


def delete(name: str, namespace: str = '/', timeout: float = 30.0) -> int:
    from simulation_interfaces.srv import DeleteEntity
    with client_node('scene_sim_ros_delete') as node:
        Supervisor(node, namespace, timeout).call('delete_entity', DeleteEntity,
                                                  DeleteEntity.Request(entity=name))
    print(f'deleted {name}')
    return 0


def set_pose(name: str, pose: list[str], *, frame: str = '', namespace: str = '/',
             timeout: float = 10.0) -> int:
    from geometry_msgs.msg import PoseStamped
    from simulation_interfaces.msg import EntityState
    from simulation_interfaces.srv import SetEntityState

    from scene_sim_ros.ros.supervisor import compat
    stamped = _pose_stamped(PoseStamped, pose, frame)
    request = SetEntityState.Request(  # 1.x has no flags: it sets the (zero) twist too
        entity=name, **compat.state_flag_fields(pose=True),
        state=EntityState(header=stamped.header, pose=stamped.pose))
    with client_node('scene_sim_ros_set_pose') as node:
        Supervisor(node, namespace, timeout).call('set_entity_state', SetEntityState, request,
                                                  codes={101: 'INVALID_POSE'})
    p = stamped.pose.position
    print(f'{name} at x {p.x:g} y {p.y:g} z {p.z:g}' + (f' in {frame}' if frame else ''))
    return 0


def _pose_stamped(cls: Any, values: list[str] | None, frame: str) -> Any:
    msg = cls()
    msg.header.frame_id = frame
    if values is None:
        msg.pose.orientation.w = 1.0
        return msg
    try:
        position, quaternion = parse_pose(values)
    except BadValue as err:
        raise UserError(str(err)) from None
    msg.pose.position.x, msg.pose.position.y, msg.pose.position.z = position
    o = msg.pose.orientation
    o.x, o.y, o.z, o.w = quaternion
    return msg
