"""Webots devices -> sensors: one builder per device type (``SENSOR_HANDLERS``: Camera,
RangeFinder, Lidar (those three in :mod:`.optical_devices`), DistanceSensor, TouchSensor,
Accelerometer, Gyro, InertialUnit, GPS, Compass, Emitter, Receiver, LED, LightSensor, with each
type's default name), the optical devices' pre-R2022a frame, and the devices that are not
simulated (``UNSIMULATED_DEVICES``, ``UNSIMULATED_SOLIDS``); the builder that places them is
:class:`~.mapping.EntityBuilder`."""

from __future__ import annotations

from collections.abc import Callable

from ...scene.model import Collision
from ...scene.sensors import (
    Accelerometer,
    CollisionSensor,
    Compass,
    Emitter,
    Gps,
    Gyroscope,
    InertialUnit,
    Led,
    LightSensor,
    Receiver,
    Sensor,
    SingleDistanceSensor,
)
from ...scene.transforms import IDENTITY, Pose, quat_from_matrix
from .context import DeviceHost, LinkDraft
from .nodes import Node
from .optical_devices import camera, lidar, range_finder

# Before R2022a cameras, range finders and lidars looked along -z with y up; our sensor frame
# looks along +x with z up: x_sensor = -z_device, y_sensor = -x_device, z_sensor = y_device.
OLD_OPTICAL_TO_SENSOR = Pose(orientation=quat_from_matrix(((0, -1, 0), (0, 0, 1), (-1, 0, 0))))
UNSIMULATED_DEVICES = frozenset({
    'Speaker', 'Display', 'Pen', 'Radar', 'Radio',
    'Connector', 'Charger', 'Altimeter', 'VacuumGripper', 'Track', 'Brake',
    'Muscle', 'Skin', 'Focus', 'Zoom', 'Recognition', 'LensDistortion',
    'Billboard', 'TrackWheel', 'CadShape',
})
WHY_UNSIMULATED = {
    'Display': 'nothing draws on it here: in Webots a controller does',
    'Speaker': 'no sound is simulated',
    'Pen': 'nothing is drawn on the ground',
}
"""Why a device is not simulated, where the warning should say it."""
# the devices above that are Solids: a body of their own (bounding object, physics, children)
UNSIMULATED_SOLIDS = frozenset({
    'Speaker', 'Display', 'Pen', 'Radar', 'Radio',
    'Connector', 'Charger', 'Altimeter', 'VacuumGripper', 'Track',
})


# sensors -------------------------------------------------------------------------------------
def _distance_sensor(b: DeviceHost, node: Node, name: str, link: LinkDraft,
                     mount: Pose) -> Sensor:
    table = node.mf_vec('lookupTable', 3) if node.has('lookupTable') else [(0.0, 0.0, 0.0),
                                                                         (0.1, 1000.0, 0.0)]
    distances = [row[0] for row in table] or [0.0, 0.1]
    return SingleDistanceSensor(name, link.name, min(distances), max(distances), mount)


def _touch_sensor(b: DeviceHost, node: Node, name: str, link: LinkDraft,
                  mount: Pose) -> Sensor:
    names = []
    for index, (shape, pose) in enumerate(b.bounding(node.node('boundingObject'), IDENTITY)):
        names.append(f'{name}:{index}')
        link.collisions.append(Collision(shape, mount * pose, None, names[-1]))
    if not names:
        b.context.warn(node, 'TouchSensor without boundingObject: it reports any contact of '
                       f'link {link.name!r}')
    return CollisionSensor(name, link.name, tuple(names), mount)


def _emitter(b: DeviceHost, node: Node, name: str, link: LinkDraft, mount: Pose) -> Sensor:
    """Webots' Emitter: ``range`` (-1: unlimited; ``maxRange`` bounds it), ``aperture`` (-1:
    every direction), ``channel`` (-1: broadcast on every channel), ``type``."""
    reach = node.float('range', -1.0)
    most = node.float('maxRange', -1.0)
    if most >= 0.0 and (reach < 0.0 or reach > most):
        reach = most
    return Emitter(name, link.name, int(node.float('channel', 0)), reach,
                   node.float('aperture', -1.0), node.string('type', 'radio'), mount)


def _receiver(b: DeviceHost, node: Node, name: str, link: LinkDraft, mount: Pose) -> Sensor:
    """Webots' Receiver: ``aperture`` (-1: every direction), ``channel`` (-1: every channel),
    ``type``."""
    return Receiver(name, link.name, int(node.float('channel', 0)),
                    node.float('aperture', -1.0), node.string('type', 'radio'), mount)


def _light_sensor(b: DeviceHost, node: Node, name: str, link: LinkDraft, mount: Pose) -> Sensor:
    """Webots' LightSensor: ``lookupTable`` (default 0 -> 0, 1 W/m^2 -> 1000), ``colorFilter``,
    ``occlusion``, ``resolution``."""
    table = tuple((a, b_, c) for a, b_, c in node.mf_vec('lookupTable', 3)) if node.has(
        'lookupTable') else ((0.0, 0.0, 0.0), (1.0, 1000.0, 0.0))
    if len(table) < 1 or any(b2[0] < a2[0] for a2, b2 in zip(table, table[1:])):
        raise node.error('LightSensor.lookupTable needs rows of increasing irradiance')
    r, g, b_ = node.color('colorFilter', (1.0, 1.0, 1.0))
    return LightSensor(name, link.name, table, (r, g, b_), node.bool('occlusion', False),
                       node.float('resolution', -1.0), mount)


def _led(b: DeviceHost, node: Node, name: str, link: LinkDraft, mount: Pose) -> Sensor:
    """Webots' LED: its ``color`` list (default red) and ``gradual``."""
    colors = tuple((r, g, b_) for r, g, b_ in node.mf_vec('color', 3)) or ((1.0, 0.0, 0.0),)
    return Led(name, link.name, colors, node.bool('gradual', False), mount)


def _simple(kind: Callable[[str, str, Pose], Sensor]
            ) -> Callable[[DeviceHost, Node, str, LinkDraft, Pose], Sensor]:
    def make(b: DeviceHost, node: Node, name: str, link: LinkDraft, mount: Pose) -> Sensor:
        return kind(name, link.name, mount)
    return make


SENSOR_HANDLERS: dict[str, tuple[Callable[[DeviceHost, Node, str, LinkDraft, Pose], Sensor],
                                 str]] = {
    'Camera': (camera, 'camera'),
    'RangeFinder': (range_finder, 'range finder'),
    'Lidar': (lidar, 'lidar'),
    'DistanceSensor': (_distance_sensor, 'distance sensor'),
    'TouchSensor': (_touch_sensor, 'touch sensor'),
    'Accelerometer': (_simple(Accelerometer), 'accelerometer'),
    'Gyro': (_simple(Gyroscope), 'gyro'),
    'InertialUnit': (_simple(InertialUnit), 'inertial unit'),
    'GPS': (_simple(Gps), 'gps'),
    'Compass': (_simple(Compass), 'compass'),
    'Emitter': (_emitter, 'emitter'),
    'Receiver': (_receiver, 'receiver'),
    'LED': (_led, 'led'),
    'LightSensor': (_light_sensor, 'light sensor'),
}
OPTICAL_DEVICES = frozenset({'Camera', 'RangeFinder', 'Lidar'})
