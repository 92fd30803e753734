"""``SegmentationCamera`` -> ``<topic>/image_raw`` (rgb8, a stable colour per entity, black where
nothing is hit) + ``<topic>/camera_info``; rendered only while subscribed."""

from __future__ import annotations

from scene_sim_ros.ros.bridge.adapters.camera import CameraAdapter


class SegmentationAdapter(CameraAdapter):
    rate_key = 'segmentation'
