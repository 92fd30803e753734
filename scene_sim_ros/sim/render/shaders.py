"""GLSL of the one pass that writes colour, linear depth and segmentation ids, and its lights.

Outputs: ``0`` RGBA8 colour, ``1`` R32F metres along the optical axis (0 where nothing was
drawn), ``2`` R32I PyBullet's segmentation value plus one (0: nothing).

Two lighting laws (compiled in, :class:`ProgramKey`):

- ``LIGHTING_PHONG`` (default): OpenGL's fixed-function Phong law that SimRobot's Core2 renderer
  uses, summed over up to :data:`MAX_LIGHTS` scene lights:
  ``emission + sum(La * Ka + Ld * Kd * max(n.l, 0) + Ls * Ks * max(r.v, 0)^shininess)``,
  clamped to 1, with the Surface's colours per instance (``Ka = Kd = colour`` where the model
  has no Surface).
- ``LIGHTING_TINY``: PyBullet TinyRenderer's law for one light (bullet3
  examples/TinyRenderer/TinyRenderer.cpp, ``Shader::fragment``): ``ka * c + (kd * max(n.l, 0) +
  ks * max(r.z, 0)^2) * c * light_colour`` with world-frame ``r``, no shadows; used to compare
  the two renderers image for image.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from scene_sim_ros.sim.render.tiny_lighting import tiny_light_arguments

LIGHTING_PHONG, LIGHTING_TINY = 0, 1
LIGHTINGS = {'phong': LIGHTING_PHONG, 'tiny': LIGHTING_TINY}
MAX_LIGHTS = 4
TINY_DEFAULT_DIRECTION = (-50.0, 30.0, 100.0)  # PyBullet's light without lightDirection (z up)

VERTEX = """
#version 330
uniform mat4 view;
uniform mat4 projection;
in vec3 in_position;
in vec3 in_normal;
in vec2 in_uv;
in vec4 in_model_0; in vec4 in_model_1; in vec4 in_model_2; in vec4 in_model_3;
in vec4 in_diffuse;
in vec4 in_ambient;   // rgb, shininess
in vec4 in_specular;  // rgb, unused
in vec4 in_emission;  // rgb, unused
in int in_id;
out vec3 v_world;
out vec3 v_normal;
out vec2 v_uv;
out float v_depth;
flat out vec4 v_diffuse;
flat out vec4 v_ambient;
flat out vec4 v_specular;
flat out vec3 v_emission;
flat out int v_id;
void main() {
    mat4 model = mat4(in_model_0, in_model_1, in_model_2, in_model_3);
    vec4 world = model * vec4(in_position, 1.0);
    vec4 eye = view * world;
    gl_Position = projection * eye;
    v_world = world.xyz;
    v_normal = mat3(model) * in_normal;  // rigid transforms: scale is baked into the vertices
    v_uv = in_uv;
    v_depth = -eye.z;
    v_diffuse = in_diffuse;
    v_ambient = in_ambient;
    v_specular = in_specular;
    v_emission = in_emission.rgb;
    v_id = in_id;
}
"""

FRAGMENT = """
#version 330
{defines}
uniform vec4 light_position[LIGHTS];   // w = 0: direction towards the light
uniform vec3 light_ambient[LIGHTS];
uniform vec3 light_diffuse[LIGHTS];
uniform vec3 light_specular[LIGHTS];
uniform vec4 light_spot[LIGHTS];       // direction from the light, cos(cutoff)
uniform vec3 eye_position;
uniform vec4 tiny;                     // ambient, diffuse, specular coefficients
uniform vec3 tiny_light_color;
uniform sampler2D texture0;
in vec3 v_world;
in vec3 v_normal;
in vec2 v_uv;
in float v_depth;
flat in vec4 v_diffuse;
flat in vec4 v_ambient;
flat in vec4 v_specular;
flat in vec3 v_emission;
flat in int v_id;
layout(location = 0) out vec4 out_color;
layout(location = 1) out float out_depth;
layout(location = 2) out int out_id;

void add_light(inout vec3 color, int i, bool positional, bool spot_light, vec3 n, vec3 base,
               vec3 texel) {
    vec3 l = positional ? normalize(light_position[i].xyz - v_world)
                        : normalize(light_position[i].xyz);
    float spot = 1.0;
    if (spot_light && dot(-l, normalize(light_spot[i].xyz)) < light_spot[i].w)
        spot = 0.0;
    float diffuse = max(dot(n, l), 0.0);
    color += light_ambient[i] * v_ambient.rgb * texel;
#ifdef SPECULAR
    vec3 v = normalize(eye_position - v_world);
    float specular = diffuse > 0.0
        ? pow(max(dot(reflect(-l, n), v), 0.0), max(v_ambient.w, 1e-3)) : 0.0;
    color += spot * (light_diffuse[i] * base * diffuse
                     + light_specular[i] * v_specular.rgb * specular);
#else
    color += spot * (light_diffuse[i] * base * diffuse);
#endif
}

vec3 tiny_law(vec3 n, vec3 base) {
    vec3 l = normalize(light_position[0].xyz);
    vec3 r = normalize(n * (2.0 * dot(n, l)) - l);
    float specular = pow(max(r.z, 0.0), 2.0);
    float diffuse = max(dot(n, l), 0.0);
    return tiny.x * base + (tiny.y * diffuse + tiny.z * specular) * base * tiny_light_color;
}

