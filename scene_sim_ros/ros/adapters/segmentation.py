"""``SegmentationCamera`` -> ``<topic>/image_raw`` (rgb8, a stable colour per entity, black where
nothing is hit) + ``<topic>/camera_info``; rendered only while subscribed."""

from __future__ import annotations

from .camera import CameraAdapter


class SegmentationAdapter(CameraAdapter):
    rate_key = 'segmentation'
