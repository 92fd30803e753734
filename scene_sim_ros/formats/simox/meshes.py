"""Triangle meshes from the Open Inventor (``.iv``) and VRML (``.wrl``) files Simox models use.

Supported subset (ASCII only; Inventor 1.0/2.x, VRML 1.0 and 2.0 share one tokenizer):

- grouping: ``Separator``, ``TransformSeparator``, ``Group``, ``Switch`` (``whichChild``/
  ``whichChoice``, default none drawn), ``File { name }`` and ``Inline { url }`` (read relative to
  the including file), VRML 2 ``Transform { children [...] }``, ``Shape { geometry appearance }``;
  ``DEF``/``USE``;
- transforms: ``Transform`` (translation, rotation, scaleFactor/scale, scaleOrientation, center),
  ``Translation``, ``Rotation``, ``RotationXYZ``, ``Scale``, ``MatrixTransform`` (row-vector
  convention: translation in the last row) and ``Units``;
- geometry: ``Coordinate3`` + ``FaceSet``/``IndexedFaceSet``, VRML 2 ``IndexedFaceSet { coord
  Coordinate { point } coordIndex }``, and the primitives ``Cube``/``Box``, ``Sphere``,
  ``Cylinder`` (tessellated; their axis is y as in Inventor);
- colour: the first ``diffuseColor`` of the ``Material`` in effect at the first shape.

Units follow Coin: coordinates are metres unless a ``Units`` node says otherwise (Simox's files
say ``Units { units MILLIMETERS }`` or scale by 0.001 themselves). Everything else (normals,
textures, shape hints, lights, viewpoints) is skipped. Parsed files are cached per path and
modification time; a file that cannot be read raises :class:`MeshError`.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from scene_sim_ros import limits

from ...scene.geometry import Mesh
from ...scene.transforms import vec3
from .. import paths


class MeshError(Exception):
    """A mesh file is missing, unreadable or holds no triangles."""


@dataclass(frozen=True)
class MeshData:
    """A file's triangles in metres (in the file's own frame) and its first diffuse colour."""

    mesh: Mesh
    color: tuple[float, float, float, float] | None

    @property
    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        return self.mesh.vertices.min(axis=0), self.mesh.vertices.max(axis=0)


UNITS = {'METERS': 1.0, 'CENTIMETERS': 0.01, 'MILLIMETERS': 0.001, 'MICROMETERS': 1e-6,
         'MICRONS': 1e-6, 'NANOMETERS': 1e-9, 'ANGSTROMS': 1e-10, 'KILOMETERS': 1000.0,
         'FEET': 0.3048, 'INCHES': 0.0254, 'POINTS': 0.0254 / 72.0, 'YARDS': 0.9144,
         'MILES': 1609.344, 'NAUTICAL_MILES': 1852.0, 'DECIMETERS': 0.1}

_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\]()]|[^\s,{}\[\]()"#]+|#[^\n]*|[\s,]+')
_NUMBER = re.compile(r'[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$')


class Node:
    """A parsed node: its type and body items (words, numbers, strings, arrays, nodes)."""

    __slots__ = ('type', 'items')

    def __init__(self, node_type: str, items: list) -> None:
        self.type = node_type
        self.items = items

    def field(self, name: str) -> list:
        """Values after the word ``name`` up to the next word (an array counts as one value)."""
        for index, item in enumerate(self.items):
            if isinstance(item, Word) and item == name:
                values: list = []
                for value in self.items[index + 1:]:
                    if isinstance(value, Word):
                        if not values:  # an enum value (axis X, units MILLIMETERS)
                            values.append(value)
                            continue
                        break
                    values.append(value)
                    if isinstance(value, (Node, np.ndarray, list)):
                        break
                return values
        return []

    def numbers(self, name: str, count: int, default: tuple[float, ...]) -> tuple[float, ...]:
        values = self.field(name)
        flat: list[float] = []
        for value in values:
            if isinstance(value, np.ndarray):
                flat.extend(float(v) for v in value.ravel()[:count])
            elif isinstance(value, float):
                flat.append(value)
        return tuple(flat[:count]) if len(flat) >= count else default

    def array(self, name: str) -> np.ndarray | None:
        values = self.field(name)
        if values and isinstance(values[0], np.ndarray):
            return values[0]
        numbers = [v for v in values if isinstance(v, float)]
        return np.array(numbers) if numbers else None

    def node(self, name: str) -> Node | None:
        values = self.field(name)
        return values[0] if values and isinstance(values[0], Node) else None

    def child_nodes(self) -> list[Node]:
        """Nodes in the body itself and in a ``children`` array."""
        out: list[Node] = []
        for index, item in enumerate(self.items):
            if isinstance(item, Node):
                previous = self.items[index - 1] if index else None
                if not (isinstance(previous, Word) and previous != 'children'
                        and previous[:1].islower()):
                    out.append(item)
            elif isinstance(item, list):
                previous = self.items[index - 1] if index else None
                if isinstance(previous, Word) and previous == 'children':
                    out.extend(n for n in item if isinstance(n, Node))
        return out


class Word(str):
    """A bare identifier (field name, node type or enum value)."""


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = [t for t in _TOKEN.findall(text) if t[0] not in ' \t\r\n,#']
        self.pos = 0
        self.defs: dict[str, Node] = {}

    def parse(self) -> list:
        return self._items(top=True)

    def _items(self, top: bool = False) -> list:
        items: list = []
        tokens = self.tokens
        pending_def: str | None = None
        while self.pos < len(tokens):
            token = tokens[self.pos]
            self.pos += 1
            if token == '}':
                if top:
                    continue
                return items
            if token == ']':
                return items
            if token == '[':
                items.append(self._array())
            elif token == '(':
                while self.pos < len(tokens) and tokens[self.pos] != ')':
                    self.pos += 1
                self.pos += 1
            elif token == '{':
                items.append(Node('', self._items()))
            elif token[0] == '"':
                items.append(token[1:-1])
            elif token == 'DEF' and self.pos < len(tokens):
                pending_def = tokens[self.pos]
                self.pos += 1
            elif token == 'USE' and self.pos < len(tokens):
                name = tokens[self.pos]
                self.pos += 1
                if name in self.defs:
                    items.append(self.defs[name])
            elif _NUMBER.match(token):
                items.append(float(token))
            elif self.pos < len(tokens) and tokens[self.pos] == '{':
                self.pos += 1
                node = Node(token, self._items())
                if pending_def is not None:
                    self.defs[pending_def] = node
                    pending_def = None
                items.append(node)
            else:
                items.append(Word(token))
        return items

    def _array(self) -> np.ndarray | list:
        start = self.pos
        tokens = self.tokens
        end = start
        while end < len(tokens) and tokens[end] not in (']', '{', '[', '"'):
            end += 1
        if end < len(tokens) and tokens[end] == ']':
            self.pos = end + 1
            try:
                return np.array(tokens[start:end], dtype=np.float64)
            except ValueError:
                return [Word(t) for t in tokens[start:end]]
        return self._items()


def _rotation(axis: tuple[float, ...], angle: float) -> np.ndarray:
    x, y, z = axis
    if not all(math.isfinite(v) for v in (x, y, z, angle)):
        raise MeshError(f'rotation {x:g} {y:g} {z:g} {angle:g} is not finite')
    n = math.sqrt(x * x + y * y + z * z)
    m = np.eye(4)
    if n == 0.0 or angle == 0.0:
        return m
    x, y, z = x / n, y / n, z / n
    c, s = math.cos(angle), math.sin(angle)
    t = 1.0 - c
    m[:3, :3] = [[t * x * x + c, t * x * y - s * z, t * x * z + s * y],
                 [t * x * y + s * z, t * y * y + c, t * y * z - s * x],
                 [t * x * z - s * y, t * y * z + s * x, t * z * z + c]]
    return m


def _translation(v: tuple[float, ...]) -> np.ndarray:
    m = np.eye(4)
    m[:3, 3] = v[:3]
    return m


def _scaling(v: tuple[float, ...]) -> np.ndarray:
    return np.diag([v[0], v[1], v[2], 1.0])


def _transform_matrix(node: Node, scale_field: str) -> np.ndarray:
    translation = node.numbers('translation', 3, (0.0, 0.0, 0.0))
    rotation = node.numbers('rotation', 4, (0.0, 0.0, 1.0, 0.0))
    scale = node.numbers(scale_field, 3, (1.0, 1.0, 1.0))
    orientation = node.numbers('scaleOrientation', 4, (0.0, 0.0, 1.0, 0.0))
    center = node.numbers('center', 3, (0.0, 0.0, 0.0))
    so = _rotation(orientation[:3], orientation[3])
    return (_translation(translation) @ _translation(center) @ _rotation(rotation[:3], rotation[3])
            @ so @ _scaling(scale) @ np.linalg.inv(so) @ _translation(tuple(-c for c in center)))


@dataclass
class _State:
    matrix: np.ndarray
    units: float = 1.0
    coords: np.ndarray | None = None
    color: tuple[float, float, float, float] | None = None

    def copy(self) -> _State:
        return _State(self.matrix.copy(), self.units, self.coords, self.color)


class _Collector:
    def __init__(self, reader: MeshReader, path: Path) -> None:
        self.reader = reader
        self.path = path
        self.vertices: list[np.ndarray] = []
        self.triangles: list[np.ndarray] = []
        self.count = 0
        self.color: tuple[float, float, float, float] | None = None
        self.depth = 0

    def add(self, state: _State, points: np.ndarray, faces: np.ndarray) -> None:
        if len(points) == 0 or len(faces) == 0:
            return
        homogeneous = np.hstack([points, np.ones((len(points), 1))])
        self.vertices.append((homogeneous @ state.matrix.T)[:, :3])
        self.triangles.append(faces + self.count)
        self.count += len(points)
        if self.color is None:
            self.color = state.color


def _polygons_to_triangles(index: np.ndarray) -> np.ndarray:
    """Fan-triangulate ``-1``-separated polygons of vertex indices."""
    index = index.astype(np.int64)
    triangles: list[tuple[int, int, int]] = []
    polygon: list[int] = []
    for value in list(index) + [-1]:
        if value < 0:
            for k in range(1, len(polygon) - 1):
                triangles.append((polygon[0], polygon[k], polygon[k + 1]))
            polygon = []
        else:
            polygon.append(int(value))
    return np.array(triangles, dtype=np.int64).reshape(-1, 3)


def _triangles_from_polygon_index(index: np.ndarray) -> np.ndarray:
    index = index.astype(np.int64).ravel()
    separators = np.flatnonzero(index < 0)
    # fast path: all triangles "a,b,c,-1"
    if len(index) % 4 == 0 and len(separators) == len(index) // 4 and np.all(separators % 4 == 3):
        return index.reshape(-1, 4)[:, :3]
    return _polygons_to_triangles(index)


def _face_set(state: _State, node: Node) -> tuple[np.ndarray, np.ndarray]:
    coords = state.coords if state.coords is not None else np.zeros((0, 3))
    counts = node.array('numVertices')
    start = int(node.numbers('startIndex', 1, (0.0,))[0])
    if counts is None or (len(counts) == 1 and counts[0] < 0):
        counts = np.array([len(coords) - start])
    triangles: list[tuple[int, int, int]] = []
    first = start
    for count in counts.astype(int):
        for k in range(1, count - 1):
            triangles.append((first, first + k, first + k + 1))
        first += count
    faces = np.array(triangles, dtype=np.int64).reshape(-1, 3)
    return coords, faces


def _box(size: tuple[float, float, float]) -> tuple[np.ndarray, np.ndarray]:
    hx, hy, hz = (s / 2.0 for s in size)
    points = np.array([[sx * hx, sy * hy, sz * hz]
                       for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)], dtype=float)
    faces = np.array([[0, 1, 3], [0, 3, 2], [4, 6, 7], [4, 7, 5], [0, 4, 5], [0, 5, 1],
                      [2, 3, 7], [2, 7, 6], [0, 2, 6], [0, 6, 4], [1, 5, 7], [1, 7, 3]])
    return points, faces


def _sphere(radius: float, segments: int = 16) -> tuple[np.ndarray, np.ndarray]:
    rings = segments // 2
    points = [(0.0, 0.0, radius)]
    for i in range(1, rings):
        theta = math.pi * i / rings
        for j in range(segments):
            phi = 2.0 * math.pi * j / segments
            points.append((radius * math.sin(theta) * math.cos(phi),
                           radius * math.sin(theta) * math.sin(phi), radius * math.cos(theta)))
    points.append((0.0, 0.0, -radius))
    faces = []
    last = len(points) - 1
    for j in range(segments):
        faces.append((0, 1 + j, 1 + (j + 1) % segments))
    for i in range(rings - 2):
        a, b = 1 + i * segments, 1 + (i + 1) * segments
        for j in range(segments):
            k = (j + 1) % segments
            faces.append((a + j, b + j, b + k))
            faces.append((a + j, b + k, a + k))
    base = 1 + (rings - 2) * segments
    for j in range(segments):
        faces.append((last, base + (j + 1) % segments, base + j))
    return np.array(points), np.array(faces)


def _cylinder_y(radius: float, height: float, segments: int = 16) -> tuple[np.ndarray, np.ndarray]:
    h = height / 2.0
    ring = [(radius * math.cos(2 * math.pi * j / segments), radius * math.sin(2 * math.pi * j / segments))
            for j in range(segments)]
    points = [(x, -h, z) for x, z in ring] + [(x, h, z) for x, z in ring] + [(0, -h, 0), (0, h, 0)]
    faces = []
    bottom, top = 2 * segments, 2 * segments + 1
    for j in range(segments):
        k = (j + 1) % segments
        faces += [(j, segments + k, k), (j, segments + j, segments + k),
                  (bottom, j, k), (top, segments + k, segments + j)]
    return np.array(points, dtype=float), np.array(faces)


class MeshReader:
    """Reads mesh files, caching each parsed file (path + modification time)."""

    def __init__(self) -> None:
        self._parsed: dict[tuple[Path, float], list] = {}
        self._meshes: dict[tuple[Path, float], MeshData] = {}

    def _parse(self, path: Path) -> list:
        key = (path, path.stat().st_mtime)
        if key not in self._parsed:
            text = limits.read_bytes(path).decode('latin-1')
            header = text.lstrip()[:20]
            if not (header.startswith('#Inventor') or header.startswith('#VRML')):
                raise MeshError('not an ASCII Open Inventor or VRML file')
            self._parsed[key] = _Parser(text).parse()
        return self._parsed[key]

    def read(self, path: Path) -> MeshData:
        """All triangles of ``path`` in metres, in the file's frame."""
        path = path.resolve()
        try:
            key = (path, path.stat().st_mtime)
        except OSError as err:
            raise MeshError(f'cannot read mesh file {path}: {err.strerror}') from None
        if key in self._meshes:
            return self._meshes[key]
        collector = _Collector(self, path)
        try:
            self._traverse_file(path, _State(np.eye(4)), collector)
        except (ValueError, ArithmeticError, IndexError, TypeError) as err:
            # a malformed node the handlers did not foresee: the mesh is unusable, not the scene
            where = collector.path or path
            raise MeshError(f'malformed mesh file {where}: {type(err).__name__}: {err}') from None
        if not collector.triangles:
            raise MeshError(f'no triangles found in {path}')
        vertices = np.vstack(collector.vertices)
        triangles = np.vstack(collector.triangles)
        limits.check_triangles(len(triangles), f'mesh {path.name}', path)
        if triangles.max() >= len(vertices) or triangles.min() < 0:
            raise MeshError(f'vertex index out of range in {path}')
        data = MeshData(Mesh(vertices, triangles, name=path.name), collector.color)
        self._meshes[key] = data
        return data

    def _traverse_file(self, path: Path, state: _State, collector: _Collector) -> None:
        if collector.depth > 16:
            raise MeshError(f'file inclusion nested too deeply at {path}')
        paths.confine(path, 'mesh file', collector.path)
        try:
            items = self._parse(path)
        except OSError as err:
            raise MeshError(f'cannot read mesh file {path}: {err.strerror}') from None
        previous = collector.path
        collector.path = path
        collector.depth += 1
        for item in items:
            if isinstance(item, Node):
                self._traverse(item, state, collector)
        collector.depth -= 1
        collector.path = previous

    def _traverse_children(self, node: Node, state: _State, collector: _Collector) -> None:
        for child in node.child_nodes():
            self._traverse(child, state, collector)

    def _traverse(self, node: Node, state: _State, collector: _Collector) -> None:
        kind = node.type
        handler = _HANDLERS.get(kind)
        if handler is None and kind.startswith('So'):  # Coin also accepts class names
            handler = _HANDLERS.get(kind[2:])
        if handler is not None:
            handler(self, node, state, collector)


