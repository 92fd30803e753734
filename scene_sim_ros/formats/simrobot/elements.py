"""The SimRobot grammar as one table: element -> class, attributes, children and handler.

Both grammar versions are covered: the older ``Light`` (ODE era, bhuman/SimRobot@7348c36) and
the newer ``DirLight``/``PointLight``/``SpotLight`` plus ``TorusGeometry``, ``CapsuleMass`` and
``CylinderMass``; attributes of the MuJoCo-era ``.ros3`` files that have a meaning here are
accepted too. Children are given by class (``geometry`` = every geometry element, ...):
``required`` must occur, ``optional`` may occur once, ``repeatable`` any number of times.

Leaf handlers (``build``) turn an expanded element into model values: a shape for geometries
and appearances, ``(mass, com, inertia)`` for masses, a motor, a sensor or a light. Structural
elements (Scene, Compound, Body, Hinge, Slider, ...) have no handler here: ``builder.py`` walks
them.
"""

from __future__ import annotations

import math
import re
from typing import Any

import numpy as np

from ...scene import geometry, inertia, motors, sensors
from ...scene.model import Light
from ...scene.transforms import Pose, normalized, vec3
from .instance import ElementSpec, Instance
from .values import (
    ACCELERATION,
    ANGLE,
    ANGULAR_VELOCITY,
    FORCE,
    INERTIA,
    LENGTH,
    MASS,
    TIME,
    UNITLESS,
    VELOCITY,
)

# --- leaf handlers ---------------------------------------------------------------------------

def _positive(inst: Instance, key: str, units: dict[str, float]) -> float:
    value = inst.number_or_none(key, units, required=True)
    if value is None:
        return 1.0  # already reported; a neutral size lets the rest of the scene be checked
    if value <= 0.0:
        inst.error(f'attribute "{key}" of <{inst.tag}> must be positive', key)
    return value


def _box(inst: Instance) -> geometry.Box:
    # SimRobot: depth along x, width along y, height along z
    return geometry.Box((_positive(inst, 'depth', LENGTH), _positive(inst, 'width', LENGTH),
                         _positive(inst, 'height', LENGTH)))


def _sphere(inst: Instance) -> geometry.Sphere:
    return geometry.Sphere(_positive(inst, 'radius', LENGTH))


def _cylinder(inst: Instance) -> geometry.Cylinder:
    return geometry.Cylinder(_positive(inst, 'radius', LENGTH), _positive(inst, 'height', LENGTH))


def _capsule(inst: Instance) -> geometry.Capsule:
    # SimRobot's height is the whole capsule; the model's length is between the cap centres
    radius = _positive(inst, 'radius', LENGTH)
    height = _positive(inst, 'height', LENGTH)
    return geometry.Capsule(radius, max(0.0, height - 2.0 * radius))


def _torus(inst: Instance) -> geometry.Torus:
    return geometry.Torus(_positive(inst, 'majorRadius', LENGTH),
                          _positive(inst, 'minorRadius', LENGTH))


def _container(inst: Instance) -> None:
    return None


MassProperties = tuple[float, tuple[float, float, float], inertia.Inertia6]


def _mass_value(inst: Instance) -> float:
    value = inst.number_or_none('value', MASS, required=True)
    if value is None:
        return 0.0
    if value <= 0.0:
        inst.error(f'attribute "value" of <{inst.tag}>: a mass must be greater than zero',
                   'value')
    return value


def _no_mass(inst: Instance) -> MassProperties:
    return 0.0, (0.0, 0.0, 0.0), inertia.ZERO_INERTIA


def _box_mass(inst: Instance) -> MassProperties:
    m = _mass_value(inst)
    size = _box(inst).size
    return m, (0.0, 0.0, 0.0), inertia.box_inertia(m, size)


def _sphere_mass(inst: Instance) -> MassProperties:
    m = _mass_value(inst)
    return m, (0.0, 0.0, 0.0), inertia.sphere_inertia(m, _sphere(inst).radius)


def _cylinder_mass(inst: Instance) -> MassProperties:
    m = _mass_value(inst)
    shape = _cylinder(inst)
    return m, (0.0, 0.0, 0.0), inertia.cylinder_inertia(m, shape.radius, shape.length)


