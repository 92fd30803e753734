"""Our own implementations of the helper modules that Webots offers to PROTO templates.

Written from the Webots reference ("Procedural PROTO nodes"): a JavaScript template imports them
with ``import * as wbvector3 from 'wbvector3.js';`` (also ``'./wbvector3.js'``), a Lua template
with ``local wbcore = require('wbcore')``. Each JavaScript module is the body of a function that
returns its exports; :mod:`.template` appends the ones a template imports to its program.

Covered (vectors are ``{x, y[, z]}`` objects, rotations ``{x, y, z, a}``, quaternions
``{w, x, y, z}``, 3x3 matrices objects with keys ``0``..``8`` in row order):

- ``wbutility``: ``isScalar isVector2 isVector3 isAxisAngle isQuaternion isMatrix3
  isArrayOfPoints assert error deepCopy``;
- ``wbvector2``: ``equal add minus multiply norm distance dot normalize angle``;
- ``wbvector3``: ``equal add minus multiply norm distance cross dot normalize``;
- ``wbrotation``: ``equal fromQuaternion fromMatrix3 toQuaternion toMatrix3 isIdentity normalize
  combine rotateVector3ByMatrix3 rotateVector3ByRotation rotateVector3ByQuaternion``;
- ``wbgeometry``: ``circle isPoint2InPolygon findClosestPoint2InArray isPoint2ArrayClockwise``;
- ``wbrandom``: ``seed real integer`` (a seeded linear congruential generator: the same numbers on
  every load, not Webots' sequence).

Lua (``require``): ``wbcore`` (``tablecopy``), ``wbvector3`` (``add minus multiply norm distance
cross dot normalize``), ``wbrotation`` (``toQuaternion fromQuaternion combine
rotateVector3ByRotation``) and ``wbgeometry`` (``circle``), the same helpers with Lua tables.
"""

from __future__ import annotations

