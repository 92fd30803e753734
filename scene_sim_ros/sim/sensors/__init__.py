"""Sensor readout of a :class:`~scene_sim_ros.sim.simulator.Simulator` (no ROS, no engine).

``create_reader(sim, entity_name, sensor)`` returns one reader per sensor; the Simulation calls
``reader.after_step()`` after every physics step, ``reader.reset()`` on reset, and
``sim.read(entity, sensor)`` returns ``reader.read()``:

=====================  ========================================================================
Sensor                 ``read()`` returns
=====================  ========================================================================
Camera                 HxWx3 uint8 RGB; the scene background colour where nothing is hit
DepthCamera            perspective: HxW float32 metres along the optical axis; spherical: HxW
                       float32 range along each ray, columns from +fov_x/2 (left) to -fov_x/2
                       (right), rows from +fov_y/2 (top) down; reader attributes ``angle_min``
                       (angle of column 0), ``angle_max`` and ``angle_increment`` (negative);
                       both clamped to [min_range, max_range] as in SimRobot: max_range where
                       nothing is within range, min_range closer (see :mod:`.rays`; the ROS
                       topics use +inf/-inf, REP-117/118)
SegmentationCamera     HxWx3 uint8, a stable colour per entity (:func:`entity_color`), black
                       for nothing; ``reader.labels`` HxW int32 indices into
                       ``reader.entity_names`` (-1: nothing), ``reader.link_indices``
SingleDistanceSensor   float metres; max_range if nothing within max_range, min_range if closer
ApproxDistanceSensor   (SimRobot's values; the ROS Range has +inf/-inf, REP-117)
Accelerometer          (3,) float64 specific force in the sensor frame (+9.81 on z at rest)
Gyroscope              (3,) float64 angular velocity (rad/s) in the sensor frame
InertialUnit           (4,) float64 quaternion x, y, z, w of the sensor frame in the world
Gps                    (3,) float64 world position (m)
Compass                (3,) float64 unit vector to north (world +y) in the sensor frame
CollisionSensor        {'in_contact': bool, 'contacts': sorted list of 'entity/link'}
UserInput              float; ``reader.set(value)`` (ValueError outside minimum..maximum)
JointPositionSensor    float (rad or m)
LightSensor            float: the lookup table's output for the irradiance of the lights (:mod:`.light`)
Led                    int: 0 off, else a colour index (or 0xRRGGBB if gradual); ``reader.set``
Emitter                int, packets sent so far; ``reader.send(text)`` queues one (:mod:`.radio`)
Receiver               list of str, the packets received since the last read (:mod:`.radio`)
=====================  ========================================================================

Each reader class declares the model class it reads (``reads = model.Camera``) and so registers
itself in :data:`READERS` when its module is imported (this package imports them all);
``create_reader`` chooses by the sensor's parameters where one class has two readers (a spherical
depth camera is ray-cast).

Images are rendered only when read and at most once per physics step per view (see
:mod:`.rendering`); a simulation owns its :class:`Rendering` (the renderer policy: gl, tiny or
auto, and the frame cache), asks it before building whether the engine's software renderer
draws (the engine then needs every visual shape) and invalidates it when it moves things
between steps.
Noise is off unless a sensor's ``noise`` is set and is drawn from
``sim.rng``.
"""

from __future__ import annotations

from typing import Any

from scene_sim_ros.scene import sensors as model
from scene_sim_ros.sim.sensors import (  # noqa: F401 - importing them registers their readers
    cameras,
    contact,
    inertial,
    light,
    radio,
    rays,
    user_input,
)
from scene_sim_ros.sim.sensors.base import REGISTERED, Reader
from scene_sim_ros.sim.sensors.cameras import entity_color
from scene_sim_ros.sim.sensors.rays import SphericalDepthReader
from scene_sim_ros.sim.sensors.rendering import (
    RenderCache,
    Rendering,
    invalidate_renders,
    render_cache,
    renderer_of,
)
from scene_sim_ros.sim.simulator import Simulator

READERS: dict[type, type[Reader]] = dict(REGISTERED)
"""Scene model class -> its reader: every reader class declares the class it reads
(``Reader.reads``) and registers itself when its module (imported above) is."""

PROJECTIONS = ('perspective', 'spherical')


def create_reader(sim: Simulator, entity_name: str, sensor: Any) -> Reader:
    """The reader of ``sensor`` (mounted on entity ``entity_name``) in ``sim``."""
    if isinstance(sensor, model.DepthCamera):
        if sensor.projection not in PROJECTIONS:
            raise ValueError(f'depth camera {sensor.name!r}: unknown projection '
                             f'{sensor.projection!r}; expected one of {PROJECTIONS}')
        if sensor.projection == 'spherical':
            return SphericalDepthReader(sim, entity_name, sensor)
    try:
        reader_class = READERS[type(sensor)]
    except KeyError:
        raise ValueError(f'no reader for sensor {sensor!r}') from None
    return reader_class(sim, entity_name, sensor)


__all__ = ['READERS', 'Reader', 'RenderCache', 'Rendering', 'create_reader', 'entity_color',
           'invalidate_renders', 'render_cache', 'renderer_of']