def _separator(reader: MeshReader, node: Node, state: _State, collector: _Collector) -> None:
    reader._traverse_children(node, state.copy(), collector)


def _group(reader: MeshReader, node: Node, state: _State, collector: _Collector) -> None:
    reader._traverse_children(node, state, collector)


def _switch(reader: MeshReader, node: Node, state: _State, collector: _Collector) -> None:
    which = node.numbers('whichChild', 1, node.numbers('whichChoice', 1, (-1.0,)))[0]
    nodes = node.child_nodes()
    if which == -3:  # SO_SWITCH_ALL
        for child in nodes:
            reader._traverse(child, state, collector)
    elif 0 <= which < len(nodes):
        reader._traverse(nodes[int(which)], state, collector)


def _vrml_transform(reader: MeshReader, node: Node, state: _State, collector: _Collector) -> None:
    inner = state.copy()
    scale_field = 'scale' if node.field('scale') else 'scaleFactor'
    inner.matrix = inner.matrix @ _transform_matrix(node, scale_field)
    reader._traverse_children(node, inner, collector)


def _iv_transform(reader: MeshReader, node: Node, state: _State, collector: _Collector) -> None:
    if node.field('children'):
        _vrml_transform(reader, node, state, collector)
        return
    scale_field = 'scale' if node.field('scale') else 'scaleFactor'
    state.matrix = state.matrix @ _transform_matrix(node, scale_field)


