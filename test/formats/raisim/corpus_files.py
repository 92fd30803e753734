"""What the RaiSim tests know of the corpus's RaiSim files (``../shared/corpus/raisim``)."""

from __future__ import annotations

from pathlib import Path

# the template parameters the corpus's templated worlds use (templatedWorld.xml and its includes)
TEMPLATE_PARAMETERS = {
    'floor_height': '0', 'sphere_count': '10', 'spawn_sphere': 'true', 'spawn_box': 'true',
    'sphere_height_offset': '0.5', 'laikago_start_x': '-3', 'laikago_start_y': '0',
}
LAIKAGO_QPOS = [0.0, 0.5, -1.0, 0.0, 0.5, -1.0, 0.0, 0.5, -1.0, 0.0, 0.5, -0.7]


def raisim_worlds(corpus: Path) -> list[Path]:
    """The corpus's RaiSim world files (sensor sets left out); none where it is absent."""
    if not (corpus / 'raisim').is_dir():
        return []
    return sorted(p for p in (corpus / 'raisim').rglob('*.xml') if 'sensors' not in p.parts)
