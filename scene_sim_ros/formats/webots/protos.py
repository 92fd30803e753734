"""PROTO resolution and expansion.

A node whose type is not a Webots base node is a PROTO instance. Its definition is a ``PROTO``
in the same file, else the file that :class:`.resolve.Resolver` finds for the file's
``EXTERNPROTO`` of that name (or, without one, a ``<Name>.proto`` in the search folders): local,
from a Webots installation, from the user cache or downloaded. An ``EXTERNPROTO`` that names a
missing local file is an error; a remote one that is nowhere marks the instance missing
(``Node.missing_url``, the places looked in :attr:`ProtoLibrary.missing`) and the mapping
decides (see the package docstring).

Expansion replaces each instance by a copy of the PROTO body's first node, with ``IS`` fields
bound to the instance's values or the interface defaults; nested instances are expanded in turn.
A procedural body (JavaScript ``%< >%`` or Lua ``%{ }%``) is first expanded per instance with
:mod:`.template` (its ``context`` from :attr:`ProtoLibrary.template_context`, its limits from
:attr:`ProtoLibrary.limits`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...errors import SceneLoadError
from . import fields
from .nodes import IsRef, Node, Value
from .parser import Document, ProtoDef, parse_file, parse_text
from .resolve import RefusedPath, Resolver, is_url
from .template import UNDEFINED, Limits, evaluate

MAX_DEPTH = 64

# Webots base node types (never looked up as PROTOs)
BASE_NODES = frozenset("""
    Accelerometer Altimeter Appearance Background BallJoint BallJointParameters Billboard Box
    Brake CadShape Camera Capsule Charger Color Compass Cone Connector ContactProperties
    Coordinate Cylinder Damping Display DirectionalLight DistanceSensor ElevationGrid Emitter
    Fluid Focus Fog GPS Group Gyro Hinge2Joint Hinge2JointParameters HingeJoint
    HingeJointParameters ImageTexture ImmersionProperties IndexedFaceSet IndexedLineSet
    InertialUnit Joint JointParameters LED Lens LensFlare LensDistortion Lidar LightSensor
    LinearMotor Material Mesh Muscle Normal PBRAppearance Pen Physics Plane PointLight PointSet
    Pose PositionSensor Propeller Radar Radio RangeFinder Receiver Recognition Robot
    RotationalMotor Shape SliderJoint Skin Slot Solid SolidReference Speaker Sphere SpotLight
    TextureCoordinate TextureTransform TouchSensor Track TrackWheel Transform Viewpoint
    VacuumGripper WorldInfo Zoom
