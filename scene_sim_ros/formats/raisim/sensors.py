"""RaiSim sensor-set files (``<sensor_set>``) attached to a robot's links.

A URDF link names its set with ``<link name="..." sensor="file.xml"/>``; the file is looked up
(as RaiSim does) in the URDF's directory, then ``sensor/``, ``sensors/``, ``..`` and
``../sensors`` beside it. Supported content:

- ``<origin xyz rpy>``: the set's frame in the link frame (applies to everything below);
- ``<link>``: URDF ``inertial``/``visual``/``collision`` added to the robot link (the inertial
  only where the URDF link has no mass); visual meshes resolve against the sensor file's directory;
- ``<sensor name type update_rate>`` with ``<origin>``:

  - ``rgb``: ``camera horizontal_fov``, ``image width height``, ``clip near far``,
    ``noise stddev`` -> :class:`Camera` (vertical fov from the aspect ratio);
  - ``depth``: the same -> :class:`DepthCamera` (perspective, range = clip);
  - ``imu``: -> :class:`Accelerometer`, :class:`Gyroscope` and :class:`InertialUnit`
    (``<name>_accelerometer``, ``_gyroscope``, ``_orientation``);
  - ``spinning_lidar``: ``yaw samples``, ``pitch samples min_angle max_angle``, ``range min max``,
    ``spin rate`` -> a spherical :class:`DepthCamera` covering 360 degrees (see
    :func:`_spinning_lidar` for the tilt).

Sensors are named ``<link>_<sensor>`` (RaiSim addresses them by set link and sensor name);
update rates go to ``Scene.metadata['sensor_update_rates']``.
"""

from __future__ import annotations

import copy
import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lxml import etree

from scene_sim_ros import limits

from ...errors import SceneLoadError
from ...scene import (
    Accelerometer,
    Camera,
    DepthCamera,
    Entity,
    Gyroscope,
    Inertial,
    InertialUnit,
    Link,
    Sensor,
)
from ...scene.inertia import combine, rotate_inertia
from ...scene.transforms import IDENTITY, Pose, quat_from_axis_angle
from .. import paths
from .. import urdf as urdf_format

SEARCH_DIRECTORIES = ('.', 'sensor', 'sensors', '..', '../sensors')


@dataclass(frozen=True)
class SensorSet:
    """A parsed sensor-set file: its name, frame, link content and sensors (mounted in the
    robot link frame)."""

    name: str
    link: Link
    sensors: tuple[Sensor, ...]
    update_rates: dict[str, float]
    warnings: tuple[str, ...]


class _Reader:
    def __init__(self, file: Path, strict: bool):
        self.file = file
        self.strict = strict
        self.warnings: list[str] = []
        self.errors: list[str] = []

    def warn(self, element: etree._Element, message: str) -> None:
        (self.errors if self.strict else self.warnings).append(
            f'{self.file}:{element.sourceline}: {message}')

    def error(self, element: etree._Element, message: str) -> None:
        self.errors.append(f'{self.file}:{element.sourceline}: {message}')

    def number(self, element: etree._Element | None, attribute: str, default: float) -> float:
        if element is None or element.get(attribute) is None:
            return default
        try:
            return float(element.get(attribute, ''))
        except ValueError:
            self.error(element, f'{attribute}="{element.get(attribute)}" is not a number')
            return default

    def origin(self, parent: etree._Element) -> Pose:
        origin = parent.find('origin')
        if origin is None:
            return IDENTITY
        try:
            xyz = [float(v) for v in origin.get('xyz', '0 0 0').split()]
            rpy = [float(v) for v in origin.get('rpy', '0 0 0').split()]
            return Pose.from_xyz_rpy(xyz, rpy)
        except ValueError:
            self.error(origin, 'origin needs xyz and rpy with three numbers each')
            return IDENTITY


