"""What the scene offers beyond its entities' states: ``get_spawnables``, ``spawn_entities``,
``get_entity_bounds``, ``get_named_poses``, ``get_named_pose_bounds`` and ``set_entity_info``
(simulation_interfaces; semantics in docs/supervisor.md).

Spawnables are the entities of every available world (``file:///...world#entity``, what
``spawn_entity`` takes), each with its box; bounds are axis-aligned boxes of the collision
shapes in the entity's frame (:mod:`scene_sim_ros.scene.bounds`); named poses come from the
loaded world's start poses and the ``named_poses`` YAML file (:mod:`.named_poses`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import simulation_interfaces.srv
from geometry_msgs.msg import Vector3
from simulation_interfaces.msg import Bounds, NamedPose, Result, Spawnable, SpawnResult
from simulation_interfaces.srv import SpawnEntities

from scene_sim_ros.ros.option_parameters import declare_options
from scene_sim_ros.ros.supervisor import compat, logic, named_poses
from scene_sim_ros.ros.supervisor.catalog import SCENE_SERVICES
from scene_sim_ros.ros.supervisor.logic import EntityInfoValues, SupervisorError
from scene_sim_ros.ros.supervisor.services import _handler, _set_pose
from scene_sim_ros.ros.supervisor.world_catalog import is_local_source
from scene_sim_ros.scene import bounds
from scene_sim_ros.scene.bounds import AABB

if TYPE_CHECKING:
    from scene_sim_ros.ros.supervisor.services import Supervisor
    from scene_sim_ros.ros.supervisor.world_services import WorldServices

PARAMETER = 'named_poses'
CATEGORY_VALUES = (0, 1, 2, 4, 5)
"""EntityCategory: OBJECT, ROBOT, HUMAN, DYNAMIC_OBJECT, STATIC_OBJECT."""


class SceneServices:
    def __init__(self, supervisor: Supervisor, worlds: WorldServices):
        self.supervisor = supervisor
        self.worlds = worlds
        node = supervisor.node
        declare_options(node, 'scene_services')  # PARAMETER
        self.services = [
            node.create_service(getattr(simulation_interfaces.srv, type_name), name,
                                getattr(self, name), callback_group=supervisor.callback_group)
            for name, type_name in SCENE_SERVICES]

    # --- spawnables -------------------------------------------------------------------------

    @_handler
    async def get_spawnables(self, request: Any, response: Any) -> None:
        catalog = self.worlds.catalog
        local = [s for s in request.sources if is_local_source(s)]
        listed, _, errors = catalog.listed(local)
        errors += [f'{s}: not a local folder (a path or file://)' for s in request.sources
                   if s not in local]
        await self.worlds.describe(listed)
        spawnables, seen = [], set()
        for _, path, _ in listed:
            for entity in catalog.facts(path).entities:
                uri = f'{path.as_uri()}#{entity.name}'
                if entity.kind == 'static' or uri in seen:
                    continue
                seen.add(uri)
                spawnables.append(Spawnable(description=f'{entity.description} ({path.name})',
                                            spawn_bounds=_bounds(entity.box),
                                            **compat.spawnable_fields(uri)))
        response.spawnables = spawnables
        # unrecognised sources are named but do not fail the call (GetSpawnables.srv)
        response.result.error_message = '; '.join(errors)

    @_handler
    async def spawn_entities(self, request: Any, response: Any) -> None:
        results = []
        for spawn in request.spawn_requests:
            result = SpawnResult()
            try:
                result.entity_name = await self.supervisor.spawn(spawn)
                result.result.result = Result.RESULT_OK
            except SupervisorError as err:
                result.result.result = err.code
                result.result.error_message = str(err)
            results.append(result)
        response.results = results
        failed = [r for r in results if r.result.result != Result.RESULT_OK]
        if failed:
            raise SupervisorError(SpawnEntities.Response.ENTITIES_SPAWN_FAILED,
                                  f'{len(failed)} of {len(results)} spawn requests failed: '
                                  + '; '.join(r.result.error_message for r in failed))

    # --- bounds -----------------------------------------------------------------------------

    @_handler
    async def get_entity_bounds(self, request: Any, response: Any) -> None:
        supervisor = self.supervisor
        box = await supervisor.physics(
            lambda: bounds.aabb(supervisor.entity_points(request.entity)))
        response.bounds = _bounds(box)

    # --- named poses ------------------------------------------------------------------------

    def named(self) -> list[named_poses.NamedPoseValues]:
        node = self.supervisor.node
        world = self.worlds.current
        starts = named_poses.scene_poses(node.scene, world.name) if world else []
        path = str(node.get_parameter(PARAMETER).value or '')
        try:
            extra = named_poses.poses_file(path) if path else []
        except named_poses.NamedPoseError as err:
            raise SupervisorError(Result.RESULT_OPERATION_FAILED, str(err)) from None
        return named_poses.merged(starts, extra)

    @_handler
    async def get_named_poses(self, request: Any, response: Any) -> None:
        wanted, match_all = list(request.tags.tags), request.tags.filter_mode == 1
        poses = []
        for values in self.named():
            if not logic.tags_match(values.tags, wanted, match_all):
                continue
            pose = NamedPose(name=values.name, description=values.description,
                             tags=list(values.tags))
            _set_pose(pose.pose, values.pose)
            poses.append(pose)
        response.poses = poses

    @_handler
    async def get_named_pose_bounds(self, request: Any, response: Any) -> None:
        by_name = {p.name: p for p in self.named()}
        if request.name not in by_name:
            raise SupervisorError(Result.RESULT_NOT_FOUND, f'no named pose {request.name!r}; '
                                  'named poses: ' + ', '.join(sorted(by_name)))
        response.bounds = _bounds(by_name[request.name].box)

    # --- entity info ------------------------------------------------------------------------

    @_handler
    async def set_entity_info(self, request: Any, response: Any) -> None:
        info = request.info
        category = info.category.category
        if category not in CATEGORY_VALUES:
            raise SupervisorError(Result.RESULT_OPERATION_FAILED,
                                  f'unknown entity category {category}')
        values = EntityInfoValues(category, info.description, tuple(info.tags))
        supervisor = self.supervisor

        def store() -> None:
            supervisor.entity(request.entity)
            supervisor.info[request.entity] = values
        await supervisor.physics(store)

    def destroy(self) -> None:
        for service in self.services:
            self.supervisor.node.destroy_service(service)
        self.services.clear()


def _bounds(box: AABB | None) -> Any:
    kind, points = logic.bounds_points(box)
    return Bounds(type=kind, points=[Vector3(x=float(x), y=float(y), z=float(z))
                                     for x, y, z in points])

