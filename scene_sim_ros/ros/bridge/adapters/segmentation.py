"""``SegmentationCamera`` -> ``<topic>/image_raw`` (rgb8, a stable colour per entity, black where
nothing is hit) + ``<topic>/camera_info``; rendered only while subscribed."""

from __future__ import annotations

from scene_sim_ros.ros.bridge.adapters.camera import CameraAdapter


class SegmentationAdapter(CameraAdapter):
    """The camera's topics, optical frame and laziness, at its own rate."""

    kinds = ('segmentation_camera',)
    rate_key = 'segmentation'
    default_rate = 10.0
