"""TinyRenderer's lighting law as data: the ``getCameraImage`` lighting arguments for a scene
light. The engine's software renderer is given them, and the GL renderer's 'tiny' lighting
(:mod:`.shaders`) reproduces the same law from them."""

from __future__ import annotations

from typing import Any


def tiny_light_arguments(light: Any) -> dict[str, Any]:
    """``getCameraImage`` lighting arguments for ``light`` (None: PyBullet's defaults)."""
    if light is None:
        return {}
    if light.kind == 'directional':
        towards_light = [-c for c in light.direction]
    else:
        towards_light = list(light.position)
    ambient = sum(light.ambient[:3]) / 3.0
    diffuse = max(light.diffuse[:3]) or 1.0
    return {
        'lightDirection': towards_light,
        'lightColor': [c / diffuse for c in light.diffuse[:3]],
        'lightAmbientCoeff': min(1.0, max(ambient, 0.0)),
        'lightDiffuseCoeff': min(1.0, diffuse),
        'lightSpecularCoeff': min(1.0, max(light.specular[:3])) * 0.2,
    }


def scene_light_arguments(scene: Any) -> dict[str, Any]:
    """The arguments for the scene's first light (PyBullet's defaults without one)."""
    lights = getattr(scene, 'lights', ())
    return tiny_light_arguments(lights[0] if lights else None)