def load_sensor_set(path: Path, *, link: str, res_dir: Path | None = None,
                    strict: bool = False) -> SensorSet:
    """Read a sensor-set file for robot link ``link``."""
    reader = _Reader(path, strict)
    try:
        root = urdf_format.parse_xml(limits.read_text(path), path)
    except etree.XMLSyntaxError as err:
        raise SceneLoadError(f'not well-formed XML: {err.msg}', path, err.lineno) from None
    if root.tag != 'sensor_set':
        raise SceneLoadError(f'expected <sensor_set>, found <{root.tag}>', path, root.sourceline)
    frame = reader.origin(root)
    link_element = root.find('link')
    content = Link(link)
    sensors: list[Sensor] = []
    rates: dict[str, float] = {}
    for child in root:
        if isinstance(child.tag, str) and child.tag not in ('origin', 'link'):
            reader.warn(child, f'unknown element <{child.tag}> in <sensor_set> ignored')
    if link_element is not None:
        # the URDF part of the link, without the <sensor> elements read below
        urdf_part = etree.Element('link', link_element.attrib)
        urdf_part.extend(copy.deepcopy(c) for c in link_element if c.tag != 'sensor')
        parsed, warnings, errors = urdf_format.parse_link(urdf_part, file=path,
                                                          res_dir=res_dir, strict=strict)
        reader.warnings.extend(warnings)
        reader.errors.extend(errors)
        content = _moved(dataclasses.replace(parsed, name=link), frame)
        for element in link_element.findall('sensor'):
            name = f'{link}_{element.get("name", "sensor")}'
            made = _sensor(reader, element, name, link, frame * reader.origin(element))
            sensors.extend(made)
            if made and element.get('update_rate'):
                rates[name] = reader.number(element, 'update_rate', 0.0)
    if reader.errors:
        raise SceneLoadError(limits.joined(reader.errors))
    return SensorSet(root.get('name', path.stem), content, tuple(sensors), rates,
                     tuple(reader.warnings))


def _moved(link: Link, frame: Pose) -> Link:
    if frame.is_identity():
        return link
    inertial = link.inertial
    moved_inertial = Inertial(inertial.mass, frame.transform_point(inertial.com),
                              rotate_inertia(inertial.inertia, frame.orientation))
    return dataclasses.replace(
        link, inertial=moved_inertial,
        collisions=tuple(dataclasses.replace(c, pose=frame * c.pose) for c in link.collisions),
        visuals=tuple(dataclasses.replace(v, pose=frame * v.pose) for v in link.visuals))


def _camera_parameters(reader: _Reader, element: etree._Element
                       ) -> tuple[int, int, float, float, float, float, float]:
    camera = element.find('camera')
    if camera is None:
        reader.error(element, f'sensor {element.get("name")!r} needs <camera>')
        camera = etree.Element('camera')
    image, clip, noise = camera.find('image'), camera.find('clip'), camera.find('noise')
    width = int(reader.number(image, 'width', 640))
    height = int(reader.number(image, 'height', 480))
    fov_x = reader.number(camera, 'horizontal_fov', math.radians(90.0))
    fov_y = 2.0 * math.atan(math.tan(fov_x / 2.0) * height / max(width, 1))
    near, far = reader.number(clip, 'near', 0.1), reader.number(clip, 'far', 100.0)
    return width, height, fov_x, fov_y, near, far, reader.number(noise, 'stddev', 0.0)


def _rgb(reader: _Reader, element: etree._Element, name: str, link: str, pose: Pose
         ) -> list[Sensor]:
    width, height, fov_x, fov_y, near, far, noise = _camera_parameters(reader, element)
    return [Camera(name, link, width, height, fov_x, fov_y, pose, noise, near, far)]


def _depth(reader: _Reader, element: etree._Element, name: str, link: str, pose: Pose
           ) -> list[Sensor]:
    width, height, fov_x, fov_y, near, far, noise = _camera_parameters(reader, element)
    return [DepthCamera(name, link, width, height, fov_x, fov_y, near, far, 'perspective', pose,
                        noise)]


def _imu(reader: _Reader, element: etree._Element, name: str, link: str, pose: Pose
         ) -> list[Sensor]:
    return [Accelerometer(f'{name}_accelerometer', link, pose),
            Gyroscope(f'{name}_gyroscope', link, pose),
            InertialUnit(f'{name}_orientation', link, pose)]


def _spinning_lidar(reader: _Reader, element: etree._Element, name: str, link: str, pose: Pose
                    ) -> list[Sensor]:
    """One row: tilted to the pitch range's centre (a planar scan in a tilted frame). Several
    rows: the rows' elevations in the sensor's own frame (``tilt`` = the range's centre), as a
    3-D lidar's points are; ``<spin rate>`` (Hz) makes it rotating (one cloud per turn)."""
    yaw, pitch, limits = element.find('yaw'), element.find('pitch'), element.find('range')
    columns = int(reader.number(yaw, 'samples', 360))
    rows = int(reader.number(pitch, 'samples', 16))
    low = reader.number(pitch, 'min_angle', -0.26)
    high = reader.number(pitch, 'max_angle', 0.26)
    near, far = reader.number(limits, 'min', 0.1), reader.number(limits, 'max', 50.0)
    spin = reader.number(element.find('spin'), 'rate', 0.0)
    if not _valid_lidar(reader, element, columns, rows, (low, high, near, far, spin)):
        return []
    centre = (low + high) / 2.0
    # positive pitch looks up; rotating the sensor frame about -y by the centre tilts +x up
    tilt = Pose(orientation=quat_from_axis_angle((0.0, 1.0, 0.0), -centre))
    return [DepthCamera(name, link, columns, rows, 2.0 * math.pi, high - low, near, far,
                        'spherical', pose * tilt if rows == 1 else pose,
                        tilt=0.0 if rows == 1 else centre, frequency=spin, rotating=spin > 0.0)]


