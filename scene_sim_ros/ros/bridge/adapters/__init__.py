"""One rclpy adapter per sensor type (see :mod:`.base`), chosen from a table by the sensor's kind.

=======================  ======================  ===============================================
sensor kind              adapter                 topics under ``<entity>/<sensor>/``
=======================  ======================  ===============================================
camera                   CameraAdapter           image_raw (rgb8), camera_info
depth_camera             DepthAdapter            image_raw (32FC1), camera_info | scan
segmentation_camera      SegmentationAdapter     image_raw (rgb8), camera_info
single/approx_distance   RangeAdapter            range
accelerometer/gyroscope  ImuAdapter              data_raw (``<entity>/imu/data_raw`` for a
/inertial_unit                                   group of several on one link; ``data`` with
                                                 orientation)
collision                CollisionAdapter        contact
user_input               UserInputAdapter        value, set (in)
gps / compass            GpsAdapter / Compass..  position / magnetic_field
joint_position           JointPositionAdapter    position
emitter / receiver       EmitterAdapter / Re...  send (in) / receive (std_msgs/String packets)
led                      LedAdapter              state, set (in) (std_msgs/Int32)
light_sensor             LightSensorAdapter      illuminance
=======================  ======================  ===============================================
"""

from __future__ import annotations

from scene_sim_ros.ros.bridge.adapters.base import AdapterSettings, SensorAdapter
from scene_sim_ros.ros.bridge.adapters.camera import CameraAdapter
from scene_sim_ros.ros.bridge.adapters.collision import CollisionAdapter
from scene_sim_ros.ros.bridge.adapters.depth import DepthAdapter
from scene_sim_ros.ros.bridge.adapters.imu import ImuAdapter
from scene_sim_ros.ros.bridge.adapters.misc import (
    CompassAdapter,
    GpsAdapter,
    JointPositionAdapter,
    LightSensorAdapter,
)
from scene_sim_ros.ros.bridge.adapters.radio import EmitterAdapter, ReceiverAdapter
from scene_sim_ros.ros.bridge.adapters.ranges import RangeAdapter
from scene_sim_ros.ros.bridge.adapters.segmentation import SegmentationAdapter
from scene_sim_ros.ros.bridge.adapters.user_input import LedAdapter, UserInputAdapter
from scene_sim_ros.ros.bridge.names import INERTIAL_KINDS
from scene_sim_ros.ros.bridge.tf import OPTICAL_KINDS

ADAPTERS: dict[str, type[SensorAdapter]] = {
    'camera': CameraAdapter,
    'depth_camera': DepthAdapter,
    'segmentation_camera': SegmentationAdapter,
    'single_distance': RangeAdapter,
    'approx_distance': RangeAdapter,
    'accelerometer': ImuAdapter,
    'gyroscope': ImuAdapter,
    'inertial_unit': ImuAdapter,
    'collision': CollisionAdapter,
    'user_input': UserInputAdapter,
    'gps': GpsAdapter,
    'compass': CompassAdapter,
    'joint_position': JointPositionAdapter,
    'emitter': EmitterAdapter,
    'receiver': ReceiverAdapter,
    'led': LedAdapter,
    'light_sensor': LightSensorAdapter,
}



__all__ = ['ADAPTERS', 'INERTIAL_KINDS', 'OPTICAL_KINDS', 'AdapterSettings', 'SensorAdapter']
