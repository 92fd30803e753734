"""URDF robots into the scene model.

Supported subset:

- ``<link>`` with ``<inertial>`` (origin xyz/rpy, mass, inertia: rotated into link axes),
  ``<collision>`` and ``<visual>`` (origin; ``box``, ``sphere``, ``cylinder``, ``capsule`` and
  ``mesh`` with ``scale``; visual ``material`` by name or inline ``color``/``texture``).
- Mesh file names: ``package://pkg/rest`` is looked up in ``pkg``'s share folder from the ament
  index, then as ``res_dir/rest``, ``res_dir/pkg/rest``,
  ``<urdf dir>/rest``, ``<urdf dir>/../rest`` and ``<urdf dir>/../../pkg/rest``; ``file://``
  is absolute; relative names are tried against the URDF's directory, then ``res_dir``. A mesh that
  cannot be found is a warning and the shape is dropped (visual and collision alike); one outside
  the scene's folder tree and search paths is an error (:mod:`.paths`).
- ``<joint>`` types ``revolute``, ``continuous`` (revolute without limits), ``prismatic``,
  ``fixed`` and ``floating``/``planar`` (only between a ``world`` link and the robot root:
  ``floating`` gives a free base, ``fixed`` a fixed base). ``origin``, ``axis``, ``limit``
  (lower/upper/effort/velocity) and ``dynamics`` (damping/friction) are read.
- Links and joints are ordered depth-first from the root, children in file order (RaiSim's
  generalised-coordinate order).
- ``<gazebo>``, ``<transmission>``, ``<material>`` at robot level are accepted; other unknown
  elements are warnings (errors when ``strict``). RaiSim's ``<link sensor="file.xml">`` is kept
  in :attr:`UrdfModel.sensor_sets` for the RaiSim loader.

Motors (a documented default; the ROS layer's configuration may override it): every revolute,
continuous and prismatic joint gets a :class:`ServoMotor` holding the joint's initial position,
with ``p = DEFAULT_SERVO_P``, ``d = DEFAULT_SERVO_D``, ``max_force`` from ``<limit effort>`` and
``max_velocity`` from ``<limit velocity>``; where those are absent or zero (a common placeholder
in URDFs) ``DEFAULT_MAX_EFFORT`` and ``DEFAULT_MAX_VELOCITY`` apply.

:attr:`Entity.urdf` carries the URDF text (what ``robot_description`` publishes).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from lxml import etree

from scene_sim_ros import limits

from ..errors import SceneLoadError
from ..scene import (
    Box,
    Capsule,
    Collision,
    Cylinder,
    Entity,
    EntityKind,
    Inertial,
    Joint,
    JointType,
    Link,
    MeshFile,
    Scene,
    ServoMotor,
    Sphere,
    Visual,
)
from ..scene.geometry import GREY, RGBA, Shape
from ..scene.inertia import rotate_inertia
from ..scene.transforms import IDENTITY, Pose, normalized
from . import paths, xml_parse

DEFAULT_SERVO_P = 20.0
"""Servo gain (1/s): commanded joint velocity per unit of position error."""
DEFAULT_SERVO_D = 0.0
DEFAULT_MAX_EFFORT = 100.0
"""N*m (revolute) or N (prismatic) where the URDF gives no ``<limit effort>``."""
DEFAULT_MAX_VELOCITY = 10.0
"""rad/s (revolute) or m/s (prismatic) where the URDF gives no ``<limit velocity>``."""

JOINT_TYPES: dict[str, JointType] = {'revolute': 'revolute', 'continuous': 'revolute',
                                     'prismatic': 'prismatic', 'fixed': 'fixed'}
WORLD_JOINT_TYPES = ('fixed', 'floating', 'planar')
KNOWN_ROBOT_CHILDREN = {'link', 'joint', 'material', 'gazebo', 'transmission'}
KNOWN_LINK_CHILDREN = {'inertial', 'collision', 'visual'}
KNOWN_JOINT_CHILDREN = {'origin', 'parent', 'child', 'axis', 'limit', 'dynamics', 'calibration',
                        'safety_controller', 'mimic'}


@dataclass(frozen=True)
class UrdfModel:
    """A parsed URDF: the entity plus what a caller may want to post-process.

    ``floating`` is False when the root is fixed to a ``world`` link; ``sensor_sets`` maps link
    names to RaiSim sensor-set file names with their line; ``joint_order`` lists the movable
    joints in generalised-coordinate order.
    """

    entity: Entity
    floating: bool
    warnings: tuple[str, ...] = ()
    sensor_sets: tuple[tuple[str, str, int], ...] = ()
    joint_order: tuple[str, ...] = ()


@dataclass
class _Context:
    file: str
    base_dir: Path
    res_dir: Path | None
    strict: bool
    materials: dict[str, tuple[RGBA | None, Path | None]] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def warn(self, line: int | None, message: str) -> None:
        text = f'{self.file}:{line}: {message}' if line else f'{self.file}: {message}'
        (self.errors if self.strict else self.warnings).append(text)

    def error(self, line: int | None, message: str) -> None:
        self.errors.append(f'{self.file}:{line}: {message}' if line else f'{self.file}: {message}')


def load(path: str | Path, *, parameters: Mapping[str, str] | None = None,
         strict: bool = False) -> Scene:
    """Load a ``.urdf`` file as a scene holding one robot at the origin."""
    path = Path(path)
    text = limits.read_text(path)
    model = parse_urdf(text, file=path, strict=strict)
    return Scene(name=model.entity.name, entities=(model.entity,), format='urdf', source=path,
                 warnings=model.warnings)


def parse_urdf(text: str, *, file: str | Path, name: str | None = None,
               res_dir: str | Path | None = None, strict: bool = False) -> UrdfModel:
    """Build an entity from URDF ``text`` (``file`` names it in messages and anchors relative
    mesh paths; ``res_dir`` is RaiSim's resource directory)."""
    file_path = Path(file)
    ctx = _Context(str(file_path), file_path.parent, Path(res_dir) if res_dir else None, strict)
    try:
        root = parse_xml(text, file_path)
    except etree.XMLSyntaxError as err:
        raise SceneLoadError(f'not well-formed XML: {err.msg}', file_path, err.lineno) from None
    if root.tag != 'robot':
        raise SceneLoadError(f'expected a <robot> root element, found <{root.tag}>',
                             file_path, root.sourceline)
    model = _build(root, ctx, name, text)
    if ctx.errors:
        raise SceneLoadError(limits.joined(ctx.errors))
    return dataclasses.replace(model, warnings=tuple(ctx.warnings))


def entity_from_urdf(text: str, *, file: str | Path, name: str | None = None,
                     res_dir: str | Path | None = None, strict: bool = False
                     ) -> tuple[Entity, tuple[str, ...]]:
    """Convenience wrapper: the entity and the warnings."""
    model = parse_urdf(text, file=file, name=name, res_dir=res_dir, strict=strict)
    return model.entity, model.warnings


_XML_DECLARATION = re.compile(r'<\?xml[^>]*\?>')


def parse_xml(text: str, file: str | Path | None = None) -> etree._Element:
    """Parse ``text`` (of ``file``) without comments, tolerating XML declarations after blank
    lines or comments (seen in real URDF and RaiSim files); line numbers are kept."""
    text = _XML_DECLARATION.sub(lambda m: ' ' * len(m.group(0)), text)
    return xml_parse.parse(text.encode('utf-8'), file, remove_comments=True, huge_tree=True)


# --- parsing helpers ---------------------------------------------------------------------------

def _floats(ctx: _Context, element: etree._Element, attribute: str, count: int,
            default: tuple[float, ...]) -> tuple[float, ...]:
    raw = element.get(attribute)
    if raw is None:
        return default
    try:
        values = tuple(limits.number(v) for v in raw.split())
    except ValueError as err:
        ctx.error(element.sourceline,
                  limits.why_not(err, f'{attribute}="{raw}" is not a list of numbers'))
        return default
    if len(values) != count:
        ctx.error(element.sourceline, f'{attribute}="{raw}" needs {count} numbers')
        return default
    return values


def _float(ctx: _Context, element: etree._Element | None, attribute: str,
           default: float | None) -> float | None:
    if element is None:
        return default
    raw = element.get(attribute)
    if raw is None:
        return default
    try:
        return limits.number(raw)
    except ValueError as err:
        ctx.error(element.sourceline, limits.why_not(err, f'{attribute}="{raw}" is not a number'))
        return default


def _origin(ctx: _Context, parent: etree._Element) -> Pose:
    origin = parent.find('origin')
    if origin is None:
        return IDENTITY
    xyz = _floats(ctx, origin, 'xyz', 3, (0.0, 0.0, 0.0))
    rpy = _floats(ctx, origin, 'rpy', 3, (0.0, 0.0, 0.0))
    return Pose.from_xyz_rpy(xyz, rpy)


def _resolve_mesh(ctx: _Context, filename: str) -> Path | None:
    candidates: list[Path] = []
    if filename.startswith('package://'):
        package, _, rest = filename[len('package://'):].partition('/')
        share = paths.package_share(package) if package else None
        if share is not None and paths.is_file(share / rest):
            return (share / rest).resolve()  # the ament index is a configured search path
        if ctx.res_dir is not None:
            candidates += [ctx.res_dir / rest, ctx.res_dir / package / rest]
        candidates += [ctx.base_dir / rest, ctx.base_dir.parent / rest,
                       ctx.base_dir.parent.parent / package / rest]
    elif filename.startswith('file://'):
        candidates.append(Path(filename[len('file://'):]))
    else:
        candidates.append(ctx.base_dir / filename)
        if ctx.res_dir is not None:
            candidates.append(ctx.res_dir / filename)
    for candidate in candidates:
        if paths.is_file(candidate):
            return paths.confine(candidate.resolve(), 'file', ctx.file)
    return None


def _geometry(ctx: _Context, holder: etree._Element, what: str) -> Shape | None:
    geometry = holder.find('geometry')
    if geometry is None or len(geometry) == 0:
        ctx.error(holder.sourceline, f'<{what}> without <geometry>')
        return None
    shape = geometry[0]
    line = shape.sourceline
    if shape.tag == 'box':
        size = _floats(ctx, shape, 'size', 3, (0.0, 0.0, 0.0))
        return Box((size[0], size[1], size[2]))
    if shape.tag == 'sphere':
        return Sphere(_float(ctx, shape, 'radius', 0.0) or 0.0)
    if shape.tag in ('cylinder', 'capsule'):
        radius = _float(ctx, shape, 'radius', 0.0) or 0.0
        length = _float(ctx, shape, 'length', 0.0) or 0.0
        return Cylinder(radius, length) if shape.tag == 'cylinder' else Capsule(radius, length)
    if shape.tag == 'mesh':
        filename = shape.get('filename', '')
        resolved = _resolve_mesh(ctx, filename)
        if resolved is None:
            ctx.warn(line, f'{what} mesh file {filename!r} not found; shape dropped')
            return None
        scale = _floats(ctx, shape, 'scale', 3, (1.0, 1.0, 1.0))
        return MeshFile(resolved, (scale[0], scale[1], scale[2]))
    ctx.warn(line, f'unsupported {what} geometry <{shape.tag}>; shape dropped')
    return None


def _color(ctx: _Context, material: etree._Element) -> tuple[RGBA | None, Path | None]:
    color_el = material.find('color')
    texture_el = material.find('texture')
    color: RGBA | None = None
    if color_el is not None:
        rgba = _floats(ctx, color_el, 'rgba', 4, GREY)
        color = (rgba[0], rgba[1], rgba[2], rgba[3])
    texture = None
    if texture_el is not None and texture_el.get('filename'):
        texture = _resolve_mesh(ctx, texture_el.get('filename', ''))
    return color, texture


def _visual_material(ctx: _Context, visual: etree._Element) -> tuple[RGBA, Path | None]:
    material = visual.find('material')
    if material is None:
        return GREY, None
    color, texture = _color(ctx, material)
    if color is None and texture is None:
        color, texture = ctx.materials.get(material.get('name', ''), (None, None))
    return color or GREY, texture


def _inertial(ctx: _Context, link: etree._Element) -> Inertial:
    inertial = link.find('inertial')
    if inertial is None:
        return Inertial()
    origin = _origin(ctx, inertial)
    mass = _float(ctx, inertial.find('mass'), 'value', 0.0) or 0.0
    tensor = inertial.find('inertia')
    ixx, ixy, ixz, iyy, iyz, izz = (_float(ctx, tensor, key, 0.0) or 0.0
                                    for key in ('ixx', 'ixy', 'ixz', 'iyy', 'iyz', 'izz'))
    inertia = rotate_inertia((ixx, ixy, ixz, iyy, iyz, izz), origin.orientation)
    return Inertial(mass, origin.position, inertia)


def _link(ctx: _Context, element: etree._Element) -> Link:
    name = element.get('name', '')
    for child in element:
        if child.tag not in KNOWN_LINK_CHILDREN:
            ctx.warn(child.sourceline, f'unknown element <{child.tag}> in link {name!r} ignored')
    collisions = []
    for index, collision in enumerate(element.findall('collision')):
        shape = _geometry(ctx, collision, 'collision')
        if shape is not None:
            collisions.append(Collision(shape, _origin(ctx, collision),
                                        name=collision.get('name', f'{name}_collision{index}')))
    visuals = []
    for index, visual in enumerate(element.findall('visual')):
        shape = _geometry(ctx, visual, 'visual')
        if shape is not None:
            color, texture = _visual_material(ctx, visual)
            visuals.append(Visual(shape, _origin(ctx, visual), color, texture,
                                  name=visual.get('name', f'{name}_visual{index}')))
    return Link(name, _inertial(ctx, element), tuple(collisions), tuple(visuals))


def parse_link(element: etree._Element, *, file: str | Path, res_dir: str | Path | None = None,
               strict: bool = False) -> tuple[Link, list[str], list[str]]:
    """Parse one URDF-style ``<link>`` element (also used by RaiSim sensor sets).

    Returns the link, the warnings and the errors (``file:line: message`` strings).
    """
    file_path = Path(file)
    ctx = _Context(str(file_path), file_path.parent, Path(res_dir) if res_dir else None, strict)
    link = _link(ctx, element)
    return link, ctx.warnings, ctx.errors


def _motor(joint_type: str, effort: float | None, velocity: float | None) -> ServoMotor | None:
    if joint_type not in ('revolute', 'prismatic'):
        return None
    return ServoMotor(max_velocity=velocity or DEFAULT_MAX_VELOCITY,
                      max_force=effort or DEFAULT_MAX_EFFORT,
                      p=DEFAULT_SERVO_P, d=DEFAULT_SERVO_D)


def _joint(ctx: _Context, element: etree._Element) -> Joint | None:
    name = element.get('name', '')
    urdf_type = element.get('type', '')
    parent, child = element.find('parent'), element.find('child')
    if parent is None or child is None:
        ctx.error(element.sourceline, f'joint {name!r} needs <parent> and <child>')
        return None
    for sub in element:
        if sub.tag not in KNOWN_JOINT_CHILDREN:
            ctx.warn(sub.sourceline, f'unknown element <{sub.tag}> in joint {name!r} ignored')
    joint_type = JOINT_TYPES.get(urdf_type, 'fixed')
    limit = element.find('limit')
    limits = None
    if urdf_type in ('revolute', 'prismatic') and limit is not None:
        lower = _float(ctx, limit, 'lower', 0.0) or 0.0
        upper = _float(ctx, limit, 'upper', 0.0) or 0.0
        if lower < upper:
            limits = (lower, upper)
    effort = _float(ctx, limit, 'effort', None)
    velocity = _float(ctx, limit, 'velocity', None)
    axis = (1.0, 0.0, 0.0)
    axis_el = element.find('axis')
    if axis_el is not None:
        raw = _floats(ctx, axis_el, 'xyz', 3, axis)
        try:
            axis = normalized((raw[0], raw[1], raw[2]))
        except ValueError:
            ctx.error(axis_el.sourceline, f'joint {name!r} has a zero axis')
    dynamics = element.find('dynamics')
    return Joint(name=name, type=joint_type, parent=parent.get('link', ''),
                 child=child.get('link', ''), origin=_origin(ctx, element), axis=axis,
                 limits=limits, motor=_motor(joint_type, effort, velocity),
                 damping=_float(ctx, dynamics, 'damping', 0.0) or 0.0,
                 friction=_float(ctx, dynamics, 'friction', 0.0) or 0.0,
                 max_effort=effort or None, max_velocity=velocity or None)


def _is_world_link(link: Link) -> bool:
    return (link.name == 'world' and not link.collisions and not link.visuals
            and link.inertial.mass == 0.0)


def _build(root: etree._Element, ctx: _Context, name: str | None, text: str) -> UrdfModel:
    for child in root:
        if child.tag not in KNOWN_ROBOT_CHILDREN:
            ctx.warn(child.sourceline, f'unknown element <{child.tag}> in <robot> ignored')
    for material in root.findall('material'):
        ctx.materials[material.get('name', '')] = _color(ctx, material)
    link_elements = {el.get('name', ''): el for el in root.findall('link')}
    links = {link_name: _link(ctx, el) for link_name, el in link_elements.items()}
    joint_elements = root.findall('joint')
    joints: list[tuple[Joint, etree._Element]] = []
    for element in joint_elements:
        joint = _joint(ctx, element)
        if joint is not None:
            joints.append((joint, element))
    children = {j.child for j, _ in joints}
    for joint, element in joints:
        for end in (joint.parent, joint.child):
            if end not in links:
                ctx.error(element.sourceline, f'joint {joint.name!r} names unknown link {end!r}')
    if ctx.errors:
        raise SceneLoadError(limits.joined(ctx.errors))
    roots = [n for n in links if n not in children]
    if len(roots) != 1:
        shown = ', '.join(map(repr, roots[:10])) + (f' and {len(roots) - 10} more'
                                                    if len(roots) > 10 else '')
        raise SceneLoadError(f'a URDF needs exactly one root link, found {len(roots)}: {shown}',
                             ctx.file, root.sourceline)
    root_name = roots[0]
    pose, floating = IDENTITY, True
    by_parent: dict[str, list[tuple[Joint, etree._Element]]] = {}
    for joint, element in joints:
        by_parent.setdefault(joint.parent, []).append((joint, element))
    if _is_world_link(links[root_name]) \
            and len(by_parent.get(root_name, ())) == 1:
        world_joint, element = by_parent.pop(root_name)[0]
        urdf_type = element.get('type', '')
        if urdf_type not in WORLD_JOINT_TYPES:
            ctx.warn(element.sourceline, f'{urdf_type} joint to the world treated as fixed')
        floating = urdf_type == 'floating'
        pose = world_joint.origin
        root_name = world_joint.child
    order_links: list[Link] = []
    order_joints: list[Joint] = []

    def visit(link_name: str) -> None:  # depth-first, children in file order
        order_links.append(links[link_name])
        for joint, element in by_parent.get(link_name, []):
            if element.get('type') in ('floating', 'planar'):
                ctx.warn(element.sourceline, f'{element.get("type")} joint {joint.name!r} '
                         'inside the tree is not supported; treated as fixed')
            order_joints.append(joint)
            visit(joint.child)

    visit(root_name)
    sensor_sets = tuple((n, el.get('sensor', ''), el.sourceline or 0)
                        for n, el in link_elements.items() if el.get('sensor'))
    kind: EntityKind = 'robot' if order_joints or sensor_sets else 'object'
    entity = Entity(name=name or root.get('name', root_name), kind=kind,
                    links=tuple(order_links), joints=tuple(order_joints), pose=pose,
                    fixed_base=not floating, urdf=text, source=ctx.file)
    return UrdfModel(entity=entity, floating=floating, sensor_sets=sensor_sets,
                     joint_order=tuple(j.name for j in order_joints if j.movable))


def with_initial_positions(entity: Entity, positions: Mapping[str, float]) -> Entity:
    """Return ``entity`` with the named joints starting at ``positions``."""
    joints = tuple(dataclasses.replace(j, initial_position=positions[j.name])
                   if j.name in positions else j for j in entity.joints)
    return dataclasses.replace(entity, joints=joints)

