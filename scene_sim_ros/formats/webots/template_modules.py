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
- ``wbrandom``: ``seed real integer`` (Webots' generator: Visual Basic's linear congruential
  one, seed 0, the same sequence as Webots);
- ``wbmath``: ``degreesToRadians radiansToDegrees``; ``wbcore``: ``deepCopy``; ``wbfile``:
  ``getPathWithoutFilename``.

Lua (``require``, Webots R2019b-R2022a templates): every module Webots ships in
``resources/lua/modules/webots/`` with its lower-case names and 1-based tables: ``wbcore``
(``deepcopy tablelength``), ``wbfile`` (``getpathwithoutfilename``), ``wbgeometry`` (``circle
ispointinpolygon findclosest2Dpointinarray islistclockwise2D bspline2D bspline3D``),
``wblimits`` (``maxdouble mindouble``), ``wbmath`` (``round degrees2radians radians2degrees``),
``wbrandom`` (``seed real integer``, the same sequence as the JavaScript one), ``wbrotation``
(``equal fromquaternion frommatrix3 toquaternion tomatrix3 isvalid isidentity normalizeangle
normalizeaxis normalize combine rotatevector3bymatrix3 rotatevector3byrotation
rotatevector3byquaternion``), ``wbstring`` (``split``), ``wbvector2`` (``equal add minus
multiply norm atan2 distance angle cross dot normalize intersection``) and ``wbvector3``
(``equal add minus multiply norm distance cross dot normalize``). Written from Webots' sources
and reference, with Webots' quirks kept where a PROTO could see them (``wbvector2.atan2(v)`` is
``atan2(v.x, v.y)``; ``wbrotation.frommatrix3`` leaves the axis unnormalised;
``wbgeometry.circle`` returns ``div + 1`` points).
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
  // Visual Basic's linear congruential generator, as Webots' wbrandom.js (and wbrandom.lua)
  const SPAN = Math.pow(2, 24);
  let state = 0;
  function seed(s) { state = s; }
  function advance() { state = (1140671485 * state + 12820163) % SPAN; }
  function real(min, max) {
    if (min === undefined) { min = 0; max = 1; } else if (max === undefined) { max = min; min = 0; }
    advance();
    return min + state * (max - min) / (SPAN - 1);
  }
  function integer(min, max) {
    if (min === undefined) { min = 0; max = SPAN - 1; } else if (max === undefined) { max = min; min = 1; }
    advance();
    return min + state % (1 + max - min);
  }
  return {seed, real, integer};
""",
    'wbmath': r"""
  function degreesToRadians(angle) { return angle * Math.PI / 180.0; }
  function radiansToDegrees(angle) { return angle * 180.0 / Math.PI; }
  return {degreesToRadians, radiansToDegrees};
""",
    'wbcore': r"""
  function deepCopy(value) { return JSON.parse(JSON.stringify(value)); }
  return {deepCopy};
""",
    'wbfile': r"""
  // 'a/b/c.proto' -> 'a/b/' (the first backslash becomes /, as Webots' String.replace does)
  function getPathWithoutFilename(path) { return path.replace('\\', '/').replace(/[^\/]*$/, ''); }
  return {getPathWithoutFilename};
""",
}

# The helpers a Lua template gets from ``require`` (Webots' resources/lua/modules/webots/, R2019b
# to R2022a: lower-case names, 1-based tables); each chunk returns its module table.
LUA_MODULES: dict[str, str] = {
    'wbcore': r"""
local M = {}
function M.deepcopy(value)  -- tables copied key by key, metatables too
  if type(value) ~= 'table' then return value end
  local copy = {}
  for k, v in next, value, nil do copy[M.deepcopy(k)] = M.deepcopy(v) end
  return setmetatable(copy, M.deepcopy(getmetatable(value)))
end
function M.tablelength(t)  -- the run of 1, 2, ... as ipairs walks it
  local n = 0
  for _ in ipairs(t) do n = n + 1 end
  return n
end
return M
""",
    'wbfile': r"""
