"""The format-neutral scene model (pure Python: no PyBullet, no rclpy)."""

from .geometry import RGBA, Box, Capsule, Cylinder, Heightfield, Mesh, MeshFile, Plane, Shape, Sphere, Torus
from .model import (
                       Collision,
                       ContactDefaults,
                       Entity,
                       EntityKind,
                       Inertial,
                       Joint,
                       JointType,
                       Light,
                       Link,
                       MaterialPair,
                       Propeller,
                       Scene,
                       Surface,
                       Visual,
                       Wire,
)
from .motors import Motor, PT2Motor, ServoMotor, VelocityMotor, command_interface
from .sensors import (
                       Accelerometer,
                       ApproxDistanceSensor,
                       Camera,
                       CollisionSensor,
                       Compass,
                       DepthCamera,
                       Emitter,
                       Gps,
                       Gyroscope,
                       InertialUnit,
                       JointPositionSensor,
                       Led,
                       LightSensor,
                       Receiver,
                       SegmentationCamera,
                       Sensor,
                       SingleDistanceSensor,
                       UserInput,
)
from .transforms import IDENTITY, Pose, Quat, Vec3

__all__ = [
    'IDENTITY', 'RGBA', 'Accelerometer', 'ApproxDistanceSensor', 'Box', 'Camera', 'Capsule',
    'Collision', 'CollisionSensor', 'Compass', 'ContactDefaults', 'Cylinder', 'DepthCamera',
    'Entity', 'EntityKind', 'Gps', 'Gyroscope', 'Heightfield', 'Inertial', 'InertialUnit', 'Joint',
    'JointPositionSensor', 'JointType', 'Light', 'Link', 'MaterialPair', 'Mesh', 'MeshFile',
    'Propeller', 'Emitter', 'Receiver', 'Led', 'LightSensor',
    'Motor', 'PT2Motor', 'Plane', 'Pose', 'Quat', 'Scene', 'SegmentationCamera', 'Sensor',
    'ServoMotor', 'Shape', 'SingleDistanceSensor', 'Sphere', 'Torus', 'UserInput', 'Vec3',
    'Surface', 'VelocityMotor', 'Visual', 'Wire', 'command_interface',
]
