"""Procedural PROTO templates, expanded with a real engine the way Webots does it.

A procedural PROTO body mixes VRML with template blocks. Since R2022b they are JavaScript
(``%< code >%`` and ``%<= expression >%``); older PROTOs use Lua (``%{ code }%`` and
``%{= expression }%``; a ``# template language: lua`` header line selects Lua too). As in Webots,
the body becomes one program: the VRML text between blocks is appended verbatim to the result,
each code block runs where it stands (so a ``for`` or an ``if`` around VRML text repeats or
skips it), and each expression block appends its value as the language writes it (JavaScript's
number formatting, ``String(value)``; Lua's ``tostring``). The expanded text is then parsed as
VRML.

JavaScript runs in QuickJS (the ``quickjs`` package), Lua 5.2 in ``lupa``. A template sees
what Webots gives it:

- ``fields.NAME.value`` and ``fields.NAME.defaultValue`` for every PROTO field: numbers,
  booleans and strings as such; SFVec2f ``{x, y}``, SFVec3f ``{x, y, z}``, SFRotation
  ``{x, y, z, a}``, SFColor ``{r, g, b}``; MF fields arrays (Lua: tables from 1) of these; SFNode
  ``{node_name, fields: {NAME: {value, defaultValue}}}`` (a PROTO instance with all its PROTO
  fields; a built-in node with the fields the file sets, typed by their shape, their
  ``defaultValue`` equal to the value) or ``undefined``/``nil`` for NULL;
- ``context``: ``os`` ('linux'), ``world`` (the world file), ``proto`` (the PROTO file),
  ``project_path`` (the folder above the world's ``worlds/``), ``webots_home`` (''),
  ``temporary_files_path``, ``id`` (a number per expanded instance, as a string),
  ``coordinate_system`` (the world's, 'ENU' by default) and ``webots_version`` ``{major:
  'R2025a', revision: '0'}``;
- the helper modules of :mod:`.template_modules` (``import * as wbvector3 from
  'wbvector3.js'`` or ``import {add} from 'wbvector3.js'``; Lua: ``require('wbvector3')``).

Differences from Webots: JavaScript runs as a script in strict mode (Webots runs an ES module,
also strict); VRML text is copied exactly, where Webots puts it in a JavaScript template literal
(so Webots would expand ``${...}`` and backslash escapes in it). Lua templates get the base
library without file, process or module loading (``os.execute``, ``dofile``, ``io.open``...);
``io.write`` and ``io.stderr:write`` reach the log as Webots' console shows them (info lines and
warnings at the PROTO's template line).

Limits (:class:`Limits`): each template runs for at most 2 s and uses at most 256 MiB, settable
with the ``webots.template_time_limit`` (seconds) and ``webots.template_memory_limit`` (MiB)
parameters. An error in a template, and a template that runs past a limit, is a
:class:`SceneLoadError` at the PROTO file and the line of the template where it happened:
``file:line: template error: message``. QuickJS's stack has no line for frames inside
functions, so an error thrown in a function (a template's own or a helper module's) is at the
template line that called it.
"""

from __future__ import annotations

import importlib
import json
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ...errors import SceneLoadError
from .template_modules import JS_MODULES, LUA_MODULES

Report = Callable[[str, str], None]
"""``report(kind, line)``: 'info' or 'warning', one line a template wrote."""

WEBOTS_VERSION = {'major': 'R2025a', 'revision': '0'}
UNDEFINED = '\0undefined'  # a NULL SFNode: ``undefined`` in JavaScript, ``nil`` in Lua


@dataclass(frozen=True)
class Limits:
    """Time (seconds) and memory (bytes) one template expansion may use."""

    time_s: float = 2.0
    memory_bytes: int = 256 * 1024 * 1024

    @classmethod
    def from_parameters(cls, parameters: Mapping[str, str]) -> Limits:
        default = cls()
        try:
            time_s = float(parameters.get('webots.template_time_limit', default.time_s))
            memory_mb = float(parameters.get('webots.template_memory_limit',
                                             default.memory_bytes / 2**20))
        except ValueError as err:
            raise SceneLoadError(f'webots.template_time_limit/memory_limit: {err}') from None
        if time_s <= 0 or memory_mb <= 0:
            raise SceneLoadError('webots.template_time_limit and webots.template_memory_limit '
                                 'must be positive')
        return cls(time_s, int(memory_mb * 2**20))