def _capsule_mass(inst: Instance) -> MassProperties:
    m = _mass_value(inst)
    shape = _capsule(inst)
    return m, (0.0, 0.0, 0.0), inertia.capsule_inertia(m, shape.radius, shape.length)


def _inertia_matrix_mass(inst: Instance) -> MassProperties:
    # The tensor is about the centre of mass (x, y, z), as SimRobotCore3 and the NAO data use it.
    m = _mass_value(inst)
    com = (inst.number('x', LENGTH), inst.number('y', LENGTH), inst.number('z', LENGTH))
    tensor = (inst.number('ixx', INERTIA, required=True), inst.number('ixy', INERTIA),
              inst.number('ixz', INERTIA), inst.number('iyy', INERTIA, required=True),
              inst.number('iyz', INERTIA), inst.number('izz', INERTIA, required=True))
    return m, com, tensor


def _servo_motor(inst: Instance, prismatic: bool) -> motors.ServoMotor:
    velocity_units = VELOCITY if prismatic else ANGULAR_VELOCITY
    return motors.ServoMotor(max_velocity=inst.number('maxVelocity', velocity_units, required=True),
                             max_force=inst.number('maxForce', FORCE, required=True),
                             p=inst.number('p', UNITLESS, required=True),
                             i=inst.number('i', UNITLESS), d=inst.number('d', UNITLESS),
                             delay=max(0.0, inst.number('delay', TIME, 0.0)),
                             velocity_filter=min(1.0, max(0.0, inst.number(
                                 'velocityLowPassFactor', UNITLESS, 1.0))))


def _velocity_motor(inst: Instance, prismatic: bool) -> motors.VelocityMotor:
    velocity_units = VELOCITY if prismatic else ANGULAR_VELOCITY
    return motors.VelocityMotor(
        max_velocity=inst.number('maxVelocity', velocity_units, required=True),
        max_force=inst.number('maxForce', FORCE, required=True))


def _pt2_motor(inst: Instance, prismatic: bool) -> motors.PT2Motor:
    return motors.PT2Motor(t=inst.number('T', UNITLESS, required=True),
                           d=inst.number('D', UNITLESS, required=True),
                           k=inst.number('K', UNITLESS, required=True),
                           v=inst.number('V', UNITLESS, required=True),
                           f=inst.number('F', FORCE, required=True))


def _image_size(inst: Instance, height_default: int | None = None) -> tuple[int, int]:
    width = inst.integer('imageWidth', required=True)
    height = inst.integer('imageHeight', height_default or 0, required=height_default is None)
    for key, value in (('imageWidth', width), ('imageHeight', height)):
        if value <= 0 and key in inst.attrs:
            inst.error(f'attribute "{key}" of <{inst.tag}> must be a positive integer', key)
    return width, height


def _angles(inst: Instance) -> tuple[float, float]:
    return _positive(inst, 'angleX', ANGLE), _positive(inst, 'angleY', ANGLE)


def _camera(inst: Instance, name: str, link: str, pose: Pose) -> sensors.Camera:
    width, height = _image_size(inst)
    fov_x, fov_y = _angles(inst)
    return sensors.Camera(name, link, width, height, fov_x, fov_y, pose)


def _segmentation(inst: Instance, name: str, link: str, pose: Pose) -> sensors.SegmentationCamera:
    width, height = _image_size(inst)
    fov_x, fov_y = _angles(inst)
    return sensors.SegmentationCamera(name, link, width, height, fov_x, fov_y, pose)


def _depth(inst: Instance, name: str, link: str, pose: Pose) -> sensors.DepthCamera:
    width, height = _image_size(inst, height_default=1)
    fov_x, fov_y = _angles(inst)
    projection = inst.string('projection', 'perspective')
    if projection in ('spherical', 'spheric'):
        projection = 'spherical'
        if height > 1:
            inst.error('spherical projection needs imageHeight="1"', 'projection')
    elif projection != 'perspective':
        inst.error(f'unknown projection "{projection}" (expected perspective or spherical)',
                   'projection')
        projection = 'perspective'
    return sensors.DepthCamera(name, link, width, height, fov_x, fov_y,
                               min_range=inst.number('min', LENGTH, 0.0),
                               max_range=inst.number('max', LENGTH, 999999.0),
                               projection=projection, pose=pose)


