"""Sensor descriptions: what is measured, where it is mounted, and its parameters.

Every sensor is mounted on a link at ``pose`` (in the link frame). Sensor frames follow REP-103:
x forward, y left, z up; a camera looks along +x of its (body-aligned) frame, and the ROS layer
derives the optical frame (z forward, x right, y down) from it. Angles in radians, ranges in metres.
``noise`` is the standard deviation of additive gaussian noise in the reading's unit (0 = off;
for colour images in intensity units 0..1).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from .transforms import IDENTITY, Pose


@dataclass(frozen=True, slots=True)
class Lens:
    """Webots' lens distortion (``Lens`` node): the distortion ``center`` in texture
    coordinates of the image (0..1, x right, y down) and Brown's radial (k1, k2) and tangential
    (p1, p2) coefficients. The law that applies them (in texture coordinates, not
    focal-length-normalised ones) and its OpenCV equivalent are in :mod:`.lens`."""

    center: tuple[float, float] = (0.5, 0.5)
    radial: tuple[float, float] = (0.0, 0.0)
    tangential: tuple[float, float] = (0.0, 0.0)


@dataclass(frozen=True, slots=True)
class Camera:
    name: str
    link: str
    width: int
    height: int
    fov_x: float
    fov_y: float
    pose: Pose = IDENTITY
    noise: float = 0.0
    near: float = 0.01
    far: float = 100.0
    lens: Lens | None = None
    projection: str = 'planar'
    """'planar' (pinhole), or Webots' 'spherical' (fisheye, ``fov_x`` up to 2 pi) or
    'cylindrical' (panorama): :mod:`scene_sim_ros.sim.sensors.projection`."""
    kind: ClassVar[str] = 'camera'


@dataclass(frozen=True, slots=True)
class DepthCamera:
    """Metric depth; ``projection`` 'perspective' (along the optical axis) or 'spherical'
    (range along each ray, columns evenly spaced in angle; one row makes a laser scanner)."""

    name: str
    link: str
    width: int
    height: int
    fov_x: float
    fov_y: float
    min_range: float
    max_range: float
    projection: str = 'perspective'
    pose: Pose = IDENTITY
    noise: float = 0.0
    tilt: float = 0.0
    """Spherical: elevation (rad, up) of the rows' centre above the frame's xy plane (Webots'
    ``tiltAngle``); the rows keep the sensor frame, as a lidar's points do."""
    frequency: float = 0.0
    """Spherical: revolutions per second of a ``rotating`` head (0: not given)."""
    rotating: bool = False
    """Spherical: the columns are swept one after the other over a revolution (a spinning
    lidar) instead of all at once."""
    lens: Lens | None = None
    kind: ClassVar[str] = 'depth_camera'


@dataclass(frozen=True, slots=True)
class SegmentationCamera:
    """An image whose pixels identify the entity (and link) hit."""

    name: str
    link: str
    width: int
    height: int
    fov_x: float
    fov_y: float
    pose: Pose = IDENTITY
    near: float = 0.01
    far: float = 100.0
    kind: ClassVar[str] = 'segmentation_camera'


@dataclass(frozen=True, slots=True)
class SingleDistanceSensor:
    """One ray along +x of the sensor frame."""

    name: str
    link: str
    min_range: float
    max_range: float
    pose: Pose = IDENTITY
    noise: float = 0.0
    kind: ClassVar[str] = 'single_distance'


@dataclass(frozen=True, slots=True)
class ApproxDistanceSensor:
    """The nearest hit inside a pyramid of opening angles ``fov_x`` x ``fov_y`` around +x."""

    name: str
    link: str
    min_range: float
    max_range: float
    fov_x: float
    fov_y: float
    pose: Pose = IDENTITY
    noise: float = 0.0
    kind: ClassVar[str] = 'approx_distance'


@dataclass(frozen=True, slots=True)
class Accelerometer:
    """Specific force in the sensor frame (reads +g on z at rest, upright)."""

    name: str
    link: str
    pose: Pose = IDENTITY
    noise: float = 0.0
    kind: ClassVar[str] = 'accelerometer'


@dataclass(frozen=True, slots=True)
class Gyroscope:
    """Angular velocity in the sensor frame."""

    name: str
    link: str
    pose: Pose = IDENTITY
    noise: float = 0.0
    kind: ClassVar[str] = 'gyroscope'