def language(text: str, header: str = '') -> str:
    """'lua' or 'javascript': the header's ``template language``, else the block tokens."""
    found = re.search(r'template\s+language\s*:\s*(\w+)', header)
    if found is not None:
        return 'lua' if found.group(1).lower() == 'lua' else 'javascript'
    return 'lua' if '%{' in text and '%<' not in text else 'javascript'


def _blocks(text: str, opening: str, closing: str, file: str,
            first_line: int) -> list[tuple[str, str, int]]:
    """The body as ('text'|'code'|'expression', piece, line in ``text`` from 1) in order."""
    pieces: list[tuple[str, str, int]] = []
    position = 0
    while True:
        start = text.find(opening, position)
        if start < 0:
            pieces.append(('text', text[position:], 0))
            return pieces
        end = text.find(closing, start + len(opening))
        if end < 0:
            raise SceneLoadError(f"template error: '{opening}' without its '{closing}'", file,
                                 first_line + text.count('\n', 0, start))
        pieces.append(('text', text[position:start], 0))
        inner = text[start + len(opening):end]
        line = 1 + text.count('\n', 0, start)
        if inner.startswith('='):
            pieces.append(('expression', inner[1:], line))
        else:
            pieces.append(('code', inner, line))
        position = end + len(closing)


class _Failure(Exception):
    def __init__(self, message: str, line: int | None):
        super().__init__(message)
        self.message = message
        self.line = line


# JavaScript --------------------------------------------------------------------------------------
_IMPORT = re.compile(r"""\bimport\s+(?:\*\s*as\s+(?P<star>[\w$]+)|\{(?P<names>[^}]*)\})\s*
                         from\s*(?P<q>['"])(?:\./|webots://[^'"]*/)?(?P<module>[\w$]+)\.js(?P=q)
                         [ \t]*;?""", re.VERBOSE)


def _js_imports(code: str, used: set[str]) -> str:
    def replace(match: re.Match[str]) -> str:
        module = match.group('module')
        if module not in JS_MODULES:
            raise _Failure(f"no module '{module}.js' (available: "
                           + ', '.join(f'{m}.js' for m in JS_MODULES) + ')', None)
        used.add(module)
        if match.group('star'):
            return f"const {match.group('star')} = __wbModule('{module}');"
        names = re.sub(r'([\w$]+)\s+as\s+([\w$]+)', r'\1: \2', match.group('names'))
        return f"const {{{names}}} = __wbModule('{module}');"
    return _IMPORT.sub(replace, code)


def _js_program(text: str, file: str, first_line: int, fields: Any,
                context: Any) -> tuple[str, int]:
    used: set[str] = set()
    body: list[str] = []
    for kind, piece, line in _blocks(text, '%<', '>%', file, first_line):
        if kind == 'text':
            if piece:
                escaped = piece.replace('\\', '\\\\').replace('`', '\\`').replace('${', '\\${')
                body.append(f'__out += `{escaped}`;')
        elif kind == 'expression':
            body.append(f'globalThis.__wbLine = {line}; __out += ({piece});')
        else:
            try:
                body.append(f'globalThis.__wbLine = {line}; ' + _js_imports(piece, used))
            except _Failure as failure:
                failure.line = line
                raise
    modules = set(used)
    while True:  # the modules' own imports
        more = {m for name in modules for m in re.findall(r"__wbModule\('(\w+)'\)",
                                                          JS_MODULES[name])} - modules
        if not more:
            break
        modules |= more
    prelude = ("(function () { 'use strict'; var __wbCache = {}; "
               f'const context = {_js_literal(context)}; const fields = {_js_literal(fields)}; '
               "let __out = ''; ")
    definitions = ''.join(f'function __wbmodule_{name}() {{{JS_MODULES[name]}}}\n'
                          for name in sorted(modules))
    lines = text.count('\n') + 1
    table = ', '.join(f'{name}: __wbmodule_{name}' for name in sorted(modules))
    program = (prelude + ''.join(body) + '\nreturn __out;\n'
               'function __wbModule(name) {\n'
               f'  if (!(name in __wbCache)) __wbCache[name] = ({{{table}}})[name]();\n'
               '  return __wbCache[name];\n}\n' + definitions + '})()')
    return program, lines


def _js_literal(value: Any) -> str:
    return json.dumps(value).replace(json.dumps(UNDEFINED), 'undefined')


def _engine(module: str, package: str) -> Any:
    try:
        return importlib.import_module(module)
    except ImportError:
        raise _Failure(f'this PROTO needs the {package!r} package to run its template '
                       f'(pip install {package})', None) from None