def _single_distance(inst: Instance, name: str, link: str,
                     pose: Pose) -> sensors.SingleDistanceSensor:
    return sensors.SingleDistanceSensor(name, link, inst.number('min', LENGTH, 0.0),
                                        inst.number('max', LENGTH, 999999.0), pose)


def _approx_distance(inst: Instance, name: str, link: str,
                     pose: Pose) -> sensors.ApproxDistanceSensor:
    fov_x, fov_y = _angles(inst)
    return sensors.ApproxDistanceSensor(name, link, inst.number('min', LENGTH, 0.0),
                                        inst.number('max', LENGTH, 999999.0), fov_x, fov_y, pose)


def _accelerometer(inst: Instance, name: str, link: str, pose: Pose) -> sensors.Accelerometer:
    return sensors.Accelerometer(name, link, pose)


def _gyroscope(inst: Instance, name: str, link: str, pose: Pose) -> sensors.Gyroscope:
    return sensors.Gyroscope(name, link, pose)


USER_INPUT_TYPES = {'length': (LENGTH, 'm'), '': (LENGTH, 'm'), 'angle': (ANGLE, 'rad'),
                    'angularVelocity': (ANGULAR_VELOCITY, 'rad/s'), 'velocity': (VELOCITY, 'm/s'),
                    'acceleration': (ACCELERATION, 'm/s^2')}


def _user_input(inst: Instance, name: str, link: str, pose: Pose) -> sensors.UserInput:
    kind = inst.string('type')
    if kind not in USER_INPUT_TYPES:
        inst.error(f'unknown user input type "{kind}" (expected length, velocity, '
                   'acceleration, angle or angularVelocity)', 'type')
        kind = 'length'
    units, unit_name = USER_INPUT_TYPES[kind]
    return sensors.UserInput(name, link, inst.number('min', units, required=True),
                             inst.number('max', units, required=True),
                             inst.number('default', units, 0.0), unit_name, pose)


def _light_colors(inst: Instance) -> dict[str, Any]:
    diffuse = inst.color('diffuseColor', inst.color('color', (1.0, 1.0, 1.0, 1.0)))
    assert diffuse is not None
    intensity = inst.number('intensity', UNITLESS, 1.0)
    if intensity != 1.0:
        diffuse = (diffuse[0] * intensity, diffuse[1] * intensity, diffuse[2] * intensity,
                   diffuse[3])
    return {'diffuse': diffuse,
            'ambient': inst.color('ambientColor', (0.0, 0.0, 0.0, 1.0)),
            'specular': inst.color('specularColor', (1.0, 1.0, 1.0, 1.0))}


def _direction(inst: Instance, keys: tuple[str, str, str], default: tuple[float, float, float],
               units: dict[str, float] = UNITLESS) -> tuple[float, float, float]:
    vector = vec3([inst.number(k, units, d) for k, d in zip(keys, default)])
    try:
        return normalized(vector)
    except ValueError:
        inst.error(f'<{inst.tag}> has a zero direction')
        return default


def _old_light(inst: Instance) -> Light:
    # OpenGL fixed-function light with w = 0: a directional light shining from (x, y, z)
    towards = _direction(inst, ('x', 'y', 'z'), (0.0, 0.0, 1.0), LENGTH)
    cutoff = inst.number('spotCutoff', ANGLE, math.pi)
    return Light('directional', direction=(-towards[0], -towards[1], -towards[2]),
                 cutoff=None if cutoff >= math.pi else cutoff, **_light_colors(inst))


def _dir_light(inst: Instance) -> Light:
    towards = _direction(inst, ('x', 'y', 'z'), (0.0, 0.0, 1.0))
    return Light('directional', direction=(-towards[0], -towards[1], -towards[2]),
                 **_light_colors(inst))


