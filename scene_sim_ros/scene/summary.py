"""A JSON-ready summary of a scene: the ``scene-sim-ros inspect --json`` contract.

``{"format", "step_length", "gravity", "entities": [{"name", "kind", "links", "mass",
"joints": [{"name", "type", "axis", "limits", "motor"}], "sensors": [{"name", "type", "link",
...}]}], "warnings"}``. Only movable joints are listed; numbers are SI.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from typing import Any

from .model import Entity, Joint, Scene
from .sensors import Sensor

_SENSOR_SKIP = {'name', 'link', 'pose'}



def _json_value(value: Any) -> Any:
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, tuple):
        return [_json_value(v) for v in value]
    return value


def motor_summary(joint: Joint) -> dict[str, Any] | None:
    if joint.motor is None:
        return None
    out: dict[str, Any] = {'type': joint.motor.kind}
    out.update({f.name: _json_value(getattr(joint.motor, f.name))
                for f in dataclasses.fields(joint.motor)
                if f.name not in _LAW_FIELDS or getattr(joint.motor, f.name) != f.default})
    return out


# shown only when not the default (the SimRobotCore2 velocity law, no delay, no filter)
_LAW_FIELDS = ('control', 'delay', 'velocity_filter')


def joint_summary(joint: Joint) -> dict[str, Any]:
    return {
        'name': joint.name,
        'type': joint.type,
        'axis': list(joint.axis),
        'limits': list(joint.limits) if joint.limits is not None else None,
        'motor': motor_summary(joint),
    }


def sensor_summary(sensor: Sensor) -> dict[str, Any]:
    out: dict[str, Any] = {'name': sensor.name, 'type': sensor.kind, 'link': sensor.link}
    out.update({f.name: _json_value(getattr(sensor, f.name)) for f in dataclasses.fields(sensor)
                if f.name not in _SENSOR_SKIP})
    return out


def entity_summary(entity: Entity) -> dict[str, Any]:
    return {
        'name': entity.name,
        'kind': entity.kind,
        'links': len(entity.links),
        'mass': entity.mass,
        'fixed_base': entity.fixed_base,
        'joints': [joint_summary(j) for j in entity.movable_joints],
        'sensors': [sensor_summary(s) for s in entity.sensors],
    }


def scene_summary(scene: Scene) -> dict[str, Any]:
    return {
        'name': scene.name,
        'format': scene.format,
        'source': str(scene.source) if scene.source else None,
        'step_length': scene.step_length,
        'gravity': list(scene.gravity),
        'entities': [entity_summary(e) for e in scene.entities],
        'warnings': list(scene.warnings),
        **({'dialect': scene.metadata['simrobot_dialect']}
           if 'simrobot_dialect' in scene.metadata else {}),
    }


def entity_lines(scene: Scene) -> list[str]:
    """The entity counts, then a line per robot/object (and its sensors), indented."""
    counts = {kind: sum(1 for e in scene.entities if e.kind == kind)
              for kind in ('robot', 'object', 'static')}
    lines = [f'  {counts["robot"]} robots, {counts["object"]} objects, {counts["static"]} static']
    for entity in scene.entities:
        if entity.kind == 'static' and not entity.joints and not entity.sensors:
            continue
        joints = entity.movable_joints
        lines.append(f'  {entity.kind:<6} {entity.name}: {len(entity.links)} links, '
                     f'{entity.mass:.3f} kg, {len(joints)} joints, {len(entity.sensors)} sensors')
        if entity.sensors:
            lines.append('         sensors: ' + ', '.join(
                f'{s.name} ({s.kind})' for s in entity.sensors))
    return lines


def summary_text(scene: Scene, notes: Sequence[str] = ()) -> str:
    """A one-screen human summary of the scene; ``notes`` (how it would run: the engine) follow
    the step length and the dialect, before the entities."""
    dialect = scene.metadata.get('dialect')
    lines = [
        f'{scene.source or scene.name}: {scene.format} scene {scene.name!r}',
        f'  step {scene.step_length * 1000:g} ms, gravity {tuple(round(g, 4) for g in scene.gravity)}',
        *([f'  dialect: {dialect}'] if dialect else []),
        *(f'  {note}' for note in notes),
        *entity_lines(scene),
    ]
    if scene.warnings:
        lines.append(f'  {len(scene.warnings)} warnings:')
        lines.extend(f'    {w}' for w in scene.warnings[:20])
        if len(scene.warnings) > 20:
            lines.append(f'    ... {len(scene.warnings) - 20} more (inspect --json lists all)')
    return '\n'.join(lines)