def _translation_node(reader: MeshReader, node: Node, state: _State, collector: _Collector) -> None:
    state.matrix = state.matrix @ _translation(node.numbers('translation', 3, (0.0, 0.0, 0.0)))


def _rotation_node(reader: MeshReader, node: Node, state: _State, collector: _Collector) -> None:
    r = node.numbers('rotation', 4, (0.0, 0.0, 1.0, 0.0))
    state.matrix = state.matrix @ _rotation(r[:3], r[3])


def _rotation_xyz(reader: MeshReader, node: Node, state: _State, collector: _Collector) -> None:
    axis = {'X': (1.0, 0.0, 0.0), 'Y': (0.0, 1.0, 0.0), 'Z': (0.0, 0.0, 1.0)}
    values = node.field('axis')
    name = str(values[0]) if values else 'X'
    angle = node.numbers('angle', 1, (0.0,))[0]
    state.matrix = state.matrix @ _rotation(axis.get(name, (1.0, 0.0, 0.0)), angle)


def _scale_node(reader: MeshReader, node: Node, state: _State, collector: _Collector) -> None:
    state.matrix = state.matrix @ _scaling(node.numbers('scaleFactor', 3, (1.0, 1.0, 1.0)))


def _matrix_node(reader: MeshReader, node: Node, state: _State, collector: _Collector) -> None:
    values = node.numbers('matrix', 16, tuple(np.eye(4).ravel()))
    state.matrix = state.matrix @ np.array(values).reshape(4, 4).T  # row-vector convention