def _valid_lidar(reader: _Reader, element: etree._Element, columns: int, rows: int,
                 numbers: tuple[float, ...]) -> bool:
    """Errors (``file:line``) for a lidar no ray could be cast for."""
    low, high, near, far, spin = numbers
    problems = [text for bad, text in (
        (not all(math.isfinite(n) for n in numbers), 'pitch, range and spin must be finite'),
        (columns < 1 or rows < 1, f'yaw and pitch samples ({columns}, {rows}) must be >= 1'),
        (rows > 1 and not 0.0 < high - low <= math.pi,
         f'pitch max_angle - min_angle ({high - low:g}) must be in (0, pi]'),
        (not 0.0 <= near < far, f'range min ({near:g}) must be >= 0 and < max ({far:g})'),
        (spin < 0.0, f'spin rate ({spin:g}) must not be negative'),
    ) if bad]
    for text in problems:
        reader.error(element, f'spinning_lidar: {text}')
    return not problems


SENSOR_TYPES: dict[str, Callable[[_Reader, etree._Element, str, str, Pose], list[Sensor]]] = {
    'rgb': _rgb, 'depth': _depth, 'imu': _imu, 'spinning_lidar': _spinning_lidar,
}


def _sensor(reader: _Reader, element: etree._Element, name: str, link: str, pose: Pose
            ) -> list[Sensor]:
    kind = element.get('type', '')
    maker = SENSOR_TYPES.get(kind)
    if maker is None:
        reader.warn(element, f'sensor type {kind!r} not supported; sensor {name!r} ignored')
        return []
    return maker(reader, element, name, link, pose)


def find_sensor_file(urdf_path: Path, filename: str) -> Path | None:
    if Path(filename).is_absolute():
        found = Path(filename) if paths.is_file(Path(filename)) else None
    else:
        candidates = (urdf_path.parent / directory / filename for directory in SEARCH_DIRECTORIES)
        found = next((c for c in candidates if paths.is_file(c)), None)
    return None if found is None else paths.confine(found, 'sensor set', urdf_path)


def attach_sensor_sets(model: urdf_format.UrdfModel, urdf_path: Path, res_dir: Path | None,
                       warnings: list[str], metadata: dict[str, Any], strict: bool = False
                       ) -> Entity:
    """The model's entity with the sensor sets named by its links merged in."""
    entity = model.entity
    if not model.sensor_sets:
        return entity
    links = {link.name: link for link in entity.links}
    sensors = list(entity.sensors)
    rates = metadata.setdefault('sensor_update_rates', {})
    for link_name, filename, line in model.sensor_sets:
        path = find_sensor_file(urdf_path, filename)
        if path is None:
            message = f'{urdf_path}:{line}: sensor set {filename!r} of link {link_name!r} not found'
            if strict:
                raise SceneLoadError(message)
            warnings.append(message + '; no sensors attached')
            continue
        sensor_set = load_sensor_set(path, link=link_name, res_dir=res_dir, strict=strict)
        warnings.extend(sensor_set.warnings)
        links[link_name] = _merged(links[link_name], sensor_set.link)
        sensors.extend(sensor_set.sensors)
        rates.update({f'{entity.name}/{k}': v for k, v in sensor_set.update_rates.items()})
    return dataclasses.replace(entity, kind='robot',
                               links=tuple(links[link.name] for link in entity.links),
                               sensors=tuple(sensors))


def _merged(link: Link, extra: Link) -> Link:
    inertial = link.inertial
    if extra.inertial.mass > 0.0:
        mass, com, inertia = combine([
            (inertial.mass, inertial.com, inertial.inertia),
            (extra.inertial.mass, extra.inertial.com, extra.inertial.inertia)])
        inertial = Inertial(mass, com, inertia)
    return dataclasses.replace(link, inertial=inertial,
                               collisions=link.collisions + extra.collisions,
                               visuals=link.visuals + extra.visuals)