local M = {}
function M.getpathwithoutfilename(path)  -- 'a/b/c.proto' -> 'a/b' (backslashes become /)
  path = string.gsub(path, '\\', '/')
  local cut = string.find(string.reverse(path), '/')
  if cut == nil then error('wbfile.getpathwithoutfilename: no folder in ' .. path, 2) end
  return string.sub(path, 1, #path - cut)
end
return M
""",
    'wblimits': r"""
local M = {}
M.maxdouble = 2 ^ 53  -- the largest integer a double holds exactly
M.mindouble = -M.maxdouble
return M
""",
    'wbmath': r"""
local M = {}
function M.round(x) return math.floor(x + 0.5) end
function M.degrees2radians(angle) return angle * math.pi / 180.0 end
function M.radians2degrees(angle) return angle * 180.0 / math.pi end
return M
""",
    'wbrandom': r"""
local M = {}
local state = 0
local SPAN = 2 ^ 24
function M.seed(s) state = s end
local function advance()  -- Visual Basic's LCG, in doubles as Webots computes it
  state = (1140671485 * state + 12820163) % SPAN
end
function M.real(min, max)
  if min == nil then min, max = 0, 1 elseif max == nil then min, max = 0, min end
  advance()
  return min + state * (max - min) / (SPAN - 1)
end
function M.integer(min, max)
  if min == nil then min, max = 0, SPAN - 1 elseif max == nil then min, max = 1, min end
  advance()
  return min + state % (1 + max - min)
end
return M
""",
    'wbstring': r"""
local M = {}
function M.split(text, separator)  -- the pieces between matches of the pattern separator
  local pieces, from = {}, 1
  local s, e, piece = string.find(text, '(.-)' .. separator, from)
  while s do
    if s ~= 1 or piece ~= '' then pieces[#pieces + 1] = piece end
    from = e + 1
    s, e, piece = string.find(text, '(.-)' .. separator, from)
  end
  if from <= #text then pieces[#pieces + 1] = string.sub(text, from) end
  return pieces
end
return M
""",
    'wbvector2': r"""
local M = {}
function M.equal(a, b) return a.x == b.x and a.y == b.y end
function M.add(a, b) return {x = a.x + b.x, y = a.y + b.y} end
function M.minus(a, b) return {x = a.x - b.x, y = a.y - b.y} end
function M.multiply(v, s) return {x = s * v.x, y = s * v.y} end
function M.norm(v) return math.sqrt(v.x * v.x + v.y * v.y) end
function M.atan2(v) return math.atan2(v.x, v.y) end  -- (x, y), as Webots' module has it
function M.distance(a, b) return M.norm(M.minus(a, b)) end
function M.angle(a, b) return M.atan2(M.minus(a, b)) end
function M.cross(a, b) return a.x * b.y - a.y * b.x end
function M.dot(a, b) return a.x * b.x + a.y * b.y end
function M.normalize(v)
  local n = M.norm(v)
  if n == 0 then error() end
  return {x = v.x / n, y = v.y / n}
end
function M.intersection(p1, p2, p3, p4)  -- of segments p1-p2 and p3-p4, or nil
  if math.max(p1.x, p2.x) < math.min(p3.x, p4.x) then return nil end
  if (p1.x == p2.x and p1.y == p2.y) or (p3.x == p4.x and p3.y == p4.y) then return nil end
  if (p1.x == p2.x and p3.x == p4.x) or (p1.y == p2.y and p3.y == p4.y) then return nil end
  local x, y
  if p1.x ~= p2.x and p3.x ~= p4.x then
    local s1, s2 = (p1.y - p2.y) / (p1.x - p2.x), (p3.y - p4.y) / (p3.x - p4.x)
    if s1 == s2 then return nil end
    local c1, c2 = p1.y - s1 * p1.x, p3.y - s2 * p3.x
    x = (c2 - c1) / (s1 - s2)
    y = s2 * x + c2
  else
    local s1, s2 = (p1.x - p2.x) / (p1.y - p2.y), (p3.x - p4.x) / (p3.y - p4.y)
    if s1 == s2 then return nil end
    local c1, c2 = p1.x - s1 * p1.y, p3.x - s2 * p3.y
    y = (c2 - c1) / (s1 - s2)
    x = s2 * y + c2
  end
  if x < math.max(math.min(p1.x, p2.x), math.min(p3.x, p4.x))
      or x > math.min(math.max(p1.x, p2.x), math.max(p3.x, p4.x)) then
    return nil
  end
  return {x = x, y = y}
end
return M
""",
    'wbvector3': r"""
local M = {}
function M.equal(a, b) return a.x == b.x and a.y == b.y and a.z == b.z end
function M.add(a, b) return {x = a.x + b.x, y = a.y + b.y, z = a.z + b.z} end
function M.minus(a, b) return {x = a.x - b.x, y = a.y - b.y, z = a.z - b.z} end
function M.multiply(v, s) return {x = s * v.x, y = s * v.y, z = s * v.z} end
function M.norm(v) return math.sqrt(v.x * v.x + v.y * v.y + v.z * v.z) end
function M.distance(a, b) return M.norm(M.minus(a, b)) end
function M.cross(a, b)
  return {x = a.y * b.z - a.z * b.y, y = a.z * b.x - a.x * b.z, z = a.x * b.y - a.y * b.x}
end
function M.dot(a, b) return a.x * b.x + a.y * b.y + a.z * b.z end
function M.normalize(v)
  local n = M.norm(v)
  if n == 0 then error() end
  return {x = v.x / n, y = v.y / n, z = v.z / n}
end
return M
""",
    'wbrotation': r"""
local M = {}
-- rotations {x, y, z, a} (radians), quaternions {w, x, y, z}, 3x3 matrices m[1..9] by rows
function M.equal(p, q) return p.x == q.x and p.y == q.y and p.z == q.z and p.a == q.a end
function M.isvalid(r) return r.x ~= 0 or r.y ~= 0 or r.z ~= 0 end
function M.isidentity(r) return r.a == 0.0 end
function M.normalizeangle(r)
  while r.a < -math.pi do r.a = r.a + 2 * math.pi end
  while r.a > math.pi do r.a = r.a - 2 * math.pi end
end
function M.normalizeaxis(r)
  if not M.isvalid(r) then r.x, r.y, r.z = 0, 1, 0 end
  local inverse = 1 / math.sqrt(r.x * r.x + r.y * r.y + r.z * r.z)
  r.x, r.y, r.z = r.x * inverse, r.y * inverse, r.z * inverse
end
function M.normalize(r)  -- in place, as Webots' module does
  M.normalizeaxis(r)
  M.normalizeangle(r)
  return r
end
function M.fromquaternion(q)
  local a = 2 * math.acos(q.w)
  if a < 0.0001 then return {x = 0, y = 1, z = 0, a = 0} end
  local n = math.sqrt(q.x * q.x + q.y * q.y + q.z * q.z)
  return {x = q.x / n, y = q.y / n, z = q.z / n, a = a}
end
function M.frommatrix3(m)  -- Webots' own: the axis is not normalised
  local cosine = 0.5 * (m[1] + m[5] + m[9] - 1)
  if math.abs(cosine) > 1 then return {x = 1, y = 0, z = 0, a = 0} end
  return {x = m[8] - m[6], y = m[3] - m[7], z = m[4] - m[2], a = math.acos(cosine)}
end
function M.toquaternion(r)
  M.normalize(r)
  local s = math.sin(r.a * 0.5)
  return {w = math.cos(r.a * 0.5), x = r.x * s, y = r.y * s, z = r.z * s}
end
function M.tomatrix3(r)
  local c, s = math.cos(r.a), math.sin(r.a)
  local t = 1 - c
  return {r.x * r.x * t + c, r.x * r.y * t - r.z * s, r.x * r.z * t + r.y * s,
          r.x * r.y * t + r.z * s, r.y * r.y * t + c, r.y * r.z * t - r.x * s,
          r.x * r.z * t - r.y * s, r.y * r.z * t + r.x * s, r.z * r.z * t + c}
end
function M.combine(p, q)  -- p then q, as quaternion product p * q
  local a, b = M.toquaternion(p), M.toquaternion(q)
  return M.fromquaternion({w = a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
                           x = a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
                           y = a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
                           z = a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w})
end
function M.rotatevector3bymatrix3(m, v)
  return {x = m[1] * v.x + m[2] * v.y + m[3] * v.z,
          y = m[4] * v.x + m[5] * v.y + m[6] * v.z,
          z = m[7] * v.x + m[8] * v.y + m[9] * v.z}
end
function M.rotatevector3byrotation(r, v) return M.rotatevector3bymatrix3(M.tomatrix3(r), v) end
function M.rotatevector3byquaternion(q, v)
  return M.rotatevector3byrotation(M.fromquaternion(q), v)
end
return M
""",
    'wbgeometry': r"""
local M = {}
local wbcore = require('wbcore')
local wbvector2 = require('wbvector2')
local wbvector3 = require('wbvector3')
function M.circle(radius, div, cx, cy, shift)  -- div + 1 points, the first repeated at the end
  local points, step = {}, 2 * math.pi / div
  for i = 0, div do
    points[#points + 1] = {x = radius * math.cos(i * step + shift) + cx,
                           y = radius * math.sin(i * step + shift) + cy}
  end
  return points
end
function M.ispointinpolygon(x, y, polygon)  -- even-odd crossings of a horizontal ray
  local n = wbcore.tablelength(polygon)
  if n < 3 then return false end
  local inside, ax, ay, crossing = false, polygon[1].x, polygon[1].y, 0
  for i = 1, n do
    local bx, by = polygon[i % n + 1].x, polygon[i % n + 1].y
    if y > math.min(ay, by) and y <= math.max(ay, by) and x <= math.max(ax, bx) then
      if ay ~= by then crossing = (y - ay) * (bx - ax) / (by - ay) + ax end
      if ax == bx or x <= crossing then inside = not inside end
    end
    ax, ay = bx, by
  end
  return inside
end
function M.findclosest2Dpointinarray(reference, points)
  local best, closest = 1 / 0, reference
  for i = 1, wbcore.tablelength(points) do
    local d = wbvector2.distance(reference, points[i])
    if d < best then best, closest = d, points[i] end
  end
  return closest
end
function M.islistclockwise2D(points)
  local n = wbcore.tablelength(points)
  local total = 0
  for i = 1, n - 1 do
    total = total + (points[i + 1].x - points[i].x) * (points[i + 1].y + points[i].y)
  end
  total = total + (points[1].x - points[n].x) * (points[1].y + points[n].y)
  return total < 0
end
local function extend(points, n, vector)  -- two mirrored points before and after (in place)
  points[0] = vector.add(points[1], vector.minus(points[1], points[2]))
  points[-1] = vector.add(points[0], vector.minus(points[0], points[1]))
  points[n + 1] = vector.add(points[n], vector.minus(points[n], points[n - 1]))
  points[n + 2] = vector.add(points[n + 1], vector.minus(points[n + 1], points[n]))
end
local function cubic(p, i, axis, t)  -- uniform cubic B-spline of p[i-1..i+2] at t
  local a = (-p[i - 1][axis] + 3 * p[i][axis] - 3 * p[i + 1][axis] + p[i + 2][axis]) / 6.0
  local b = (3 * p[i - 1][axis] - 6 * p[i][axis] + 3 * p[i + 1][axis]) / 6.0
  local c = (-3 * p[i - 1][axis] + 3 * p[i + 1][axis]) / 6.0
  local d = (p[i - 1][axis] + 4 * p[i][axis] + p[i + 1][axis]) / 6.0
  return (c + t * (b + t * a)) * t + d
end
local function bspline(points, subdivision, axes, vector, first)
  local n = wbcore.tablelength(points)
  extend(points, n, vector)
  local spline = {points[1]}
  for i = first, n - 1 do  -- Webots starts the 2-D curve at 0 and the 3-D one at 1
    for j = 1, subdivision do
      local point = {}
      for _, axis in ipairs(axes) do point[axis] = cubic(points, i, axis, j / subdivision) end
      spline[#spline + 1] = point
    end
  end
  return spline
end
function M.bspline2D(points, subdivision)
  return bspline(points, subdivision, {'x', 'y'}, wbvector2, 0)
end
function M.bspline3D(points, subdivision)
  return bspline(points, subdivision, {'x', 'y', 'z'}, wbvector3, 1)
end
return M
""",
}