def _position(inst: Instance) -> tuple[float, float, float]:
    return (inst.number('x', LENGTH), inst.number('y', LENGTH), inst.number('z', LENGTH))


def _point_light(inst: Instance) -> Light:
    return Light('point', position=_position(inst), **_light_colors(inst))


def _spot_light(inst: Instance) -> Light:
    direction = _direction(inst, ('dirX', 'dirY', 'dirZ'), (0.0, 0.0, 1.0))
    cosine = min(1.0, max(0.0, inst.number('cutoff', UNITLESS, 0.0)))
    return Light('spot', position=_position(inst), direction=direction,
                 cutoff=math.acos(cosine), **_light_colors(inst))


# --- mesh data (ComplexAppearance) --------------------------------------------------------------

_COMMENT = re.compile(r'#[^\n\r]*')


def text_numbers(inst: Instance, dtype: type) -> np.ndarray:
    """The numbers in the text of ``inst`` (all passes of a reference), parsed once per node."""
    parts = []
    for node in inst.texts:
        if node.cache is None:
            node.cache = {}
        key = ('numbers', dtype)
        array = node.cache.get(key)
        if array is None:
            assert node.text is not None  # Instance.texts holds only nodes with text
            text = _COMMENT.sub(' ', node.text) if '#' in node.text else node.text
            try:
                array = np.array(text.split(), dtype=np.float64)
            except ValueError:
                inst.error(f'<{inst.tag}> must contain numbers separated by spaces')
                array = np.zeros(0)
            if dtype is int:
                if not np.all(array == np.floor(array)):
                    inst.error(f'<{inst.tag}> must contain integer indices')
                array = array.astype(np.int64)
            array.flags.writeable = False
            node.cache[key] = array
        parts.append(array)
    if not parts:
        return np.zeros(0, dtype=np.int64 if dtype is int else np.float64)
    return parts[0] if len(parts) == 1 else np.concatenate(parts)


def _group_triangles(group: Instance, indices: np.ndarray) -> np.ndarray:
    corners = 4 if group.tag == 'Quads' else 3
    if len(indices) % corners:
        group.error(f'<{group.tag}> needs a multiple of {corners} indices')
        indices = indices[:len(indices) - len(indices) % corners]
    polygons = indices.reshape(-1, corners)
    if corners == 3:
        return polygons
    return np.stack([polygons[:, [0, 1, 2]], polygons[:, [0, 2, 3]]], axis=1).reshape(-1, 3)


def _vertex_unit(inst: Instance) -> float:
    unit = inst.string('unit').strip()  # a unit name alone, e.g. unit="mm"
    factor = LENGTH.get(unit) if unit else 1.0
    if factor is None:
        inst.error(f'attribute "unit" of <{inst.tag}>: unknown unit {unit!r} (expected mm, cm, '
                   'dm, m or km)', 'unit')
        return 1.0
    return factor


def build_mesh(inst: Instance, name: str) -> geometry.Mesh | None:
    """The triangle mesh of a ``ComplexAppearance``; shared by every instance of a definition.

    With ``<Normals>`` the index lists alternate vertex and normal indices (SimRobot's
    convention); such corners are split into unique (vertex, normal) pairs.
    """
    vertices_inst = inst.first('vertices')
    groups = inst.all('primitiveGroup')
    if vertices_inst is None or not groups:
        return None
    normals_inst = inst.first('normals')
    texcoords_inst = inst.first('texCoords')
    unit = _vertex_unit(vertices_inst)
    key = ('mesh', unit, tuple(id(n) for n in vertices_inst.texts),
           tuple(tuple(id(n) for n in g.texts) + (g.tag,) for g in groups),
           None if normals_inst is None else tuple(id(n) for n in normals_inst.texts),
           None if texcoords_inst is None else tuple(id(n) for n in texcoords_inst.texts))
    anchor = vertices_inst.texts[0] if vertices_inst.texts else vertices_inst.node
    if anchor.cache is None:
        anchor.cache = {}
    cached = anchor.cache.get(key)
    if cached is not None:
        return cached
    mesh = _assemble_mesh(inst, name, vertices_inst, groups, normals_inst, texcoords_inst, unit)
    anchor.cache[key] = mesh
    return mesh


