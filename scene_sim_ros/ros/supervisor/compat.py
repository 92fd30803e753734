"""What differs between the ``simulation_interfaces`` releases the node works with, read off
the generated classes' field lists, never from a version number: the node serves whichever
release is installed (a ROS 2 distribution's package, or the one ./dev.sh built from
interfaces/simulation_interfaces; README "Interface packages").

- 1.x (Jazzy 1.5.1, Kilted 1.6.1): ``SpawnEntity.Request`` has ``uri`` and ``resource_string``;
  ``SetEntityState`` sets the whole state (pose and twist; the acceleration "may be ignored").
- 2.x (2.0.0 on; 2.1.0 is the newest release): ``SpawnEntity.Request.entity_resource`` (a
  ``Resource``) and ``SetEntityState.Request.set_pose/set_twist/set_acceleration`` flags;
  ``LoadWorld.Request.world_resource`` and ``Spawnable.entity_resource`` likewise.

Everything else the node uses (features, states, results, the other services, the action) is
the same in both; so is what ``get_simulator_features`` advertises.
"""

from __future__ import annotations

from typing import Any

from simulation_interfaces.msg import Spawnable
from simulation_interfaces.srv import LoadWorld, SetEntityState, SpawnEntity


def _has_field(cls: Any, name: str) -> bool:
    return name in cls.get_fields_and_field_types()


STATE_FLAGS = _has_field(SetEntityState.Request, 'set_pose')
"""SetEntityState has set_pose, set_twist and set_acceleration (2.x)."""

RESOURCE_MSG = _has_field(SpawnEntity.Request, 'entity_resource')
"""SpawnEntity names its resource with a Resource message (2.x), not uri/resource_string."""

WORLD_RESOURCE_MSG = _has_field(LoadWorld.Request, 'world_resource')
"""LoadWorld names its world with a Resource message (2.x), not uri/resource_string."""

SPAWNABLE_RESOURCE_MSG = _has_field(Spawnable, 'entity_resource')

GENERATION = '2.x' if STATE_FLAGS and RESOURCE_MSG else '1.x'
"""The installed definitions' major release, for people (custom_info, logs)."""


def state_flags(request: Any) -> tuple[bool, bool, bool]:
    """(set_pose, set_twist, set_acceleration) of a SetEntityState request. A 1.x request sets
    the pose and the twist; its acceleration is ignored, as 1.x allows."""
    if STATE_FLAGS:
        return bool(request.set_pose), bool(request.set_twist), bool(request.set_acceleration)
    return True, True, False


def state_flag_fields(*, pose: bool, twist: bool = False) -> dict[str, bool]:
    """Keyword arguments of a SetEntityState request choosing what to set, where the installed
    release has the flags (none with 1.x: it sets pose and twist)."""
    return {'set_pose': pose, 'set_twist': twist} if STATE_FLAGS else {}


def spawn_resource(request: Any) -> tuple[str, str]:
    """(uri, resource_string) of a SpawnEntity request, or of a SpawnEntities request's
    ``SpawnEntity`` message (which has a Resource in every release)."""
    resource = getattr(request, 'entity_resource', None)
    if resource is not None:
        return resource.uri, resource.resource_string
    return request.uri, request.resource_string


def spawn_resource_fields(uri: str, text: str) -> dict[str, Any]:
    """Keyword arguments of a SpawnEntity request naming its resource."""
    if RESOURCE_MSG:
        from simulation_interfaces.msg import Resource
        return {'entity_resource': Resource(uri=uri, resource_string=text)}
    return {'uri': uri, 'resource_string': text}


def world_resource(request: Any) -> tuple[str, str]:
    """(uri, resource_string) of a LoadWorld request."""
    if WORLD_RESOURCE_MSG:
        return request.world_resource.uri, request.world_resource.resource_string
    return request.uri, request.resource_string


def world_resource_fields(uri: str, text: str) -> dict[str, Any]:
    """Keyword arguments of a LoadWorld request naming its world."""
    if WORLD_RESOURCE_MSG:
        from simulation_interfaces.msg import Resource
        return {'world_resource': Resource(uri=uri, resource_string=text)}
    return {'uri': uri, 'resource_string': text}


def spawnable_uri(spawnable: Any) -> str:
    return spawnable.entity_resource.uri if SPAWNABLE_RESOURCE_MSG else spawnable.uri


def spawnable_fields(uri: str) -> dict[str, Any]:
    """Keyword arguments of a Spawnable naming its resource."""
    if SPAWNABLE_RESOURCE_MSG:
        from simulation_interfaces.msg import Resource
        return {'entity_resource': Resource(uri=uri)}
    return {'uri': uri}
