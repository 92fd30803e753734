"""Fixtures of the batch tests (helpers: ``support.batch``)."""

from __future__ import annotations

from support.batch import batch_dir

__all__ = ['batch_dir']
