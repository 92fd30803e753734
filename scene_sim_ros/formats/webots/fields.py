"""Field names of Webots' built-in nodes, to catch typos as Webots does.

Webots reads a world against its node definitions and skips what it does not know with a
warning ("Skipped unknown field", "Skipped unknown node or PROTO"). Here an unknown field of a
node in :data:`BASE_FIELDS` is a warning that names the node, ``file:line`` and the closest field
(an error with ``strict``); a node type that is neither built in nor a PROTO found for the file
is "unknown node" with the closest known type. Nodes not in the table (rarely used built-ins)
are not checked field by field.

The tables follow the Webots reference manual (R2023b), with fields of older releases that
worlds in the wild still carry (Transform-era ``scale`` of Solid, ``spherical`` of cameras, ...).
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable

from .nodes import Node, Value

_SOLID = frozenset("""translation rotation scale children name model description contactMaterial
    immersionProperties boundingObject physics locked radarCrossSection recognitionColors
    translationStep rotationStep linearVelocity angularVelocity""".split())
_ROBOT = _SOLID | frozenset("""controller controllerArgs customData supervisor synchronization
    battery cpuConsumption selfCollision showWindow window remoteControl data
    robotWindow""".split())
_LIGHT = frozenset('ambientIntensity color intensity on castShadows'.split())
_DEVICE_AXES = frozenset('lookupTable xAxis yAxis zAxis resolution'.split())
_JOINT_PARAMETERS = frozenset("""position axis minStop maxStop springConstant dampingConstant
    staticFriction""".split())
_MOTOR = frozenset("""name acceleration consumptionFactor controlPID maxPosition maxVelocity
    minPosition multiplier sound muscles""".split())
_PRIMITIVE_SIDES = frozenset('bottom height radius side top subdivision'.split())


def _f(text: str, *more: frozenset[str]) -> frozenset[str]:
    result = frozenset(text.split())
    for extra in more:
        result |= extra
    return result


BASE_FIELDS: dict[str, frozenset[str]] = {
    'WorldInfo': _f("""info title window CFM ERP physics basicTimeStep FPS optimalThreadCount
        physicsDisableTime physicsDisableLinearThreshold physicsDisableAngularThreshold
        defaultDamping inkEvaporation coordinateSystem gpsCoordinateSystem gpsReference
        lineScale dragForceScale dragTorqueScale randomSeed contactProperties gravity
        northDirection fast2d"""),
    'Viewpoint': _f("""fieldOfView orientation position description near far exposure follow
        followType followOrientation followSmoothness lensFlare ambientOcclusionRadius
        bloomThreshold"""),
    'Background': _f("""skyColor luminosity backUrl bottomUrl frontUrl leftUrl rightUrl topUrl
        backIrradianceUrl bottomIrradianceUrl frontIrradianceUrl leftIrradianceUrl
        rightIrradianceUrl topIrradianceUrl"""),
    'DirectionalLight': _f('direction', _LIGHT),
    'PointLight': _f('attenuation location radius', _LIGHT),
    'SpotLight': _f('attenuation beamWidth cutOffAngle direction location radius', _LIGHT),
    'Group': _f('children'),
    'Slot': _f('type endPoint'),
    'Pose': _f('translation rotation children translationStep rotationStep'),
    'Transform': _f('translation rotation scale children translationStep rotationStep'),
    'Solid': _SOLID,
    'Robot': _ROBOT,
    'Physics': _f('density mass centerOfMass inertiaMatrix damping'),
    'Damping': _f('linear angular'),
    'Shape': _f('appearance geometry castShadows isPickable'),
    'PBRAppearance': _f("""baseColor baseColorMap transparency roughness roughnessMap metalness
        metalnessMap IBLStrength normalMap normalMapFactor occlusionMap occlusionMapStrength
        emissiveColor emissiveColorMap emissiveIntensity textureTransform name"""),
    'Appearance': _f('material texture textureTransform name'),
    'Material': _f('ambientIntensity diffuseColor emissiveColor shininess specularColor '
                   'transparency'),
    'ImageTexture': _f('url repeatS repeatT filtering'),
    'TextureTransform': _f('center rotation scale translation'),
    'Box': _f('size'),
    'Sphere': _f('radius subdivision ico'),
    'Cylinder': _PRIMITIVE_SIDES,
    'Capsule': _PRIMITIVE_SIDES,
    'Cone': _f('bottomRadius height side bottom subdivision'),
    'Plane': _f('size'),
    'IndexedFaceSet': _f("""coord normal texCoord solid ccw convex normalPerVertex coordIndex
        normalIndex texCoordIndex creaseAngle"""),
    'IndexedLineSet': _f('coord coordIndex'),
    'Coordinate': _f('point'),
    'Normal': _f('vector'),
    'TextureCoordinate': _f('point'),
    'Mesh': _f('url ccw name materialIndex'),
    'ElevationGrid': _f("""color height thickness xDimension xSpacing yDimension ySpacing
        zDimension zSpacing"""),
    'HingeJoint': _f('jointParameters device endPoint'),
    'SliderJoint': _f('jointParameters device endPoint'),
    'Hinge2Joint': _f('jointParameters jointParameters2 device device2 endPoint'),
    'BallJoint': _f("""jointParameters jointParameters2 jointParameters3 device device2 device3
        endPoint"""),
    'JointParameters': _JOINT_PARAMETERS,
    'HingeJointParameters': _f("""anchor suspensionSpringConstant suspensionDampingConstant
        suspensionAxis stopCFM stopERP""", _JOINT_PARAMETERS),
    'BallJointParameters': _f('position anchor springConstant dampingConstant'),
    'RotationalMotor': _f('maxTorque', _MOTOR),
    'LinearMotor': _f('maxForce', _MOTOR),
    'PositionSensor': _f('name noise resolution'),
    'Camera': _f("""fieldOfView width height projection near far exposure antiAliasing
        ambientOcclusionRadius bloomThreshold motionBlur noise noiseMaskUrl lens focus zoom
        recognition lensFlare spherical colorNoise""", _SOLID),
    'RangeFinder': _f("""fieldOfView width height projection near minRange maxRange motionBlur
        noise resolution lens spherical""", _SOLID),
    'Lidar': _f("""tiltAngle horizontalResolution fieldOfView verticalFieldOfView numberOfLayers
        near minRange maxRange type projection noise resolution defaultFrequency minFrequency
        maxFrequency rotatingHead spherical""", _SOLID),
    'DistanceSensor': _f("""lookupTable type numberOfRays aperture gaussianWidth resolution
        redColorSensitivity""", _SOLID),
    'Accelerometer': _f('', _DEVICE_AXES, _SOLID),
    'Gyro': _f('', _DEVICE_AXES, _SOLID),
    'Compass': _f('', _DEVICE_AXES, _SOLID),
    'InertialUnit': _f('xAxis yAxis zAxis resolution noise', _SOLID),
    'GPS': _f('type accuracy noiseCorrelation resolution speedNoise speedResolution', _SOLID),
    'TouchSensor': _f('type lookupTable resolution', _SOLID),
    'ContactProperties': _f("""material1 material2 coulombFriction frictionRotation
        rollingFriction bounce bounceVelocity forceDependentSlip softERP softCFM bumpSound
        rollSound slideSound maxContactJoints"""),
}

Report = Callable[[Node, str, str], None]  # (node, field name, message)


def closest(word: str, candidates: Iterable[str]) -> str | None:
    match = difflib.get_close_matches(word, sorted(set(candidates)), n=1, cutoff=0.6)
    return match[0] if match else None


def hint(word: str, candidates: Iterable[str], quote: str = '"') -> str:
    match = closest(word, candidates)
    return f' (did you mean {quote}{match}{quote}?)' if match else ''


def check_fields(nodes: Iterable[Node], report: Report) -> None:
    """Report each unknown field of a built-in node once per place in a file."""
    seen_nodes: set[int] = set()
    seen_places: set[tuple[str, int, str, str]] = set()
    stack = list(nodes)
    while stack:
        node = stack.pop()
        if id(node) in seen_nodes:
            continue
        seen_nodes.add(id(node))
        known = BASE_FIELDS.get(node.type)
        for name, value in node.fields.items():
            if known is not None and name not in known:
                file, line = node.where(name)
                place = (file, line, node.type, name)
                if place not in seen_places:
                    seen_places.add(place)
                    report(node, name, f'{node.type}: unknown field "{name}" skipped'
                                       + hint(name, known))
            if isinstance(value, Value) and value.has_nodes:
                stack.extend(item for item in value.items if isinstance(item, Node))