def _run_js(program: str, lines: int, limits: Limits) -> str:
    quickjs = _engine('quickjs', 'quickjs')

    context = quickjs.Context()
    context.set_memory_limit(limits.memory_bytes)
    context.set_time_limit(limits.time_s)
    try:
        result = context.eval(program)
    except quickjs.JSException as err:
        text = str(err)
        message = text.split('\n', 1)[0]
        line = _js_line(text, lines)
        if line is None:  # no line in the stack: the last template block that started
            try:
                context.set_time_limit(-1)
                context.set_memory_limit(limits.memory_bytes + 2**20)
                block = context.eval('globalThis.__wbLine')
            except quickjs.JSException:
                block = None
            line = int(block) if isinstance(block, (int, float)) and block > 0 else None
        if message == 'InternalError: interrupted':
            raise _Failure(f'stopped after the time limit of {limits.time_s:g} s (an endless '
                           'loop?)', line) from None
        if message == 'InternalError: out of memory':
            raise _Failure(f'stopped at the memory limit of {limits.memory_bytes / 2**20:g} '
                           'MiB', line) from None
        if message == 'null':
            # QuickJS throws null where it has no memory left for the error object (small
            # allocations fill the limit to the last bytes); a template may also throw null
            raise _Failure(f'stopped at the memory limit of {limits.memory_bytes / 2**20:g} '
                           'MiB (QuickJS had no memory left for the error), or the template '
                           'threw null', line) from None
        raise _Failure(message, line) from None
    if not isinstance(result, str):
        raise _Failure(f'the template produced {result!r}, not text', None)
    return result


def _js_line(stack: str, lines: int) -> int | None:
    """The innermost line of the template in a QuickJS stack (module frames skipped)."""
    for found in re.finditer(r'<input>:(\d+)', stack):
        line = int(found.group(1))
        if line <= lines:
            return line
    return None


# Lua -----------------------------------------------------------------------------------------------
_LUA_RUNNER = r"""
function(source, fields, context, modules, deadline)
  local loaded = {}
  local function guarded(protect)  -- a template cannot catch the time limit
    return function(...)
      local results = table.pack(protect(...))
      if not results[1] and results[2] == '__time_limit__' then error('__time_limit__', 0) end
      return table.unpack(results, 1, results.n)
    end
  end
  local env = {
    assert = assert, error = error, ipairs = ipairs, next = next, pairs = pairs,
    pcall = guarded(pcall), xpcall = guarded(xpcall), select = select, tonumber = tonumber,
    tostring = tostring, type = type, unpack = unpack or table.unpack, rawget = rawget, rawset = rawset,
    rawequal = rawequal, rawlen = rawlen, setmetatable = setmetatable,
    getmetatable = getmetatable, print = function() end,
    math = math, string = string, table = table, bit32 = bit32,
    os = {clock = os.clock, time = os.time, date = os.date, difftime = os.difftime},
    fields = fields, context = context,
  }
  -- Webots gives templates io.write / io.stderr:write (its console); nothing reaches a file
  local written = {stdout = {}, stderr = {}}
  local function writer(stream)
    return function(self, ...)
      for _, value in ipairs({...}) do
        local pieces = written[stream]
        pieces[#pieces + 1] = tostring(value)
      end
      return self
    end
  end
  env.io = {stdout = {write = writer('stdout')}, stderr = {write = writer('stderr')}}
  env.io.write = function(...) return writer('stdout')(env.io.stdout, ...) end
  env._G = env
  env.require = function(name)
    if loaded[name] == nil then
      local text = modules[name]
      if text == nil then error("module '" .. tostring(name) .. "' not found", 2) end
      loaded[name] = assert(load(text, '=' .. name, 't', env))()
    end
    return loaded[name]
  end
  local chunk, err = load(source, '=template', 't', env)
  if not chunk then return false, err end
  debug.sethook(function()
    if os.clock() > deadline then error('__time_limit__', 0) end
  end, '', 10000)
  local ok, result = xpcall(chunk, debug.traceback)
  debug.sethook()
  return ok, result, table.concat(written.stdout), table.concat(written.stderr)
end
"""


def _lua_long_string(text: str) -> str:
    level = 0
    while f']{"=" * level}]' in text + ']':
        level += 1
    equals = '=' * level
    # a newline right after the opening bracket is skipped by Lua: write it as an escape
    prefix = '"\\n" .. ' if text.startswith('\n') else ''
    return f'{prefix}[{equals}[{text}]{equals}]'


