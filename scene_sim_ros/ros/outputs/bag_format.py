"""What rosbag2's MCAP storage plugin writes and reads, without ROS: one place for the recorder
and ``bag recover``.

Checked against ros2/rosbag2 (``rosbag2_storage_mcap/src/mcap_storage.cpp``,
``rosbag2_storage/src/rosbag2_storage/qos.cpp``, ``rosbag2_storage/include/rosbag2_storage/
yaml.hpp``): header profile ``ros2``; a schema per type named ``pkg/msg/Name``, encoding
``ros2msg``, the definition with its dependencies; channels with message encoding ``cdr`` and
metadata ``offered_qos_profiles`` (YAML, metadata version 9: policies by name) and
``topic_type_hash``; a metadata record ``rosbag2`` whose ``serialized_metadata`` is the
BagMetadata YAML (no ``rosbag2_bagfile_information`` wrapper, unlike metadata.yaml).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

ROSBAG2_VERSION = 9
ROS_DISTRO = 'kilted'
PROFILE = 'ros2'
SCHEMA_ENCODING = 'ros2msg'
MESSAGE_ENCODING = 'cdr'
METADATA_NAME = 'rosbag2'

_FOREVER = {'sec': 9223372036, 'nsec': 854775807}  # RMW_DURATION_INFINITE as rosbag2 writes it


def qos_profiles(*, reliable: bool, latched: bool) -> list[dict[str, Any]]:
    """The offered QoS of a topic as rosbag2 (version 9) writes it: policies by name."""
    return [{'history': 'keep_last', 'depth': 1 if latched else 10,
             'reliability': 'reliable' if reliable else 'best_effort',
             'durability': 'transient_local' if latched else 'volatile',
             'deadline': dict(_FOREVER), 'lifespan': dict(_FOREVER),
             'liveliness': 'automatic', 'liveliness_lease_duration': dict(_FOREVER),
             'avoid_ros_namespace_conventions': False}]


def qos_text(profiles: list[dict[str, Any]]) -> str:
    """``offered_qos_profiles`` channel metadata (YAML, as rosbag2's serialize_rclcpp_qos_vector)."""
    import yaml
    return yaml.safe_dump(profiles, sort_keys=False)


def parse_qos(text: str) -> list[dict[str, Any]]:
    import yaml
    try:
        value = yaml.safe_load(text) if text else []
    except yaml.YAMLError:
        return []
    return value if isinstance(value, list) else []


@dataclass
class TopicRecord:
    """One topic of a bag: what the metadata says of it."""
    name: str
    type: str
    qos: list[dict[str, Any]]
    type_hash: str
    count: int = 0


def bag_metadata(file_name: str, topics: list[TopicRecord], first_ns: int,
                 last_ns: int) -> dict[str, Any]:
    """rosbag2's BagMetadata (``serialized_metadata`` of the ``rosbag2`` record)."""
    duration = max(0, last_ns - first_ns)
    total = sum(t.count for t in topics)
    return {
        'version': ROSBAG2_VERSION,
        'storage_identifier': 'mcap',
        'relative_file_paths': [file_name],
        'duration': {'nanoseconds': duration},
        'starting_time': {'nanoseconds_since_epoch': first_ns},
        'message_count': total,
        'topics_with_message_count': [
            {'topic_metadata': {'name': t.name, 'type': t.type,
                                'serialization_format': MESSAGE_ENCODING,
                                'offered_qos_profiles': t.qos,
                                'type_description_hash': t.type_hash},
             'message_count': t.count}
            for t in topics],
        'compression_format': '', 'compression_mode': '',
        'files': [{'path': file_name,
                   'starting_time': {'nanoseconds_since_epoch': first_ns},
                   'duration': {'nanoseconds': duration},
                   'message_count': total}],
        'custom_data': {'recorded_by': 'scene_sim_ros'},
        'ros_distro': ROS_DISTRO,
    }


def metadata_record(metadata: dict[str, Any]) -> dict[str, str]:
    """The ``rosbag2`` metadata record's map (YAML, as rosbag2's update_metadata writes)."""
    import yaml
    return {'serialized_metadata': yaml.safe_dump(metadata, sort_keys=False)}
