"""The inspector's bird's-eye map of a scene (results/inspector.py): the floor seen from above, drawn from
the scene's spec alone as SVG: every object at its ground position (a square for a cube, its yaw turning
it; a circle otherwise) in its colour and numbered as its image's ground truth numbers it, the camera with
its horizontal field of view, the lights, and the hand with the ray it points along.

World x runs right and world y up on the map; the <svg> carries the map's scale and origin (data-scale,
data-x0, data-y0: a point (x, y) is drawn at ((x - x0) * scale, (y0 - y) * scale)), so a reader can
take any drawn position back to the floor's."""
from __future__ import annotations

import math

from mewl_gen.scenes import hand as hand_geometry
from mewl_gen.scenes.camera import rotation_matrix
from mewl_gen.scenes.spec import SceneSpec
from mewl_gen.scenes.universe import COLOR_RGB, HAND_RGB

from .gallery_html import esc

SIDE = 300  # pixels of the map's longer side
MARGIN = 0.6  # scene units around what is drawn
RAY = 30.0  # scene units the field of view's edges and the hand's ray are drawn along (clipped by the map)


def _rgb(rgb: tuple[int, int, int]) -> str:
    return "#%02x%02x%02x" % rgb


def _fov(spec: SceneSpec) -> tuple[float, float]:
    """The camera's heading on the floor (radians from +x) and its horizontal field of view."""
    cam = spec.camera
    forward = -rotation_matrix(cam.rotation)[:, 2]
    half = math.atan(cam.sensor_width_mm / 2 / cam.lens_mm)  # the sensor fits the image's wider side
    if cam.height > cam.width:
        half = math.atan(math.tan(half) * cam.width / cam.height)
    return math.atan2(forward[1], forward[0]), 2 * half


def _fixed(value: float) -> str:
    return f"{value:.2f}"


def svg(spec: SceneSpec, roles: dict[int, str]) -> str:
    """The map of one scene; object k's group is data-index k with its spec's (x, y) in data-x, data-y."""
    cam, lights, h = spec.camera, spec.lights, spec.hand
    points = [o.position for o in spec.objects] + [cam.location[:2]] + [light.location[:2] for light in lights]
    if h is not None:
        points.append(h.position)
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    x0, x1, y0, y1 = min(xs) - MARGIN, max(xs) + MARGIN, min(ys) - MARGIN, max(ys) + MARGIN
    scale = SIDE / max(x1 - x0, y1 - y0)
    width, height = (x1 - x0) * scale, (y1 - y0) * scale

    def at(x: float, y: float) -> tuple[str, str]:
        return _fixed((x - x0) * scale), _fixed((y1 - y) * scale)

    parts = [f'<rect class="floor" x="0" y="0" width="{_fixed(width)}" height="{_fixed(height)}"/>']
    heading, fov = _fov(spec)
    cx, cy = at(*cam.location[:2])
    for edge in (heading - fov / 2, heading + fov / 2):
        ex, ey = at(cam.location[0] + RAY * math.cos(edge), cam.location[1] + RAY * math.sin(edge))
        parts.append(f'<line class="fov" x1="{cx}" y1="{cy}" x2="{ex}" y2="{ey}"/>')
    parts.append(f'<g class="camera" data-x="{cam.location[0]:.4f}" data-y="{cam.location[1]:.4f}">'
                 f'<circle cx="{cx}" cy="{cy}" r="6"/><title>camera, field of view {math.degrees(fov):.1f}°'
                 f'</title></g>')
    for light in lights:
        lx, ly = at(*light.location[:2])
        parts.append(f'<g class="light" data-x="{light.location[0]:.4f}" data-y="{light.location[1]:.4f}">'
                     f'<circle cx="{lx}" cy="{ly}" r="5"/><title>light {esc(light.name)}, {light.energy:g} W'
                     f'</title></g>')
    if h is not None:
        tip = hand_geometry.fingertip(h)
        hx, hy = at(*h.position)
        tx, ty = at(*tip)
        rx, ry = at(tip[0] + RAY * math.cos(h.yaw), tip[1] + RAY * math.sin(h.yaw))
        parts.append(f'<line class="ray" x1="{tx}" y1="{ty}" x2="{rx}" y2="{ry}"/>'
                     f'<g class="hand" data-x="{h.position[0]:.4f}" data-y="{h.position[1]:.4f}">'
                     f'<line x1="{hx}" y1="{hy}" x2="{tx}" y2="{ty}"/><circle cx="{hx}" cy="{hy}" r="5" '
                     f'fill="{_rgb(HAND_RGB)}"/><title>the hand, pointing at #{h.target}</title></g>')
    for k, o in enumerate(spec.objects):
        ox, oy = at(*o.position)
        r = o.scale * scale
        if o.shape == "cube":
            body = (f'<rect x="{_fixed(-r)}" y="{_fixed(-r)}" width="{_fixed(2 * r)}" height="{_fixed(2 * r)}" '
                    f'transform="translate({ox} {oy}) rotate({-math.degrees(o.rotation):.1f})"/>')
        else:
            body = f'<circle cx="{ox}" cy="{oy}" r="{_fixed(r)}"/>'
        role = roles.get(k, "context")
        parts.append(f'<g class="obj {esc(role)}" data-index="{k}" data-x="{o.position[0]:.4f}" '
                     f'data-y="{o.position[1]:.4f}" data-cx="{ox}" data-cy="{oy}" fill="{_rgb(COLOR_RGB[o.color])}">'
                     f'{body}<text x="{ox}" y="{oy}">{k}</text></g>')
    return (f'<svg class="map" viewBox="0 0 {_fixed(width)} {_fixed(height)}" width="{_fixed(width)}" '
            f'height="{_fixed(height)}" data-scale="{scale:.6f}" data-x0="{x0:.6f}" data-y0="{y1:.6f}" '
            f'role="img" aria-label="the scene from above">{"".join(parts)}</svg>')