JS_MODULES: dict[str, str] = {
    'wbutility': r"""
  function isScalar(s) { return typeof s === 'number'; }
  function isVector2(v) { return v !== null && typeof v === 'object' && isScalar(v.x) && isScalar(v.y); }
  function isVector3(v) { return isVector2(v) && isScalar(v.z); }
  function isAxisAngle(r) { return isVector3(r) && isScalar(r.a); }
  function isQuaternion(q) { return isVector3(q) && isScalar(q.w); }
  function isMatrix3(m) {
    if (m === null || typeof m !== 'object') return false;
    for (let k = 0; k < 9; ++k) if (!isScalar(m[k])) return false;
    return true;
  }
  function isArrayOfPoints(points, dimension) {
    if (!Array.isArray(points)) return false;
    return points.every((p) => dimension === 3 ? isVector3(p) : isVector2(p));
  }
  function error(message) { throw new Error(message); }
  function assert(condition, message) { if (!condition) error(message); }
  function deepCopy(value) { return JSON.parse(JSON.stringify(value)); }
  return {isScalar, isVector2, isVector3, isAxisAngle, isQuaternion, isMatrix3, isArrayOfPoints,
          error, assert, deepCopy};
""",
    'wbvector2': r"""
  const u = __wbModule('wbutility');
  function check(v, name) { u.assert(u.isVector2(v), 'wbvector2.' + name + ': expected {x, y}'); }
  function equal(a, b) { check(a, 'equal'); check(b, 'equal'); return a.x === b.x && a.y === b.y; }
  function add(a, b) { check(a, 'add'); check(b, 'add'); return {x: a.x + b.x, y: a.y + b.y}; }
  function minus(a, b) { check(a, 'minus'); check(b, 'minus'); return {x: a.x - b.x, y: a.y - b.y}; }
  function multiply(v, s) { check(v, 'multiply'); return {x: v.x * s, y: v.y * s}; }
  function norm(v) { check(v, 'norm'); return Math.hypot(v.x, v.y); }
  function distance(a, b) { return norm(minus(a, b)); }
  function dot(a, b) { check(a, 'dot'); check(b, 'dot'); return a.x * b.x + a.y * b.y; }
  function normalize(v) {
    const n = norm(v);
    if (n === 0) u.error('wbvector2.normalize: the norm is zero');
    return {x: v.x / n, y: v.y / n};
  }
  function angle(a, b) { return Math.atan2(b.y, b.x) - Math.atan2(a.y, a.x); }
  return {equal, add, minus, multiply, norm, distance, dot, normalize, angle};
""",
    'wbvector3': r"""
  const u = __wbModule('wbutility');
  function check(v, name) { u.assert(u.isVector3(v), 'wbvector3.' + name + ': expected {x, y, z}'); }
  function equal(a, b) {
    check(a, 'equal'); check(b, 'equal');
    return a.x === b.x && a.y === b.y && a.z === b.z;
  }
  function add(a, b) { check(a, 'add'); check(b, 'add'); return {x: a.x + b.x, y: a.y + b.y, z: a.z + b.z}; }
  function minus(a, b) {
    check(a, 'minus'); check(b, 'minus');
    return {x: a.x - b.x, y: a.y - b.y, z: a.z - b.z};
  }
  function multiply(v, s) { check(v, 'multiply'); return {x: v.x * s, y: v.y * s, z: v.z * s}; }
  function norm(v) { check(v, 'norm'); return Math.sqrt(v.x * v.x + v.y * v.y + v.z * v.z); }
  function distance(a, b) { return norm(minus(a, b)); }
  function cross(a, b) {
    check(a, 'cross'); check(b, 'cross');
    return {x: a.y * b.z - a.z * b.y, y: a.z * b.x - a.x * b.z, z: a.x * b.y - a.y * b.x};
  }
  function dot(a, b) { check(a, 'dot'); check(b, 'dot'); return a.x * b.x + a.y * b.y + a.z * b.z; }
  function normalize(v) {
    const n = norm(v);
    if (n === 0) u.error('wbvector3.normalize: the norm is zero');
    return {x: v.x / n, y: v.y / n, z: v.z / n};
  }
  return {equal, add, minus, multiply, norm, distance, cross, dot, normalize};
""",
    'wbrotation': r"""
  const u = __wbModule('wbutility');
  function check(r, name) { u.assert(u.isAxisAngle(r), 'wbrotation.' + name + ': expected {x, y, z, a}'); }
  function equal(p, q) {
    check(p, 'equal'); check(q, 'equal');
    return p.x === q.x && p.y === q.y && p.z === q.z && p.a === q.a;
  }
  function normalize(r) {
    check(r, 'normalize');
    const n = Math.sqrt(r.x * r.x + r.y * r.y + r.z * r.z);
    if (n === 0) u.error('wbrotation.normalize: the axis is zero');
    r.x /= n; r.y /= n; r.z /= n;
    while (r.a < -Math.PI) r.a += 2 * Math.PI;
    while (r.a > Math.PI) r.a -= 2 * Math.PI;
    return r;
  }
  function toQuaternion(r) {
    check(r, 'toQuaternion');
    normalize(r);
    const s = Math.sin(r.a / 2);
    return {w: Math.cos(r.a / 2), x: r.x * s, y: r.y * s, z: r.z * s};
  }
  function fromQuaternion(q) {
    u.assert(u.isQuaternion(q), 'wbrotation.fromQuaternion: expected {w, x, y, z}');
    const a = 2 * Math.acos(Math.max(-1, Math.min(1, q.w)));
    if (a < 1e-4) return {x: 0, y: 1, z: 0, a: 0};
    const n = Math.sqrt(q.x * q.x + q.y * q.y + q.z * q.z);
    return {x: q.x / n, y: q.y / n, z: q.z / n, a: a};
  }
  function toMatrix3(r) {
    check(r, 'toMatrix3');
    const c = Math.cos(r.a), s = Math.sin(r.a), t = 1 - c;
    return {0: r.x * r.x * t + c, 1: r.x * r.y * t - r.z * s, 2: r.x * r.z * t + r.y * s,
            3: r.x * r.y * t + r.z * s, 4: r.y * r.y * t + c, 5: r.y * r.z * t - r.x * s,
            6: r.x * r.z * t - r.y * s, 7: r.y * r.z * t + r.x * s, 8: r.z * r.z * t + c};
  }
  function fromMatrix3(m) {
    u.assert(u.isMatrix3(m), 'wbrotation.fromMatrix3: expected keys 0..8');
    const c = (m[0] + m[4] + m[8] - 1) / 2;
    if (Math.abs(c) > 1) return {x: 1, y: 0, z: 0, a: 0};
    return {x: m[7] - m[5], y: m[2] - m[6], z: m[3] - m[1], a: Math.acos(c)};
  }
  function isIdentity(r) { return r.a === 0; }
  function combine(p, q) {
    const a = toQuaternion(p), b = toQuaternion(q);
    return fromQuaternion({w: a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
                           x: a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
                           y: a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
                           z: a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w});
  }
  function rotateVector3ByMatrix3(m, v) {
    u.assert(u.isMatrix3(m) && u.isVector3(v),
             'wbrotation.rotateVector3ByMatrix3: expected a matrix and {x, y, z}');
    return {x: m[0] * v.x + m[1] * v.y + m[2] * v.z, y: m[3] * v.x + m[4] * v.y + m[5] * v.z,
            z: m[6] * v.x + m[7] * v.y + m[8] * v.z};
  }
  function rotateVector3ByRotation(r, v) { return rotateVector3ByMatrix3(toMatrix3(r), v); }
  function rotateVector3ByQuaternion(q, v) { return rotateVector3ByRotation(fromQuaternion(q), v); }
  return {equal, normalize, toQuaternion, fromQuaternion, toMatrix3, fromMatrix3, isIdentity,
          combine, rotateVector3ByMatrix3, rotateVector3ByRotation, rotateVector3ByQuaternion};
""",
    'wbgeometry': r"""
  const u = __wbModule('wbutility');
  const v2 = __wbModule('wbvector2');
  function circle(radius, div, center, shift) {
    u.assert(u.isScalar(radius) && radius > 0, 'wbgeometry.circle: expected a positive radius');
    u.assert(u.isScalar(div) && div > 0, 'wbgeometry.circle: expected a positive division');
    u.assert(u.isVector2(center), 'wbgeometry.circle: expected the centre as {x, y}');
    u.assert(u.isScalar(shift), 'wbgeometry.circle: expected a number as shift');
    const points = [];
    for (let k = 0; k <= div; ++k) {
      const angle = 2 * Math.PI * k / div + shift;
      points.push({x: center.x + radius * Math.cos(angle), y: center.y + radius * Math.sin(angle)});
    }
    return points;
  }
  function isPoint2InPolygon(p, polygon) {
    u.assert(u.isVector2(p) && u.isArrayOfPoints(polygon, 2),
             'wbgeometry.isPoint2InPolygon: expected a point and an array of points');
    let inside = false;
    for (let k = 0, j = polygon.length - 1; k < polygon.length; j = k++) {
      const a = polygon[k], b = polygon[j];
      if ((a.y > p.y) !== (b.y > p.y) && p.x < (b.x - a.x) * (p.y - a.y) / (b.y - a.y) + a.x)
        inside = !inside;
    }
    return polygon.length >= 3 && inside;
  }
  function findClosestPoint2InArray(reference, points) {
    let best = reference, distance = Infinity;
    for (const p of points) {
      const d = v2.distance(reference, p);
      if (d < distance) { distance = d; best = p; }
    }
    return best;
  }
  function isPoint2ArrayClockwise(points) {
    let total = 0;
    for (let k = 0; k < points.length; ++k) {
      const a = points[k], b = points[(k + 1) % points.length];
      total += (b.x - a.x) * (b.y + a.y);
    }
    return total < 0;
  }
  return {circle, isPoint2InPolygon, findClosestPoint2InArray, isPoint2ArrayClockwise};
""",
    'wbrandom': r"""
  let state = 1;
  function seed(s) { state = (Math.floor(Math.abs(s)) % 2147483646) + 1; }
  function next() { state = (state * 48271) % 2147483647; return (state - 1) / 2147483646; }
  function real(min, max) {
    if (min === undefined) return next();
    if (max === undefined) { max = min; min = 0; }
    return min + (max - min) * next();
  }
  function integer(min, max) {
    if (min === undefined) return Math.floor(next() * 2147483647);
    if (max === undefined) { max = min; min = 1; }
    return min + Math.floor((max - min + 1) * next());
  }
  return {seed, real, integer};
""",
}

