"""The ``gl`` camera renderer: OpenGL 3.3 through moderngl on a headless EGL context.

Split by concern: :mod:`.context` (the one EGL context of the process), :mod:`.tessellation`
and :mod:`.meshfiles` (visual shapes as triangles), :mod:`.textures` (image files, with Pillow),
:mod:`.lod` (simplified far meshes), :mod:`.drawables` (shapes uploaded once, visuals as
instance rows), :mod:`.culling` (frustum test), :mod:`.shaders` (one pass: colour, linear
depth, segmentation; Phong or TinyRenderer's lighting) and :mod:`.renderer` (per-frame poses,
per-camera drawing and readback). Nothing here imports moderngl until a context is made.
"""

from scene_sim_ros.sim.render.context import APT_PACKAGES, GlUnavailable, egl_problem, gl_context, gl_current

__all__ = ['APT_PACKAGES', 'GlUnavailable', 'egl_problem', 'gl_context', 'gl_current']
