"""Quality-of-service profiles of every topic the node offers (REP-2003).

Sensor data is published reliable + volatile (the SystemDefaults of REP-2003), so that both
reliable and best-effort subscribers match; a small queue for images keeps a slow subscriber from
holding memory. ``/tf`` and ``/tf_static`` copy tf2_ros' broadcasters exactly, so that a real
``tf2_ros.TransformListener`` (and one that starts late) receives them. Latched values
(``robot_description``, counters) are transient-local with depth 1.

Topics published every physics step keep 100 samples, as ``/tf`` does (1 s at 100 Hz). Why: a
reliable KEEP_LAST writer holds only ``depth / rate`` seconds of history. A subscriber whose
participant discovers the writer after the writer matched it (``ros2 topic echo`` spins 0.5 s for
discovery; this node has about 100 endpoints) drops what arrives before and asks for it again;
with depth 10 those samples had left the history and Fast DDS reported "A message was lost!!!"
(measured with ros2cli: 15 of 32 echo runs before, 0 of 32 after).
"""

from __future__ import annotations

from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy


def _profile(depth: int, *, latched: bool = False) -> QoSProfile:
    return QoSProfile(
        history=HistoryPolicy.KEEP_LAST, depth=depth, reliability=ReliabilityPolicy.RELIABLE,
        durability=DurabilityPolicy.TRANSIENT_LOCAL if latched else DurabilityPolicy.VOLATILE)


SENSOR = _profile(100)
"""Joint states, IMU, ranges, scans, contacts."""

IMAGE = _profile(10)
"""Images, their camera_info and point clouds: ROS's default depth (``rmw_qos_profile_default``,
what image_transport and ros_gz_bridge publish with). Depth 2 lost frames for a consumer that
keeps up: with all 28 cameras of Game.ros2 subscribed from another process (a raw consumer at 3 %
of a core), 8 % of the frames left the writer's history before Fast DDS delivered them on two
cores that rendering keeps busy; depth 5 lost 1-2 %, depth 10 none (bench/node_rtf.py --robot
all --clock-only --raw --events). The history fills only while a reader lags."""

TF = _profile(100)
"""``/tf``: as ``tf2_ros.TransformBroadcaster``."""

TF_STATIC = _profile(1, latched=True)
"""``/tf_static``: as ``tf2_ros.StaticTransformBroadcaster`` (the whole set in one message)."""

CLOCK = _profile(100)
"""``/clock``: reliable, so that rclpy's best-effort time source and reliable ones both match."""

LATCHED = _profile(1, latched=True)
"""``robot_description`` and the node's counters: late joiners get the last value."""

COMMAND = _profile(10)
"""Command subscriptions: SystemDefaults, as ros2_control's forward controllers."""
