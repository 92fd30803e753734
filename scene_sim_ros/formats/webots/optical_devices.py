"""Webots' optical devices -> image sensors: Camera (its ``Lens`` and ``projection``), RangeFinder
and Lidar (several layers: a 3-D lidar), each with the field checks Webots applies; the handlers
:data:`~.devices.SENSOR_HANDLERS` registers."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ...scene.lens import fold, plumb_bob
from ...scene.sensors import Camera, DepthCamera, Lens, Sensor
from ...scene.transforms import Pose
from .context import DeviceHost, LinkDraft
from .nodes import Node


def _vertical_fov(horizontal: float, width: int, height: int) -> float:
    return 2.0 * math.atan(math.tan(horizontal / 2.0) * height / width)


def _image_size(node: Node, width_field: str = 'width', height_field: str = 'height',
                default: tuple[int, int] = (64, 64)) -> tuple[int, int]:
    width, height = node.int(width_field, default[0]), node.int(height_field, default[1])
    for name, value in ((width_field, width), (height_field, height)):
        if value < 1:  # 1e-320 reads as 0: no image, and a division by zero
            raise node.error(f'{node.type}.{name} is {value}; it must be at least 1', name)
    return width, height


APPROXIMATE_MODEL_PX = 0.5
"""A published plumb_bob model further than this (px) from Webots' law somewhere in the image is
reported at load (issue 46's bound on a rectified row)."""


def _lens(b: DeviceHost, node: Node, name: str, width: int, height: int,
          fov: tuple[float, float]) -> Lens | None:
    """The camera's ``lens`` (``Lens { center radialCoefficients tangentialCoefficients }``).

    As ``WbLens::updateCenter`` (src/webots/nodes/WbLens.cpp, lines 54-70) a centre outside
    [0, 1] is clamped with a warning (Webots' own y > 1 branch sets x, line 67: a slip; here y
    is clamped). The coefficients are "any vector" there (docs/reference/lens.md); here a
    non-finite one, or one whose law folds the image over (:func:`~...scene.lens.fold`: Webots
    would publish a torn image, e.g. k1 <= -0.5 in the corners), is a ``file:line`` error.
    Where the CameraInfo model published for it is only approximate, a warning says so
    (:func:`_warn_if_approximate`)."""
    lens_node = node.node('lens')
    if lens_node is None:
        return None
    center = list(lens_node.floats('center', 2, (0.5, 0.5)))
    for axis, value in enumerate(center):
        if not math.isfinite(value):
            raise lens_node.error(f'Lens.center is {value}; it must be in [0, 1]', 'center')
        if not 0.0 <= value <= 1.0:
            center[axis] = min(max(value, 0.0), 1.0)
            b.context.warn(lens_node, f"Invalid 'center.{'xy'[axis]}' {value} changed to "
                           f'{center[axis]:g}: the value should be in the range [0;1]', 'center')
    radial = lens_node.floats('radialCoefficients', 2, (0.0, 0.0))
    tangential = lens_node.floats('tangentialCoefficients', 2, (0.0, 0.0))
    for field, values in (('radialCoefficients', radial), ('tangentialCoefficients', tangential)):
        if not all(math.isfinite(v) for v in values):
            raise lens_node.error(f'Lens.{field} is {values}; it must be finite', field)
    lens = Lens((center[0], center[1]), (radial[0], radial[1]), (tangential[0], tangential[1]))
    folded = fold(lens, width, height)
    if folded is not None:
        raise lens_node.error(
            f'Lens radialCoefficients {radial} and tangentialCoefficients {tangential} fold the '
            f'{width}x{height} image over at pixel {folded} (the distortion is not one-to-one '
            'there)', 'radialCoefficients')
    _warn_if_approximate(b, lens_node, name, lens, width, height, fov)
    return lens


def _warn_if_approximate(b: DeviceHost, lens_node: Node, name: str, lens: Lens, width: int,
                         height: int, fov: tuple[float, float]) -> None:
    """Warn when the plumb_bob fit of Webots' law (:func:`~...scene.lens.plumb_bob`, the
    published CameraInfo) is off by more than :data:`APPROXIMATE_MODEL_PX` somewhere: Webots'
    law is radial in texture coordinates, so on a non-square image it is elliptical in angle
    (3.1 px at 320x240 with k1 = -0.3, 0.02 px at 240x240)."""
    residual = plumb_bob(lens, width, height, *fov).max_residual
    if residual <= APPROXIMATE_MODEL_PX:
        return
    why = (f"Webots' lens law is radial in texture coordinates; on a non-square {width}x{height} "
           'image plumb_bob cannot describe it exactly' if width != height else
           "Webots' lens law is an approximate inverse of Brown's model, which plumb_bob matches "
           'only approximately for these coefficients')
    b.context.warn(lens_node, f'camera {name!r}: its published plumb_bob CameraInfo is '
                   f'approximate, up to {residual:.2f} px off the image ({why})')


def camera(b: DeviceHost, node: Node, name: str, link: LinkDraft, mount: Pose) -> Sensor:
    """A Camera; ``projection`` 'spherical' or 'cylindrical' as Webots renders them
    (:mod:`~scene_sim_ros.sim.sensors.projection`; ``fieldOfView`` up to 2 pi for spherical),
    whose lens is not simulated (a warning): Webots distorts each 90-degree sub-camera's render
    around its own centre before the merge (``WbWrenCamera::init`` runs
    ``setupCameraPostProcessing``, lens pass included, for every active sub-camera; the merge is
    ``setupSphericalPostProcessingEffect``), which the published image shows as a lens per cube
    face with steps at the seams. An unknown projection is planar with Webots' warning
    (``WbAbstractCamera::updateProjection``)."""
    width, height = _image_size(node)
    fov = node.float('fieldOfView', 0.7854)
    far = node.float('far', 0.0)
    projection = node.string('projection', 'planar')
    if projection not in ('planar', 'spherical', 'cylindrical'):
        b.context.warn(node, f'Unknown \'projection\' value "{projection}": field value reset to '
                       '"planar"', 'projection')
        projection = 'planar'
    planar = projection == 'planar'
    if not planar and node.node('lens') is not None:
        b.context.warn(node, f'the lens of a {projection} Camera is not simulated here (Webots '
                       'distorts each 90-degree sub-camera before merging them); the image is '
                       'undistorted', 'lens')
    fov_y = _vertical_fov(fov, width, height) if planar else fov * height / width
    return Camera(name, link.name, width, height, fov, fov_y, mount,
                  node.float('noise', 0.0), node.float('near', 0.01), far if far > 0.0 else 100.0,
                  _lens(b, node, name, width, height, (fov, fov_y)) if planar else None,
                  projection)


def range_finder(b: DeviceHost, node: Node, name: str, link: LinkDraft,
                  mount: Pose) -> Sensor:
    width, height = _image_size(node)
    fov = node.float('fieldOfView', 0.7854)
    projection = node.string('projection', 'planar')
    spherical = projection in ('cylindrical', 'spherical')
    fov_y = fov * height / width if spherical else _vertical_fov(fov, width, height)
    if spherical and node.node('lens') is not None:
        b.context.warn(node, f'the lens of a {projection} RangeFinder is not simulated here',
                       'lens')
    return DepthCamera(name, link.name, width, height, fov, fov_y, node.float('minRange', 0.01),
                       node.float('maxRange', 1.0),
                       'spherical' if spherical else 'perspective', mount,
                       node.float('noise', 0.0) * node.float('maxRange', 1.0),
                       lens=None if spherical else _lens(b, node, name, width, height,
                                                         (fov, fov_y)))


def lidar(b: DeviceHost, node: Node, name: str, link: LinkDraft, mount: Pose) -> Sensor:
    """Webots' Lidar (docs/reference/lidar.md): ``numberOfLayers`` rows spread over
    ``verticalFieldOfView`` and raised by ``tiltAngle``, ``horizontalResolution`` columns over
    ``fieldOfView`` (a full turn for a ``rotating`` one, which turns at ``defaultFrequency``),
    ``noise`` relative to ``maxRange`` ("1.0 corresponds to a gaussian noise having a standard
    deviation of maxRange meters"; VelodynePuck.proto writes ``noise 0.003 # 0.03 / 100``).
    Out-of-range fields are reset with a warning as Webots resets them (:func:`_lidar_fields`)."""
    f = _lidar_fields(b, node)
    rotating = f['type'] == 'rotating'
    return DepthCamera(name, link.name, int(f['horizontalResolution']), int(f['numberOfLayers']),
                       2.0 * math.pi if rotating else f['fieldOfView'],
                       f['verticalFieldOfView'],
                       f['minRange'], f['maxRange'], 'spherical', mount,
                       f['noise'] * f['maxRange'], tilt=f['tiltAngle'],
                       frequency=f['defaultFrequency'], rotating=rotating)


LIDAR_DEFAULTS = {  # docs/reference/lidar.md, the field list
    'tiltAngle': 0.0, 'horizontalResolution': 512, 'fieldOfView': 1.5708,
    'verticalFieldOfView': 0.2, 'numberOfLayers': 4, 'near': 0.01, 'minRange': 0.01,
    'maxRange': 1.0, 'noise': 0.0, 'defaultFrequency': 10.0, 'minFrequency': 1.0,
    'maxFrequency': 25.0,
}


def _lidar_fields(b: DeviceHost, node: Node) -> dict[str, Any]:
    """The Lidar's fields after Webots' checks, in its order (src/webots/nodes/WbLidar.cpp,
    ``WbLidar::preFinalize`` and the ``update*`` functions it calls; cyberbotics/webots
    0160e6b01d1c): each reset is a warning naming the field, as Webots' ``parsingWarn``."""
    f: dict[str, Any] = {}
    for field, default in LIDAR_DEFAULTS.items():
        f[field] = node.float(field, float(default))  # finite: the parser refuses others
    f['type'] = node.string('type', 'fixed').lower()

    def reset(field: str, value: float, why: str) -> None:
        b.context.warn(node, f'Lidar.{field} is {f[field]:g}: {why}; set to {value:g} (as Webots '
                       'does)', field)
        f[field] = value

    if f['near'] <= 0.0:  # updateNear: resetDoubleIfNonPositive(0.01)
        reset('near', 0.01, 'it must be positive')
    if f['near'] > f['minRange']:
        reset('near', f['minRange'], "it is greater than 'minRange'")
    if f['minRange'] <= 0.0:  # updateMinRange
        reset('minRange', 0.01, 'it must be positive')
    if f['maxRange'] <= f['minRange']:  # updateMinRange / updateMaxRange
        reset('maxRange', f['minRange'] + 1.0, "it must be greater than 'minRange'")
    if f['noise'] < 0.0:  # WbAbstractCamera: noise in [0, inf)
        reset('noise', 0.0, 'it must not be negative')
    if f['type'] not in ('fixed', 'rotating'):  # updateType
        b.context.warn(node, f"Lidar.type is {f['type']!r}: it should be 'fixed' or 'rotating'; "
                       "reset to 'fixed' (as Webots does)", 'type')
        f['type'] = 'fixed'
    _check_frequencies(f, reset)
    _check_layers(f, reset)
    return f


def _check_frequencies(f: dict[str, Any], reset: Callable[[str, float, str], None]) -> None:
    """WbLidar::updateMinFrequency, updateMaxFrequency, updateDefaultFrequency."""
    if f['minFrequency'] <= 0.0:
        reset('minFrequency', 0.01, 'it must be positive')
    if f['maxFrequency'] <= 0.0 or f['maxFrequency'] < f['minFrequency']:
        reset('maxFrequency', f['minFrequency'], "it must be at least 'minFrequency'")
    if f['defaultFrequency'] <= 0.0 or f['defaultFrequency'] < f['minFrequency']:
        reset('defaultFrequency', f['minFrequency'], "it must be at least 'minFrequency'")
    elif f['defaultFrequency'] > f['maxFrequency']:
        reset('defaultFrequency', f['maxFrequency'], "it must be at most 'maxFrequency'")


def _lidar_image_height(f: dict[str, Any]) -> int:
    """Rows of Webots' internal depth image (WbLidar::height; width per WbLidar::width): at least
    one row per layer is what its checks keep."""
    if int(f['numberOfLayers']) == 1:
        return 1
    fov = f['fieldOfView']
    width = (math.ceil(f['horizontalResolution'] * fov / (2.0 * math.pi))
             if f['type'] == 'rotating' else int(f['horizontalResolution']))
    return math.ceil((f['verticalFieldOfView'] + fov / width) * (width / fov))


def _check_layers(f: dict[str, Any], reset: Callable[[str, float, str], None]) -> None:
    """WbLidar::updateVerticalFieldOfView, updateHorizontalResolution, updateNumberOfLayers: too
    many layers for the resolution raises ``horizontalResolution`` (the first of them to check it
    in Webots' preFinalize), so the layers are kept."""
    if f['fieldOfView'] <= 0.0:
        reset('fieldOfView', LIDAR_DEFAULTS['fieldOfView'], 'it must be positive')
    # verticalFieldOfView first (Webots checks it after horizontalResolution, whose check then
    # divides by a vertical field of view that may be 0)
    if f['verticalFieldOfView'] <= 0.0:
        reset('verticalFieldOfView', 0.1, 'it must be positive')
    elif f['verticalFieldOfView'] > math.pi:
        reset('verticalFieldOfView', math.pi, 'it must be at most pi')
    if f['horizontalResolution'] < 1:
        reset('horizontalResolution', 1, 'it must be positive')
    if f['numberOfLayers'] < 1:
        reset('numberOfLayers', 1, 'it must be positive')
    if _lidar_image_height(f) < f['numberOfLayers']:
        required = math.ceil(f['numberOfLayers'] * f['fieldOfView'] / f['verticalFieldOfView'])
        if f['type'] == 'rotating':
            required = int(required * 2.0 * math.pi / f['fieldOfView'])
        reset('horizontalResolution', required,
              "too small for 'numberOfLayers' layers over 'verticalFieldOfView'")
    if _lidar_image_height(f) < f['numberOfLayers']:
        reset('numberOfLayers', _lidar_image_height(f),
              "too many for 'verticalFieldOfView' and 'horizontalResolution'")
