"""``scene-sim-ros worlds | load | unload | spawnables | bounds | poses``: the worlds, spawnables,
bounds and named poses of the simulation's ``simulation_interfaces`` services, one word each
(:mod:`.supervisor_tools` has the others)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from scene_sim_ros.cli.client.session import UserError, client_node
from scene_sim_ros.cli.client.supervisor_tools import Supervisor

LOAD_CODES = {101: 'UNSUPPORTED_FORMAT', 102: 'NO_RESOURCE', 103: 'RESOURCE_PARSE_ERROR',
              104: 'MISSING_ASSETS', 105: 'UNSUPPORTED_ASSETS', 106: 'UNSUPPORTED_ELEMENTS'}


def _print(rows: list[dict[str, Any]], as_json: bool, line: Any) -> int:
    if as_json:
        print(json.dumps(rows))
    else:
        for row in rows:
            print(line(row))
    return 0


def worlds(tags: list[str], namespace: str, as_json: bool, timeout: float) -> int:
    """The worlds load_world can load (get_available_worlds), those with any of ``tags``."""
    from simulation_interfaces.msg import TagsFilter
    from simulation_interfaces.srv import GetAvailableWorlds
    with client_node('scene_sim_ros_worlds') as node:
        response = Supervisor(node, namespace, timeout).call(
            'get_available_worlds', GetAvailableWorlds,
            GetAvailableWorlds.Request(filter=TagsFilter(tags=tags), continue_on_error=True),
            codes={101: 'DEFAULT_SOURCES_FAILED'})
    rows = [{'name': w.name, 'uri': w.world_resource.uri, 'description': w.description,
             'tags': list(w.tags)} for w in response.worlds]
    return _print(rows, as_json, lambda r: f'{r["name"]:<20} {r["description"]}\n'
                                           f'{"":<20} {r["uri"]}  [{", ".join(r["tags"])}]')


def load(world: str, namespace: str, timeout: float) -> int:
    """Load a world: a name from ``worlds``, a scene file (made absolute) or a URI."""
    from simulation_interfaces.srv import LoadWorld

    from scene_sim_ros.ros.supervisor.compat import world_resource_fields
    path = Path(world).expanduser()
    uri = path.resolve().as_uri() if '://' not in world and path.is_file() else world
    with client_node('scene_sim_ros_load') as node:
        response = Supervisor(node, namespace, timeout).call(
            'load_world', LoadWorld, LoadWorld.Request(**world_resource_fields(uri, '')),
            codes=LOAD_CODES)
    print(f'loaded {response.world.name}')
    return 0


def unload(namespace: str, timeout: float) -> int:
    from simulation_interfaces.srv import UnloadWorld
    with client_node('scene_sim_ros_unload') as node:
        Supervisor(node, namespace, timeout).call('unload_world', UnloadWorld,
                                                  UnloadWorld.Request(),
                                                  codes={101: 'NO_WORLD_LOADED'})
    print('unloaded: no world')
    return 0


def spawnables(namespace: str, as_json: bool, timeout: float) -> int:
    """What spawn accepts by uri (get_spawnables), with each one's box."""
    from simulation_interfaces.srv import GetSpawnables

    from scene_sim_ros.ros.supervisor.compat import spawnable_uri
    with client_node('scene_sim_ros_spawnables') as node:
        response = Supervisor(node, namespace, timeout).call(
            'get_spawnables', GetSpawnables, GetSpawnables.Request())
    rows = [{'uri': spawnable_uri(s), 'description': s.description,
             'bounds': _bounds(s.spawn_bounds)} for s in response.spawnables]
    return _print(rows, as_json, lambda r: f'{r["uri"]}\n    {r["description"]}')


def bounds(entity: str, namespace: str, as_json: bool, timeout: float) -> int:
    """An entity's box in its own frame (get_entity_bounds)."""
    from simulation_interfaces.srv import GetEntityBounds
    with client_node('scene_sim_ros_bounds') as node:
        response = Supervisor(node, namespace, timeout).call(
            'get_entity_bounds', GetEntityBounds, GetEntityBounds.Request(entity=entity))
    box = _bounds(response.bounds)
    if as_json:
        print(json.dumps(box))
    elif box is None:
        print(f'{entity}: unbounded')
    else:
        print(f'{entity}: lower {box["lower"]}  upper {box["upper"]} (m, its own frame)')
    return 0


def poses(tags: list[str], namespace: str, as_json: bool, timeout: float) -> int:
    """The named poses (get_named_poses), those with any of ``tags``."""
    from simulation_interfaces.msg import TagsFilter
    from simulation_interfaces.srv import GetNamedPoses
    with client_node('scene_sim_ros_poses') as node:
        response = Supervisor(node, namespace, timeout).call(
            'get_named_poses', GetNamedPoses, GetNamedPoses.Request(tags=TagsFilter(tags=tags)))
    rows = []
    for pose in response.poses:
        p, q = pose.pose.position, pose.pose.orientation
        rows.append({'name': pose.name, 'description': pose.description, 'tags': list(pose.tags),
                     'position': [p.x, p.y, p.z], 'orientation': [q.x, q.y, q.z, q.w]})
    return _print(rows, as_json, lambda r: (
        f'{r["name"]:<20} x {r["position"][0]:8.3f}  y {r["position"][1]:8.3f}  '
        f'z {r["position"][2]:8.3f}   {r["description"]} [{", ".join(r["tags"])}]'))


def _bounds(msg: Any) -> dict[str, list[float]] | None:
    if msg.type == 0:
        return None
    if msg.type != 1 or len(msg.points) != 2:
        raise UserError(f'bounds of type {msg.type} with {len(msg.points)} points: not a box')
    upper, lower = ([p.x, p.y, p.z] for p in msg.points)
    return {'lower': lower, 'upper': upper}