# The helpers a Lua template gets from ``require``; each chunk returns its module table.
LUA_MODULES: dict[str, str] = {
    'wbcore': r"""
local M = {}
function M.tablecopy(t)
  if type(t) ~= 'table' then return t end
  local copy = {}
  for k, v in pairs(t) do copy[k] = M.tablecopy(v) end
  return copy
end
return M
""",
    'wbvector3': r"""
local M = {}
function M.add(a, b) return {x = a.x + b.x, y = a.y + b.y, z = a.z + b.z} end
function M.minus(a, b) return {x = a.x - b.x, y = a.y - b.y, z = a.z - b.z} end
function M.multiply(v, s) return {x = v.x * s, y = v.y * s, z = v.z * s} end
function M.norm(v) return math.sqrt(v.x * v.x + v.y * v.y + v.z * v.z) end
function M.distance(a, b) return M.norm(M.minus(a, b)) end
function M.dot(a, b) return a.x * b.x + a.y * b.y + a.z * b.z end
function M.cross(a, b)
  return {x = a.y * b.z - a.z * b.y, y = a.z * b.x - a.x * b.z, z = a.x * b.y - a.y * b.x}
end
function M.normalize(v)
  local n = M.norm(v)
  if n == 0 then error('wbvector3.normalize: the norm is zero', 2) end
  return {x = v.x / n, y = v.y / n, z = v.z / n}
end
return M
""",
    'wbrotation': r"""
local M = {}
function M.toQuaternion(r)
  local n = math.sqrt(r.x * r.x + r.y * r.y + r.z * r.z)
  local s = math.sin(r.a / 2)
  return {w = math.cos(r.a / 2), x = r.x / n * s, y = r.y / n * s, z = r.z / n * s}
end
function M.fromQuaternion(q)
  local a = 2 * math.acos(math.max(-1, math.min(1, q.w)))
  if a < 1e-4 then return {x = 0, y = 1, z = 0, a = 0} end
  local n = math.sqrt(q.x * q.x + q.y * q.y + q.z * q.z)
  return {x = q.x / n, y = q.y / n, z = q.z / n, a = a}
end
function M.combine(p, q)
  local a, b = M.toQuaternion(p), M.toQuaternion(q)
  return M.fromQuaternion({w = a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
                           x = a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
                           y = a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
                           z = a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w})
end
function M.rotateVector3ByRotation(r, v)
  local c, s = math.cos(r.a), math.sin(r.a)
  local t = 1 - c
  return {x = (r.x * r.x * t + c) * v.x + (r.x * r.y * t - r.z * s) * v.y + (r.x * r.z * t + r.y * s) * v.z,
          y = (r.x * r.y * t + r.z * s) * v.x + (r.y * r.y * t + c) * v.y + (r.y * r.z * t - r.x * s) * v.z,
          z = (r.x * r.z * t - r.y * s) * v.x + (r.y * r.z * t + r.x * s) * v.y + (r.z * r.z * t + c) * v.z}
end
return M
""",
    'wbgeometry': r"""
local M = {}
function M.circle(radius, div, center, shift)
  local points = {}
  for k = 0, div do
    local angle = 2 * math.pi * k / div + shift
    points[#points + 1] = {x = center.x + radius * math.cos(angle), y = center.y + radius * math.sin(angle)}
  end
  return points
end
return M
""",
}