def _units_node(reader: MeshReader, node: Node, state: _State, collector: _Collector) -> None:
    values = node.field('units')
    factor = UNITS.get(str(values[0]), 1.0) if values else 1.0
    state.matrix = state.matrix @ _scaling((factor / state.units,) * 3)
    state.units = factor


def _coordinate3(reader: MeshReader, node: Node, state: _State, collector: _Collector) -> None:
    points = node.array('point')
    state.coords = points.reshape(-1, 3) if points is not None and points.size % 3 == 0 \
        else np.zeros((0, 3))


def _material(reader: MeshReader, node: Node, state: _State, collector: _Collector) -> None:
    color = node.numbers('diffuseColor', 3, ())
    if color:
        transparency = node.numbers('transparency', 1, (0.0,))[0]
        state.color = (color[0], color[1], color[2], 1.0 - transparency)


def _face_set_node(reader: MeshReader, node: Node, state: _State, collector: _Collector) -> None:
    points, faces = _face_set(state, node)
    collector.add(state, points, faces)


def _indexed_face_set(reader: MeshReader, node: Node, state: _State, collector: _Collector) -> None:
    coord = node.node('coord')
    if coord is not None:
        points = coord.array('point')
        points = points.reshape(-1, 3) if points is not None and points.size % 3 == 0 \
            else np.zeros((0, 3))   # as Coordinate3: an incomplete point list gives no faces
    else:
        points = state.coords if state.coords is not None else np.zeros((0, 3))
    index = node.array('coordIndex')
    if index is None:
        return
    collector.add(state, points, _triangles_from_polygon_index(index))


