"""The Phong surfaces of Webots ``Shape`` appearances: VRML ``Appearance``/``Material`` and
``PBRAppearance``."""

from __future__ import annotations

from ...scene import geometry as shapes
from ...scene.model import Surface
from .nodes import Node


def material_surface(appearance: Node | None, color: shapes.RGBA) -> Surface | None:
    """The Phong material of a VRML ``Appearance { material Material {...} }`` (what the gl
    renderer lights): ambient ``ambientIntensity`` (default 0.2) times the diffuse colour,
    specular colour, ``shininess`` (0..1) times 128 (VRML97's scale), emissive colour; of a
    ``PBRAppearance`` see :func:`pbr_surface`. None for other appearances."""
    if appearance is not None and appearance.type == 'PBRAppearance':
        return pbr_surface(appearance, color)
    if appearance is None or appearance.type != 'Appearance':
        return None
    material = appearance.node('material')
    if material is None or material.type != 'Material':
        return None
    ambient = material.float('ambientIntensity', 0.2)
    r, g, b, a = color
    return Surface(diffuse=color, ambient=(r * ambient, g * ambient, b * ambient, a),
                   specular=(*material.color('specularColor', (0.0, 0.0, 0.0)), 1.0),
                   emission=(*material.color('emissiveColor', (0.0, 0.0, 0.0)), 1.0),
                   shininess=128.0 * min(1.0, max(0.0, material.float('shininess', 0.2))))


def pbr_surface(appearance: Node, color: shapes.RGBA) -> Surface:
    """A Phong stand-in for Webots' metallic-roughness ``PBRAppearance`` (defaults: metalness 1,
    roughness 0). Specular colour: the Fresnel reflectance at normal incidence of the metallic
    workflow, 0.04 for dielectrics blended to ``baseColor`` by ``metalness``; exponent: the
    Blinn-Phong equivalent of the GGX/Beckmann width alpha = roughness^2, 2/alpha^2 - 2 (Walter
    et al. 2007), within 1..128; emission ``emissiveColor`` x ``emissiveIntensity``. Diffuse
    and ambient stay ``baseColor``: the environment light Webots adds (IBL) has no Phong term,
    and a metal without it would be black."""
    metalness = min(1.0, max(0.0, appearance.float('metalness', 1.0)))
    roughness = min(1.0, max(0.0, appearance.float('roughness', 0.0)))
    r, g, b, a = color
    def fresnel(c: float) -> float:
        return 0.04 + (c - 0.04) * metalness
    alpha = roughness * roughness
    shininess = 128.0 if alpha == 0.0 else min(128.0, max(1.0, 2.0 / (alpha * alpha) - 2.0))
    intensity = appearance.float('emissiveIntensity', 1.0)
    er, eg, eb = appearance.color('emissiveColor', (0.0, 0.0, 0.0))
    return Surface(diffuse=color, ambient=color,
                   specular=(fresnel(r), fresnel(g), fresnel(b), 1.0),
                   emission=(er * intensity, eg * intensity, eb * intensity, 1.0),
                   shininess=shininess)