def _assemble_mesh(inst: Instance, name: str, vertices_inst: Instance, groups: list[Instance],
                   normals_inst: Instance | None, texcoords_inst: Instance | None,
                   unit: float) -> geometry.Mesh | None:
    raw_vertices = text_numbers(vertices_inst, float)
    if len(raw_vertices) % 3:
        vertices_inst.error('<Vertices> needs three coordinates per vertex')
        raw_vertices = raw_vertices[:len(raw_vertices) - len(raw_vertices) % 3]
    vertices = raw_vertices.reshape(-1, 3) * unit
    normals = None
    if normals_inst is not None:
        raw_normals = text_numbers(normals_inst, float)
        normals = raw_normals[:len(raw_normals) - len(raw_normals) % 3].reshape(-1, 3)
    texcoords = None
    if texcoords_inst is not None:
        raw_tex = text_numbers(texcoords_inst, float)
        texcoords = raw_tex[:len(raw_tex) - len(raw_tex) % 2].reshape(-1, 2)
    vertex_corners, normal_corners = [], []
    for group in groups:
        indices = text_numbers(group, int)
        if normals is not None:
            if len(indices) % 2:
                group.error(f'<{group.tag}> with <Normals> needs vertex/normal index pairs')
                indices = indices[:-1]
            vertex_corners.append(_group_triangles(group, indices[0::2]))
            normal_corners.append(_group_triangles(group, indices[1::2]))
        else:
            vertex_corners.append(_group_triangles(group, indices))
    triangles = np.concatenate(vertex_corners) if vertex_corners else np.zeros((0, 3), np.int64)
    if len(triangles) and (triangles.min() < 0 or triangles.max() >= len(vertices)):
        inst.error(f'<{inst.tag}> uses a vertex index outside 0..{len(vertices) - 1}')
        return None
    if texcoords is not None and len(texcoords) < len(vertices):
        inst.warn(f'<{inst.tag}> has fewer texture coordinates than vertices; ignored')
        texcoords = None
    elif texcoords is not None:
        texcoords = texcoords[:len(vertices)]
    if normals is not None:
        normal_triangles = np.concatenate(normal_corners)
        if len(normal_triangles) and (normal_triangles.min() < 0
                                      or normal_triangles.max() >= len(normals)):
            inst.error(f'<{inst.tag}> uses a normal index outside 0..{len(normals) - 1}')
            return None
        pairs = triangles.astype(np.int64) * max(1, len(normals)) + normal_triangles
        unique, inverse = np.unique(pairs.ravel(), return_inverse=True)
        vertex_ids, normal_ids = np.divmod(unique, max(1, len(normals)))
        vertices = vertices[vertex_ids]
        normals = normals[normal_ids]
        texcoords = None if texcoords is None else texcoords[vertex_ids]
        triangles = inverse.reshape(-1, 3)
    return geometry.Mesh(vertices, triangles, normals, texcoords, name=name)


def _complex(inst: Instance) -> geometry.Mesh | None:
    return build_mesh(inst, inst.string('name'))


# --- the table ---------------------------------------------------------------------------------

def _f(*names: str) -> frozenset[str]:
    return frozenset(names)


POSE = _f('translation', 'rotation')
LIGHT_COLORS = ('diffuseColor', 'ambientColor', 'specularColor', 'color', 'intensity')
ATTENUATION = ('constantAttenuation', 'linearAttenuation', 'quadraticAttenuation')
SERVO_EXTRAS = ('isNaoMotor', 'minFeedbackForce', 'maxFeedbackForce', 'maxPositionDiff',
                'maxForceGrowth', 'fudgeFactor', 'delay', 'velocityLowPassFactor')
GEOMETRY_CHILDREN = {'optional': POSE | {'material'}, 'repeatable': _f('set', 'geometry')}
MASS_CHILDREN = {'optional': POSE, 'repeatable': _f('set', 'mass')}
APPEARANCE_CHILDREN = {'required': _f('surface'), 'optional': POSE,
                       'repeatable': _f('set', 'appearance')}