""".split())


@dataclass(frozen=True)
class MissingProto:
    url: str
    looked: tuple[str, ...]  # every place looked, in order


class ProtoLibrary:
    """Finds PROTO definitions for the files of one load and expands instances."""

    def __init__(self, resolver: Resolver, warn: Callable[[str, int, str], None]):
        self.resolver = resolver
        self.warn = warn
        self.documents: dict[str, Document] = {}
        self.file_cache: dict[Path, Document] = {}
        self.missing: dict[str, MissingProto] = {}  # PROTO name -> where, in order of first use
        self.unknown: list[Node] = []  # instances of a type neither built in nor a PROTO found
        self.limits = Limits()
        self.template_context: dict[str, Any] = {}  # world, project_path, coordinate_system
        self.template_count = 0

    def add(self, document: Document) -> None:
        self.documents[document.file] = document

    def _load(self, path: Path, name: str, file: str, line: int) -> ProtoDef:
        path = path.resolve()
        document = self.file_cache.get(path)
        if document is None:
            document = parse_file(path)
            self.file_cache[path] = document
            self.add(document)
        if name not in document.protos:
            raise SceneLoadError(f'{path} does not define PROTO {name}', file, line)
        return document.protos[name]

    def resolve(self, node: Node) -> ProtoDef | str | None:
        """The definition of ``node.type``, the URL of a missing remote PROTO, or ``None``."""
        document = self.documents.get(node.file)
        if document is not None and node.type in document.protos:
            return document.protos[node.type]
        extern = document.externprotos.get(node.type) if document is not None else None
        base = self.resolver.location_of(node.file)
        try:
            lookup = self.resolver.find_proto(node.type, extern.url if extern else None, base)
        except RefusedPath as err:
            line = extern.line if extern is not None else node.line
            raise SceneLoadError(f'EXTERNPROTO {node.type}: {err}', node.file, line) from None
        if lookup.found is not None:
            return self._load(lookup.found.path, node.type, node.file,
                              extern.line if extern is not None else node.line)
        if extern is None:
            return None
        if not is_url(extern.url) and not is_url(base):
            raise SceneLoadError(f'EXTERNPROTO {extern.url!r}: no such file', node.file,
                                 extern.line)
        self.missing.setdefault(node.type, MissingProto(extern.url, tuple(lookup.looked)))
        return extern.url

    # expansion ---------------------------------------------------------------------------------
    def expand_all(self, nodes: list[Node]) -> list[Node]:
        memo: dict[int, Node] = {}
        return [self.expand(node, memo, 0) for node in nodes]

    def expand(self, node: Node, memo: dict[int, Node], depth: int) -> Node:
        if id(node) in memo:
            return memo[id(node)]
        if depth > MAX_DEPTH:
            raise node.error(f'PROTO {node.type} nests more than {MAX_DEPTH} levels '
                             '(a recursive PROTO?)')
        if node.type not in BASE_NODES:
            found = self.resolve(node)
            if isinstance(found, ProtoDef):
                result = self.expand(self.instantiate(found, node), {}, depth + 1)
                # the root of an outer PROTO's body (TiagoLite's TiagoBase): the outer one names it
                result.proto = node.proto or result.proto
                memo[id(node)] = result
                return result
            if isinstance(found, str):
                node.missing_url = found
            elif found is None and node not in self.unknown:
                self.unknown.append(node)
        memo[id(node)] = node
        for value in node.fields.values():
            if isinstance(value, Value) and value.has_nodes:
                value.items = [self.expand(i, memo, depth) if isinstance(i, Node) else i
                               for i in value.items]
        return node

    def instantiate(self, proto: ProtoDef, instance: Node) -> Node:
        # a value keeps the file that wrote it: relative urls resolve against that file
        values: dict[str, Value] = {name: _written_in(f.default, proto.file)
                                    for name, f in proto.fields.items()}
        for name, value in instance.fields.items():
            if name not in proto.fields:
                self.warn(instance.file, instance.where(name)[1],
                          f'PROTO {proto.name} has no field {name!r}; skipped'
                          + fields.hint(name, proto.fields))
                continue
            if isinstance(value, IsRef):
                raise instance.error(f'{instance.type}.{name} IS {value.name} outside a PROTO '
                                     'body', name)
            values[name] = _written_in(value, instance.file)
        body = proto.body
        if proto.template_text is not None:
            self.template_count += 1
            context = {**self.template_context, 'proto': str(Path(proto.file).resolve()),
                       'id': str(self.template_count)}
            text = evaluate(proto.template_text, self._template_fields(proto, values),
                            proto.file, proto.template_line, context=context,
                            header=_header(proto.file), limits=self.limits,
                            report=self._template_report(proto))
            try:
                body = parse_text(text, proto.file, proto.template_line).nodes
            except SceneLoadError as err:
                if err.line is None or text.count('\n') == proto.template_text.count('\n'):
                    raise  # the lines of the expansion are the lines of the file
                raise SceneLoadError(
                    f'{err.message} (at line {err.line - proto.template_line + 1} of the VRML '
                    f'that the template of PROTO {proto.name} produced)', proto.file,
                    proto.template_line) from None
        if not body:
            raise SceneLoadError(f'PROTO {proto.name} has an empty body', proto.file, proto.line)
        root = _substitute(body[0], values, proto, {})
        root.def_name = instance.def_name
        root.proto = proto.name
        return root

    def _template_report(self, proto: Any) -> Callable[[str, str], None]:
        """What a template writes: stderr lines are warnings at its template line, stdout lines
        info in the log (Webots' console shows both)."""
        def report(kind: str, line: str) -> None:
            if kind == 'warning':
                self.warn(proto.file, proto.template_line,
                          f'template of PROTO {proto.name}: {line}')
            else:
                logging.getLogger(__name__).info('template of PROTO %s: %s', proto.name, line)
        return report

    # template values: Webots' JavaScript shapes of field values --------------------------------
    def _template_fields(self, proto: ProtoDef, values: dict[str, Value]) -> dict[str, Any]:
        return {name: {'value': self._js_value(f.type, values[name]),
                       'defaultValue': self._js_value(f.type, f.default)}
                for name, f in proto.fields.items()}

    def _js_value(self, field_type: str | None, value: Value) -> Any:
        items: list[Any] = [self._js_node(i) if isinstance(i, Node)
                            else UNDEFINED if i is None else i for i in value.items]
        if field_type is None:  # a field of a built-in node: typed by its shape
            if value.bracketed:
                return items
            if len(items) in (2, 3, 4) and all(isinstance(i, float) for i in items):
                return dict(zip('xyza', items))
            return items[0] if items else None
        names = _COMPONENTS.get(field_type)
        if names is not None:
            groups = [dict(zip(names, items[k:k + len(names)]))
                      for k in range(0, len(items), len(names))]
            return groups if field_type.startswith('MF') else (groups[0] if groups else None)
        if field_type.startswith('MF'):
            return items
        return items[0] if items else None

    def _js_node(self, node: Node) -> dict[str, Any]:
        found = self.resolve(node) if node.type not in BASE_NODES else None
        if isinstance(found, ProtoDef):
            values = {name: f.default for name, f in found.fields.items()}
            values.update((k, v) for k, v in node.fields.items()
                          if k in found.fields and isinstance(v, Value))
            return {'node_name': node.type, 'fields': self._template_fields(found, values)}
        node_fields: dict[str, Any] = {}
        for name, value in node.fields.items():
            if isinstance(value, Value):
                converted = self._js_value(None, value)
                node_fields[name] = {'value': converted, 'defaultValue': converted}
        return {'node_name': node.type, 'fields': node_fields}


def _substitute(node: Node, values: dict[str, Value], proto: ProtoDef,
                memo: dict[int, Node]) -> Node:
    if id(node) in memo:
        return memo[id(node)]
    copy = Node(node.type, {}, node.file, node.line, node.def_name, node.proto)
    memo[id(node)] = copy
    for name, value in node.fields.items():
        if isinstance(value, IsRef):
            if value.name not in values:
                raise SceneLoadError(f'{node.type}.{name} IS {value.name}: PROTO {proto.name} '
                                     f'has no field {value.name!r}', node.file, value.line)
            bound = values[value.name]
            copy.fields[name] = Value(list(bound.items), bound.bracketed, value.line,
                                      bound.origin, bound.holds)
        elif not value.has_nodes:
            copy.fields[name] = Value(list(value.items), value.bracketed, value.line,
                                      holds=value.holds)
        else:
            items = [_substitute(i, values, proto, memo) if isinstance(i, Node) else i
                     for i in value.items]
            copy.fields[name] = Value(items, value.bracketed, value.line)
    return copy


def _written_in(value: Value, file: str) -> Value:
    if value.origin is not None:
        return value
    return Value(value.items, value.bracketed, value.line, file, value.holds)


_COMPONENTS = {'SFVec2f': 'xy', 'SFVec3f': 'xyz', 'SFColor': 'rgb', 'SFRotation': 'xyza',
               'MFVec2f': 'xy', 'MFVec3f': 'xyz', 'MFColor': 'rgb', 'MFRotation': 'xyza'}


def _header(file: str) -> str:
    """The leading comment lines of a PROTO file (where ``# template language: lua`` is)."""
    try:
        with open(file, encoding='utf-8', errors='replace') as stream:
            lines = []
            for line in stream:
                if not line.startswith('#'):
                    break
                lines.append(line)
            return ''.join(lines)
    except OSError:
        return ''