@dataclass(frozen=True, slots=True)
class InertialUnit:
    """Orientation of the sensor frame in the world frame."""

    name: str
    link: str
    pose: Pose = IDENTITY
    noise: float = 0.0
    kind: ClassVar[str] = 'inertial_unit'


@dataclass(frozen=True, slots=True)
class Gps:
    """Position of the sensor in the world frame (metres)."""

    name: str
    link: str
    pose: Pose = IDENTITY
    noise: float = 0.0
    kind: ClassVar[str] = 'gps'


@dataclass(frozen=True, slots=True)
class Compass:
    """Unit vector towards magnetic north (the world's +y axis, ENU) in the sensor frame."""

    name: str
    link: str
    pose: Pose = IDENTITY
    noise: float = 0.0
    kind: ClassVar[str] = 'compass'


@dataclass(frozen=True, slots=True)
class CollisionSensor:
    """Whether the named collision shapes of ``link`` (all of them when empty) touch anything."""

    name: str
    link: str
    shapes: tuple[str, ...] = ()
    pose: Pose = IDENTITY
    kind: ClassVar[str] = 'collision'


@dataclass(frozen=True, slots=True)
class UserInput:
    """A value set from outside and read back; ``unit`` names its quantity (e.g. 'rad', 'm')."""

    name: str
    link: str
    minimum: float
    maximum: float
    default: float = 0.0
    unit: str = ''
    pose: Pose = IDENTITY
    kind: ClassVar[str] = 'user_input'


@dataclass(frozen=True, slots=True)
class JointPositionSensor:
    """Reads one joint's position (an encoder)."""

    name: str
    link: str
    joint: str
    pose: Pose = IDENTITY
    noise: float = 0.0
    kind: ClassVar[str] = 'joint_position'


@dataclass(frozen=True, slots=True)
class LightSensor:
    """Irradiance from the scene's lights in the direction of +x (Webots' LightSensor): per
    light ``(ambient + diffuse * max(0, cos) * spot) / attenuation``, weighted by
    ``color_filter`` and averaged over red, green and blue, then mapped by ``lookup_table``
    rows (irradiance W/m^2, output, noise as a fraction of the output); ``occlusion`` drops the
    direct part of a light an obstacle hides; ``resolution`` > 0 rounds the output to it."""

    name: str
    link: str
    lookup_table: tuple[tuple[float, float, float], ...] = ((0.0, 0.0, 0.0), (1.0, 1000.0, 0.0))
    color_filter: tuple[float, float, float] = (1.0, 1.0, 1.0)
    occlusion: bool = False
    resolution: float = -1.0
    pose: Pose = IDENTITY
    kind: ClassVar[str] = 'light_sensor'


@dataclass(frozen=True, slots=True)
class Led:
    """A light a controller switches (Webots' LED): value 0 is off, ``1..len(colors)`` lights
    that colour; a ``gradual`` LED takes any 0xRRGGBB colour (0: off)."""

    name: str
    link: str
    colors: tuple[tuple[float, float, float], ...] = ((1.0, 0.0, 0.0),)
    gradual: bool = False
    pose: Pose = IDENTITY
    kind: ClassVar[str] = 'led'


@dataclass(frozen=True, slots=True)
class Emitter:
    r"""Sends text packets to the :class:`Receiver`\ s of its ``medium`` and ``channel`` (-1: every
    channel) within ``range`` (m; < 0: unlimited) and its ``aperture`` (rad, a cone about +x;
    < 0: every direction), delivered one step after they are sent (Webots' Emitter)."""

    name: str
    link: str
    channel: int = 0
    range: float = -1.0
    aperture: float = -1.0
    medium: str = 'radio'
    pose: Pose = IDENTITY
    kind: ClassVar[str] = 'emitter'


@dataclass(frozen=True, slots=True)
class Receiver:
    r"""Receives the packets of :class:`Emitter`\ s (same ``medium``; ``channel`` -1 hears every
    channel) from within its ``aperture`` (rad about +x; < 0: every direction)."""

    name: str
    link: str
    channel: int = 0
    aperture: float = -1.0
    medium: str = 'radio'
    pose: Pose = IDENTITY
    kind: ClassVar[str] = 'receiver'


Sensor = (Camera | DepthCamera | SegmentationCamera | SingleDistanceSensor | ApproxDistanceSensor
          | Accelerometer | Gyroscope | InertialUnit | Gps | Compass | CollisionSensor | UserInput
          | JointPositionSensor | Emitter | Receiver | Led | LightSensor)

IMAGE_SENSORS = (Camera, DepthCamera, SegmentationCamera)