def _primitive(points_faces: tuple[np.ndarray, np.ndarray], state: _State,
               collector: _Collector) -> None:
    collector.add(state, *points_faces)


def _cube(reader: MeshReader, node: Node, state: _State, collector: _Collector) -> None:
    if node.field('size'):
        size = vec3(node.numbers('size', 3, (2.0, 2.0, 2.0)))
    else:
        size = (node.numbers('width', 1, (2.0,))[0], node.numbers('height', 1, (2.0,))[0],
                node.numbers('depth', 1, (2.0,))[0])
    _primitive(_box(size), state, collector)


def _sphere_node(reader: MeshReader, node: Node, state: _State, collector: _Collector) -> None:
    _primitive(_sphere(node.numbers('radius', 1, (1.0,))[0]), state, collector)


def _cylinder(reader: MeshReader, node: Node, state: _State, collector: _Collector) -> None:
    radius = node.numbers('radius', 1, (1.0,))[0]
    height = node.numbers('height', 1, (2.0,))[0]
    _primitive(_cylinder_y(radius, height), state, collector)


def _shape(reader: MeshReader, node: Node, state: _State, collector: _Collector) -> None:
    inner = state.copy()
    appearance = node.node('appearance')
    if appearance is not None:
        material = appearance.node('material')
        if material is not None:
            _material(reader, material, inner, collector)
    geometry = node.node('geometry')
    if geometry is not None:
        reader._traverse(geometry, inner, collector)