def _lua_program(text: str, file: str, first_line: int) -> str:
    out = ['local __out = {}; local function __emit(v) __out[#__out + 1] = tostring(v) end; ']
    for kind, piece, _ in _blocks(text, '%{', '}%', file, first_line):
        if kind == 'text':
            if piece:
                out.append(f'__emit({_lua_long_string(piece)}); ')
        elif kind == 'expression':
            out.append(f'__emit(({piece})); ')
        else:
            out.append(piece + '; ')
    out.append('\nreturn table.concat(__out)\n')
    return ''.join(out)


def _run_lua(program: str, fields: Any, context: Any, limits: Limits,
             report: Report | None = None) -> str:
    lupa = _engine('lupa.lua52', 'lupa')

    runtime = lupa.LuaRuntime(max_memory=limits.memory_bytes, unpack_returned_tuples=True,
                              register_eval=False, register_builtins=False)
    runner = runtime.eval(_LUA_RUNNER)
    table = runtime.table_from
    deadline = runtime.eval('os.clock()') + limits.time_s
    started = time.monotonic()
    try:
        ok, result, out, err = runner(program, table(fields, recursive=True),
                                      table(context, recursive=True), table(LUA_MODULES),
                                      deadline)
    except lupa.LuaMemoryError:
        raise _Failure(f'stopped at the memory limit of {limits.memory_bytes / 2**20:g} MiB',
                       None) from None
    except lupa.LuaError as err:
        raise _Failure(str(err), _lua_line(str(err))) from None
    if not ok:
        message = str(result)
        if '__time_limit__' in message:
            raise _Failure(f'stopped after the time limit of {limits.time_s:g} s (an endless '
                           f'loop?; ran {time.monotonic() - started:.1f} s)',
                           _lua_line(message)) from None
        if 'not enough memory' in message:
            raise _Failure(f'stopped at the memory limit of {limits.memory_bytes / 2**20:g} '
                           'MiB', _lua_line(message)) from None
        first = message.split('\nstack traceback:', 1)[0]
        first = re.sub(r'^template:\d+: ', '', first)
        raise _Failure(first, _lua_line(message)) from None
    if report is not None:
        for kind, text in (('info', out), ('warning', err)):
            for line in str(text or '').splitlines():
                if line.strip():
                    report(kind, line)
    return str(result)


def _lua_line(message: str) -> int | None:
    found = re.search(r'\btemplate:(\d+):', message)
    return int(found.group(1)) if found else None


def _lua_values(value: Any) -> Any:
    """JavaScript-shaped values as Lua wants them (``None`` leaves the key out)."""
    if isinstance(value, dict):
        return {k: _lua_values(v) for k, v in value.items() if v not in (None, UNDEFINED)}
    if isinstance(value, list):
        return [_lua_values(v) for v in value]
    return None if value == UNDEFINED else value


# entry point ---------------------------------------------------------------------------------------
def evaluate(text: str, fields: dict[str, dict[str, Any]], file: str, first_line: int, *,
             context: Mapping[str, Any] | None = None, header: str = '',
             limits: Limits | None = None, report: Report | None = None) -> str:
    """The VRML text of a procedural PROTO body ``text`` (which starts on ``first_line`` of
    ``file``) for one instance; ``fields`` maps a field name to ``{'value': ...,
    'defaultValue': ...}`` in the template's value shapes (see the module docstring).
    ``report(kind, line)`` receives what a Lua template writes: ``io.write`` lines as 'info',
    ``io.stderr:write`` lines as 'warning'."""
    limits = limits or Limits()
    full_context = {'os': 'linux', 'world': '', 'proto': file, 'project_path': '',
                    'webots_home': '', 'temporary_files_path': '', 'id': '0',
                    'coordinate_system': 'ENU', 'webots_version': dict(WEBOTS_VERSION),
                    **(context or {})}
    try:
        if language(text, header) == 'lua':
            program = _lua_program(text, file, first_line)
            return _run_lua(program, _lua_values(fields), _lua_values(full_context), limits,
                            report)
        js, lines = _js_program(text, file, first_line, fields, full_context)
        return _run_js(js, lines, limits)
    except _Failure as failure:
        line = first_line + failure.line - 1 if failure.line is not None else first_line
        raise SceneLoadError(f'template error: {failure.message}', file, line) from None