SENSOR_CHILDREN = {'optional': POSE}
CAMERA_ATTRIBUTES = _f('imageWidth', 'imageHeight', 'angleX', 'angleY')


def _rows() -> list[ElementSpec]:
    E = ElementSpec
    return [
        E('Include', 'infrastructure', _f('href')),
        E('Simulation', 'infrastructure', repeatable=_f(
            'scene', 'appearance', 'body', 'compound', 'extSensor', 'geometry', 'intSensor',
            'joint', 'mass', 'material', 'normals', 'primitiveGroup', 'set', 'surface',
            'texCoords', 'userInput', 'vertices', 'light', 'infrastructure')),
        E('Set', 'set', _f('value')),
        E('Scene', 'scene', _f('controller', 'color', 'stepLength', 'gravity', 'CFM', 'ERP',
                               'contactSoftERP', 'contactSoftCFM', 'bodyCollisions', 'slip1',
                               'slip2'),
          optional=_f('solver'),
          repeatable=_f('set', 'body', 'compound', 'light', 'userInput')),
        E('QuickSolver', 'solver', _f('iterations', 'skip')),
        E('Light', 'light', _f(*LIGHT_COLORS, 'x', 'y', 'z', *ATTENUATION, 'spotCutoff',
                               'spotDirectionX', 'spotDirectionY', 'spotDirectionZ',
                               'spotExponent'), build=_old_light),
        E('DirLight', 'light', _f(*LIGHT_COLORS, 'x', 'y', 'z'), build=_dir_light),
        E('PointLight', 'light', _f(*LIGHT_COLORS, 'x', 'y', 'z', *ATTENUATION),
          build=_point_light),
        E('SpotLight', 'light', _f(*LIGHT_COLORS, 'x', 'y', 'z', *ATTENUATION, 'dirX', 'dirY',
                                   'dirZ', 'cutoff'), build=_spot_light),
        E('Compound', 'compound', optional=POSE, repeatable=_f(
            'set', 'joint', 'compound', 'body', 'appearance', 'geometry', 'extSensor',
            'userInput')),
        E('Body', 'body', _f('collideWithParent'), required=_f('mass'), optional=POSE,
          repeatable=_f('set', 'joint', 'appearance', 'geometry', 'mass', 'intSensor',
                        'extSensor', 'userInput')),
        E('Translation', 'translation', _f('x', 'y', 'z')),
        E('Rotation', 'rotation', _f('x', 'y', 'z')),
        E('Mass', 'mass', build=_no_mass, **MASS_CHILDREN),
        E('BoxMass', 'mass', _f('value', 'width', 'height', 'depth'), build=_box_mass,
          **MASS_CHILDREN),
        E('SphereMass', 'mass', _f('value', 'radius'), build=_sphere_mass, **MASS_CHILDREN),
        E('InertiaMatrixMass', 'mass', _f('value', 'x', 'y', 'z', 'ixx', 'ixy', 'ixz', 'iyy',
                                          'iyz', 'izz'),
          build=_inertia_matrix_mass, **MASS_CHILDREN),
        E('CapsuleMass', 'mass', _f('value', 'radius', 'height'), build=_capsule_mass,
          **MASS_CHILDREN),
        E('CylinderMass', 'mass', _f('value', 'radius', 'height'), build=_cylinder_mass,
          **MASS_CHILDREN),
        E('Geometry', 'geometry', build=_container, **GEOMETRY_CHILDREN),
        E('BoxGeometry', 'geometry', _f('color', 'width', 'height', 'depth'), build=_box,
          **GEOMETRY_CHILDREN),
        E('SphereGeometry', 'geometry', _f('color', 'radius'), build=_sphere,
          **GEOMETRY_CHILDREN),
        E('CylinderGeometry', 'geometry', _f('color', 'radius', 'height'), build=_cylinder,
          **GEOMETRY_CHILDREN),
        E('CapsuleGeometry', 'geometry', _f('color', 'radius', 'height'), build=_capsule,
          **GEOMETRY_CHILDREN),
        E('TorusGeometry', 'geometry', _f('color', 'majorRadius', 'minorRadius'), build=_torus,
          **GEOMETRY_CHILDREN),
        E('Material', 'material', _f('friction', 'rollingFriction'),
          repeatable=_f('set', 'friction')),
        E('Friction', 'friction', _f('material', 'value')),
        E('RollingFriction', 'friction', _f('material', 'value')),
        E('Appearance', 'appearance', build=_container, optional=POSE,
          repeatable=_f('set', 'appearance')),
        E('BoxAppearance', 'appearance', _f('width', 'height', 'depth'), build=_box,
          **APPEARANCE_CHILDREN),
        E('SphereAppearance', 'appearance', _f('radius'), build=_sphere, **APPEARANCE_CHILDREN),
        E('CylinderAppearance', 'appearance', _f('height', 'radius'), build=_cylinder,
          **APPEARANCE_CHILDREN),
        E('CapsuleAppearance', 'appearance', _f('height', 'radius'), build=_capsule,
          **APPEARANCE_CHILDREN),
        E('ComplexAppearance', 'appearance', build=_complex,
          required=_f('surface', 'vertices', 'primitiveGroup'),
          optional=POSE | {'normals', 'texCoords'},
          repeatable=_f('set', 'primitiveGroup', 'appearance')),
        E('Vertices', 'vertices', _f('unit')),
        E('Normals', 'normals'),
        E('TexCoords', 'texCoords'),
        E('Triangles', 'primitiveGroup'),
        E('Quads', 'primitiveGroup'),
        E('Surface', 'surface', _f('diffuseColor', 'ambientColor', 'specularColor',
                                   'emissionColor', 'shininess', 'diffuseTexture',
                                   # SimRobot HEAD (PBR, 3316d64)
                                   'albedo', 'alpha', 'metallic', 'roughness', 'ambient',
                                   'texture')),
        E('Hinge', 'joint', required=_f('body', 'axis'), optional=POSE, repeatable=_f('set')),
        E('Slider', 'joint', required=_f('body', 'axis'), optional=POSE, repeatable=_f('set')),
        E('Axis', 'axis', _f('x', 'y', 'z', 'cfm'), optional=_f('motor', 'deflection'),
          repeatable=_f('set')),
        E('Deflection', 'deflection', _f('min', 'max', 'init', 'stopCFM', 'stopERP',
                                         'isActive')),
        E('PT2Motor', 'motor', _f('T', 'D', 'K', 'V', 'F'), build=_pt2_motor),
        E('ServoMotor', 'motor', _f('maxVelocity', 'maxForce', 'p', 'i', 'd', *SERVO_EXTRAS),
          build=_servo_motor),
        E('VelocityMotor', 'motor', _f('maxVelocity', 'maxForce'), build=_velocity_motor),
        E('Gyroscope', 'intSensor', build=_gyroscope, **SENSOR_CHILDREN),
        E('Accelerometer', 'intSensor', build=_accelerometer, **SENSOR_CHILDREN),
        E('CollisionSensor', 'intSensor', optional=POSE, repeatable=_f('geometry')),
        E('Camera', 'extSensor', CAMERA_ATTRIBUTES, build=_camera, **SENSOR_CHILDREN),
        E('ObjectSegmentedImageSensor', 'extSensor', CAMERA_ATTRIBUTES, build=_segmentation,
          **SENSOR_CHILDREN),
        E('DepthImageSensor', 'extSensor', CAMERA_ATTRIBUTES | {'min', 'max', 'projection'},
          build=_depth, **SENSOR_CHILDREN),
        E('SingleDistanceSensor', 'extSensor', _f('min', 'max'), build=_single_distance,
          **SENSOR_CHILDREN),
        E('ApproxDistanceSensor', 'extSensor', _f('min', 'max', 'angleX', 'angleY'),
          build=_approx_distance, **SENSOR_CHILDREN),
        E('UserInput', 'userInput', _f('type', 'min', 'max', 'default'), build=_user_input),
    ]


GRAMMAR: dict[str, ElementSpec] = {row.tag: row for row in _rows()}
SIMULATION = GRAMMAR['Simulation']