def _file(reader: MeshReader, node: Node, state: _State, collector: _Collector) -> None:
    names = [v for v in node.field('name') + node.field('url') if isinstance(v, str)]
    for value in node.field('url'):
        if isinstance(value, list):
            names.extend(str(v) for v in value)
    if not names:
        return
    try:
        included = (collector.path.parent / names[0].strip('"')).resolve()
    except (OSError, ValueError) as err:  # a NUL byte, a name too long
        raise MeshError(f'included file name {names[0][:80]!r} is not a path: {err}') from None
    reader._traverse_file(included, state.copy(), collector)


_HANDLERS = {
    'Separator': _separator, 'TransformSeparator': _separator, 'Group': _group,
    'Switch': _switch, 'Transform': _iv_transform, 'Translation': _translation_node,
    'Rotation': _rotation_node, 'RotationXYZ': _rotation_xyz, 'Scale': _scale_node,
    'MatrixTransform': _matrix_node, 'Units': _units_node, 'Coordinate3': _coordinate3,
    'Material': _material, 'FaceSet': _face_set_node, 'IndexedFaceSet': _indexed_face_set,
    'Cube': _cube, 'Box': _cube, 'Sphere': _sphere_node, 'Cylinder': _cylinder,
    'Shape': _shape, 'File': _file, 'Inline': _file, 'Anchor': _group, 'Collision': _group,
    'Billboard': _group, 'LOD': _group,
}

DEFAULT_READER = MeshReader()