void main() {
    vec3 n = normalize(v_normal);
    if (!gl_FrontFacing) n = -n;
#ifdef TEXTURED
    vec4 sampled = texture(texture0, v_uv);
    if (sampled.a < 0.5) discard;  // cut-out textures (nets, fences): alpha-tested
#else
    vec4 sampled = vec4(1.0);
#endif
    vec3 texel = sampled.rgb;
    vec3 base = v_diffuse.rgb * texel;
#ifdef TINY
    vec3 rgb = tiny_law(n, base);
#else
    vec3 rgb = v_emission;
    {lights}
#endif
    out_color = vec4(clamp(rgb, 0.0, 1.0), 1.0);
    out_depth = v_depth;
    out_id = v_id + 1;
}
"""
"""The fragment shader, specialised per :class:`ProgramKey` (:func:`fragment_shader`)."""


@dataclass(frozen=True)
class ProgramKey:
    """What one compiled program of the colour pass does. Features a draw does not need are
    compiled out rather than branched on at run time: on Mesa llvmpipe every fragment pays for
    both sides of a branch and for a texture fetch its colour then ignores (a round of the
    game's 28 frames took 104 ms of CPU with one program for everything, 82 ms specialised,
    bench/vision_round.py).

    ``lights``: per scene light (:func:`scene_lights`) whether it is positional and whether it
    is a spot, compiled in as an unrolled sum; ``specular``: the drawn materials have a
    specular colour (else the highlight term, a ``pow`` per fragment and light, adds exactly
    0 and is left out)."""

    law: int
    lights: tuple[tuple[bool, bool], ...]
    textured: bool
    specular: bool


def fragment_shader(key: ProgramKey) -> str:
    defines = [f'#define LIGHTS {max(1, len(key.lights))}']
    defines += [f'#define {name}' for name, on in (
        ('TEXTURED', key.textured), ('SPECULAR', key.specular),
        ('TINY', key.law == LIGHTING_TINY)) if on]
    terms = '\n    '.join(
        f'add_light(rgb, {i}, {str(positional).lower()}, {str(spot).lower()}, n, base, texel);'
        for i, (positional, spot) in enumerate(key.lights))
    return FRAGMENT.replace('{defines}', '\n'.join(defines)).replace('{lights}', terms)


BACKGROUND_VERTEX = """
#version 330
in vec2 in_corner;
void main() { gl_Position = vec4(in_corner, 1.0, 1.0); }
"""

BACKGROUND_FRAGMENT = """
#version 330
uniform vec3 background;
layout(location = 0) out vec4 out_color;
layout(location = 1) out float out_depth;
layout(location = 2) out int out_id;
void main() { out_color = vec4(background, 1.0); out_depth = 0.0; out_id = 0; }
"""
"""One full-screen triangle in the scene's background colour (cheaper than filling the
background pixels of the read image)."""


def scene_lights(scene: Any, lighting: int) -> list[Any]:
    """The lights the colour pass sums: the scene's first :data:`MAX_LIGHTS`, or where it has
    none PyBullet's default light, so that unlit scenes look as with TinyRenderer (the
    TinyRenderer law takes the first light only, or its own default)."""
    lights = list(getattr(scene, 'lights', ()))[:MAX_LIGHTS]
    if lighting == LIGHTING_TINY:
        return lights[:1]
    if lights:
        return lights
    from scene_sim_ros.scene.model import Light
    x, y, z = TINY_DEFAULT_DIRECTION
    return [Light(direction=(-x, -y, -z), ambient=(0.6, 0.6, 0.6, 1.0),
                  diffuse=(0.35, 0.35, 0.35, 1.0), specular=(0.05, 0.05, 0.05, 1.0))]


def light_kinds(lights: list[Any], lighting: int) -> tuple[tuple[bool, bool], ...]:
    """:attr:`ProgramKey.lights` of ``lights``: (positional, spot) each."""
    if lighting == LIGHTING_TINY:
        return ()
    return tuple((light.kind != 'directional', _cutoff(light) is not None) for light in lights)


def set_light_uniforms(program: Any, lights: list[Any], lighting: int) -> None:
    """Upload ``lights`` (:func:`scene_lights`) to a program compiled for them (and
    TinyRenderer's coefficients for ``LIGHTING_TINY``)."""
    if lighting == LIGHTING_TINY:
        _set_tiny(program, lights[0] if lights else None)
        return
    position, ambient, diffuse, specular, spot = [], [], [], [], []
    for light in lights:
        if light.kind == 'directional':
            position.append((*(-c for c in light.direction), 0.0))
        else:
            position.append((*light.position, 1.0))
        ambient.append(tuple(light.ambient[:3]))
        diffuse.append(tuple(light.diffuse[:3]))
        specular.append(tuple(light.specular[:3]))
        cutoff = _cutoff(light)
        spot.append((*light.direction, math.cos(cutoff) if cutoff is not None else -2.0))
    for name, values in (('light_position', position), ('light_ambient', ambient),
                         ('light_diffuse', diffuse), ('light_specular', specular),
                         ('light_spot', spot)):
        if name in program:  # compiled out where no light or material needs it
            program[name].write(np.asarray(values, dtype=np.float32).tobytes())


def _cutoff(light: Any) -> float | None:
    return light.cutoff if light.kind == 'spot' and light.cutoff is not None else None


def _set_tiny(program: Any, light: Any) -> None:
    """The same arguments the engine's software renderer is given (:mod:`.tiny_lighting`)."""
    arguments = tiny_light_arguments(light)
    direction = np.asarray(arguments.get('lightDirection', TINY_DEFAULT_DIRECTION), np.float64)
    program['light_position'].write(np.asarray(
        [(*direction / np.linalg.norm(direction), 0.0)], dtype=np.float32).tobytes())
    program['tiny'].value = (arguments.get('lightAmbientCoeff', 0.6),
                             arguments.get('lightDiffuseCoeff', 0.35),
                             arguments.get('lightSpecularCoeff', 0.05), 0.0)
    program['tiny_light_color'].value = tuple(arguments.get('lightColor', (1.0, 1.0, 1.0)))
