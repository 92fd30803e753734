"""Worlds are scene files: ``get_available_worlds``, ``get_current_world``, ``load_world`` and
``unload_world`` of ``simulation_interfaces`` (which files: :mod:`.world_catalog`).

A world is parsed in the loader process while the current one keeps running (a file that does
not load changes nothing); the swap happens on the physics thread between two steps: every
entity's topics and frames go, the simulation is rebuilt from the new scene, the new entities'
topics and frames come. Time goes on: ``/clock`` continues from where it was (as after a
reset), so tf2 buffers and ``use_sim_time`` nodes see no jump back. The play/pause state is
kept (``.srv``: "left in a Stopped state"; here the issue's choice, docs/supervisor.md).
``unload_world`` leaves an empty simulation, paused: ``STATE_NO_WORLD``, ``/clock`` repeated
at the time of unloading.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import simulation_interfaces.srv
from simulation_interfaces.msg import Result, WorldResource
from simulation_interfaces.srv import GetAvailableWorlds, GetCurrentWorld, LoadWorld

from scene_sim_ros.errors import SceneLoadError, UnsupportedFormatError
from scene_sim_ros.ros.option_parameters import declare_options
from scene_sim_ros.ros.supervisor import compat, logic
from scene_sim_ros.ros.supervisor.catalog import WORLD_SERVICES
from scene_sim_ros.ros.supervisor.logic import SupervisorError
from scene_sim_ros.ros.supervisor.services import _handler
from scene_sim_ros.ros.supervisor.spawn_loader import BrokenProcessPool
from scene_sim_ros.ros.supervisor.world_catalog import (
    OutsideWorldFolders,
    World,
    WorldCatalog,
    describe_all,
    is_local_source,
    scene_description,
)
from scene_sim_ros.scene import Scene

if TYPE_CHECKING:
    from scene_sim_ros.ros.supervisor.services import Supervisor

PARAMETER = 'worlds.paths'

MISSING_ASSET = re.compile(r'\b(not found|not available locally)\b')
"""How the loaders word a warning about a file a scene refers to and that is not there (a mesh,
a texture url, a PROTO, an included robot): test_supervisor_worlds holds them to it."""


def load_world_scene(path: Path) -> Scene:
    """The scene of a world file (run in the loader process)."""
    from scene_sim_ros.formats import load_scene
    return load_scene(path)


class WorldServices:
    def __init__(self, supervisor: Supervisor):
        self.supervisor = supervisor
        node = supervisor.node
        declare_options(node, 'worlds')  # PARAMETER
        self.catalog = WorldCatalog(node.get_parameter(PARAMETER).value or [])
        scene = node.scene
        facts = scene_description(scene, node.scene_path)
        self.current: World | None = World(node.scene_path.stem, node.scene_path.resolve(),
                                           facts.text, facts.tags)
        self.services = [
            node.create_service(getattr(simulation_interfaces.srv, type_name), name,
                                getattr(self, name), callback_group=supervisor.callback_group)
            for name, type_name in WORLD_SERVICES]

    # --- listing ----------------------------------------------------------------------------

    @_handler
    async def get_available_worlds(self, request: Any, response: Any) -> None:
        sources = list(request.additional_sources)
        if request.offline_only:  # every source here is local: skip any other kind
            sources = [s for s in sources if is_local_source(s)]
        listed, default_errors, source_errors = self.catalog.listed(sources)
        await self.describe(listed)
        wanted, match_all = list(request.filter.tags), request.filter.filter_mode == 1
        worlds = [w for w in self.catalog.worlds(listed)
                  if logic.tags_match(w.tags, wanted, match_all)]
        errors = default_errors + source_errors
        if errors and not (request.continue_on_error and worlds):
            code = (GetAvailableWorlds.Response.DEFAULT_SOURCES_FAILED if default_errors
                    else Result.RESULT_OPERATION_FAILED)
            raise SupervisorError(code, '; '.join(errors))
        response.worlds = [_resource(w) for w in worlds]
        response.result.error_message = '; '.join(errors)

    async def describe(self, listed: Any) -> None:
        """Parse the files of ``listed`` not described yet, in the loader process."""
        unknown = self.catalog.unknown(listed)
        if unknown:
            self.catalog.learn(unknown, await self.supervisor.awaitable(  # type: ignore[arg-type]
                self.supervisor.loader.run(describe_all, unknown)))

    @_handler
    async def get_current_world(self, request: Any, response: Any) -> None:
        if self.current is None:
            raise SupervisorError(GetCurrentWorld.Response.NO_WORLD_LOADED,
                                  'no world is loaded (load_world loads one)')
        response.world = _resource(self.current)

    # --- loading ----------------------------------------------------------------------------

    @_handler
    async def load_world(self, request: Any, response: Any) -> None:
        codes = LoadWorld.Response
        uri, text = compat.world_resource(request)
        if not uri and not text:
            raise SupervisorError(codes.NO_RESOURCE, 'neither uri nor resource_string given')
        supervisor = self.supervisor
        if supervisor.loading:
            raise SupervisorError(Result.RESULT_OPERATION_FAILED,
                                  'another load_world is in progress')
        name, path = self._world_file(uri, text)
        supervisor.loading = True
        try:
            scene = await self._parse(path)
            missing = [w for w in scene.warnings if MISSING_ASSET.search(w)]
            if missing and not request.ignore_missing_or_unsupported_assets:
                raise SupervisorError(codes.MISSING_ASSETS, '; '.join(missing[:5]))
            if request.fail_on_unsupported_element and scene.warnings:
                raise SupervisorError(codes.UNSUPPORTED_ELEMENTS, '; '.join(scene.warnings[:5]))
            facts = scene_description(scene, None if text else path)
            world = World(name if uri else scene.name or 'resource_string', path, facts.text,
                          facts.tags, resource_string=text)
            await supervisor.physics(lambda: self.swap(scene, world))
        finally:
            supervisor.loading = False
        response.world = _resource(world)

    def _world_file(self, uri: str, text: str) -> tuple[str, Path]:
        codes = LoadWorld.Response
        try:
            if uri:
                return self.catalog.resolve(uri)
            return 'resource_string', self.catalog.scratch_file(text)
        except OutsideWorldFolders as err:
            raise SupervisorError(Result.RESULT_OPERATION_FAILED, str(err)) from None
        except FileNotFoundError as err:
            raise SupervisorError(Result.RESULT_NOT_FOUND, str(err)) from None
        except ValueError as err:
            raise SupervisorError(codes.UNSUPPORTED_FORMAT, str(err)) from None

    async def _parse(self, path: Path) -> Scene:
        codes = LoadWorld.Response
        supervisor = self.supervisor
        try:
            scene = await supervisor.awaitable(supervisor.loader.run(load_world_scene, path))
        except UnsupportedFormatError as err:
            raise SupervisorError(codes.UNSUPPORTED_FORMAT, str(err)) from None
        except SceneLoadError as err:
            raise SupervisorError(codes.RESOURCE_PARSE_ERROR, str(err)) from None
        except BrokenProcessPool:
            raise SupervisorError(codes.RESOURCE_PARSE_ERROR, 'the scene loader process died '
                                  'reading it (out of memory or a crash)') from None
        assert isinstance(scene, Scene)
        return scene

    def swap(self, scene: Scene, world: World) -> None:
        """Replace the world (physics thread); time goes on, play/pause stays."""
        supervisor, node = self.supervisor, self.supervisor.node
        self.rebuild(scene)
        node.scene_path = world.path
        node.world_changed()
        for entity in scene.entities:
            supervisor.add_bridge(entity)
        node.republish_robot_description()
        if self.current is None:  # loaded after an unload: play again if it played then
            supervisor.resume()
        self.current = world
        supervisor.refresh_tf()
        node.get_logger().info(f'world {world.name}: {len(scene.entities)} entities '
                               f'({world.uri or "resource_string"})')

    def rebuild(self, scene: Scene) -> None:
        """Every entity's bridge gone, the simulation rebuilt from ``scene`` with time going on
        (physics thread)."""
        supervisor = self.supervisor
        for name in list(supervisor.node.bridges):
            supervisor.remove_bridge(name)
        before = supervisor.stepper.time
        supervisor.sim.replace_scene(scene)
        supervisor.stepper.time_offset = before - supervisor.sim.time
        supervisor.node.scene = scene
        supervisor.spawned.clear()

    @_handler
    async def unload_world(self, request: Any, response: Any) -> None:
        if self.current is None:
            raise SupervisorError(simulation_interfaces.srv.UnloadWorld.Response.NO_WORLD_LOADED,
                                  'no world is loaded')
        supervisor = self.supervisor
        if supervisor.loading:
            raise SupervisorError(Result.RESULT_OPERATION_FAILED, 'a load_world is in progress')
        supervisor.suspend()
        empty = Scene(name='', entities=(), step_length=supervisor.sim.step_length)

        def unload() -> None:
            self.rebuild(empty)
            self.current = None
        await supervisor.physics(unload)
        supervisor.node.get_logger().info('world unloaded')

    def destroy(self) -> None:
        for service in self.services:
            self.supervisor.node.destroy_service(service)
        self.services.clear()
        self.catalog.close()


def _resource(world: World) -> Any:
    return WorldResource(name=world.name, world_resource=_resource_msg(world),
                         description=world.description, tags=list(world.tags))


def _resource_msg(world: World) -> Any:
    from simulation_interfaces.msg import Resource
    return Resource(uri=world.uri, resource_string=world.resource_string)

