"""Expansion of ``ref`` and ``Set``: turns definitions into concrete element instances.

SimRobot's rules, as implemented in its parser:

- ``ref="X"`` on element ``<T>`` names the top-level ``<T name="X">`` (the same element name,
  from any included file). A referenced definition may itself carry ``ref`` (a chain; loops are
  errors). The referencing element's attributes win; missing ones come from the chain in order.
- Children: the referencing element's own children come first, then each definition's. A child
  of a class that may occur only once (``Translation``, ``Rotation``, ``Surface``, ``Axis``,
  the ``Body`` of a joint, ...) given by the referencing element replaces the definition's.
  Repeatable children (geometries, appearances, masses, joints, sensors, ``Set``) accumulate.
- ``<Set name value>`` defines a placeholder in the element that contains it; the first ``Set``
  of a name wins, so a referencing element's ``Set`` overrides the definition's default.
- ``$name``, ``$(name)``, ``${name}`` in any attribute (numbers, names, refs) resolve in the
  instantiation context: the element's parent, then its parent, ... up to the ``Scene``. An
  element's own ``Set`` children apply to its descendants, not to its own attributes. All
  ``Set`` children of an element are applied before its other children are expanded (SimRobot
  applies them in document order; the results differ only for a placeholder used before the
  ``Set`` that defines it in the same element, which SimRobot would resolve further out).
- Unresolved placeholders are errors (SimRobot leaves them in the text and fails later).

Names (SimRobot's parser rejects what its element table does not know): an element or an
attribute that no SimRobot grammar we support knows (Core2 ``.ros2``, Core3 ``.ros3`` with PBR
``Surface``, ``Material`` friction attributes, ``Light`` intensity) is an error naming the
closest known name (``unknown element <BoxGeomtry> (did you mean <BoxGeometry>?)``); a
misspelled attribute is reported as itself, not as the required attribute it hides. A known
element or attribute in a place where it does not belong is a warning (an error with
``strict``), as are SimRobot's ODE-era names the element no longer takes.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from scene_sim_ros import limits

from .elements import GRAMMAR, SIMULATION
from .instance import ElementSpec, Instance
from .reader import Diagnostics, Document, Node
from .values import Scope, substitute

ALWAYS_ALLOWED = frozenset({'name', 'ref'})
# attributes of the SimRobotCore3 grammar (.ros3) that the element table may not list (yet):
# PBR Surface, Material friction, Light intensity (docs: SimRobot >= 3316d64)
CORE3_ATTRIBUTES = frozenset({'albedo', 'alpha', 'metallic', 'roughness', 'ambient', 'texture',
                              'friction', 'rollingFriction', 'intensity', 'color'})


def known_attributes() -> frozenset[str]:
    """Every attribute name some supported SimRobot grammar knows."""
    names = set(ALWAYS_ALLOWED) | CORE3_ATTRIBUTES
    for spec in GRAMMAR.values():
        names |= spec.attributes
    return frozenset(names)


def closest(word: str, *candidate_lists: Iterable[str]) -> str | None:
    """The closest of the candidates (the first list with a close match wins), or None."""
    for candidates in candidate_lists:
        match = difflib.get_close_matches(word, sorted(set(candidates)), n=1, cutoff=0.6)
        if match:
            return match[0]
    return None


def _element_hint(tag: str, preferred: Iterable[str] = ()) -> str:
    match = closest(tag, preferred, GRAMMAR)
    return f' (did you mean <{match}>?)' if match else ''


class Expander:
    """Expands nodes against the definitions of one :class:`Document`."""

    def __init__(self, document: Document, diag: Diagnostics):
        self.document = document
        self.diag = diag
        self.known_attributes = known_attributes()
        self.budget = limits.ElementBudget()

    def check_top_level(self) -> None:
        """Unknown element names among the top-level elements of the main file and the
        definitions of included ones (the Scene's own descendants are checked as expanded)."""
        seen: set[int] = set()
        for node in [*self.document.top_level, *self.document.definitions.values()]:
            if id(node) in seen:
                continue
            seen.add(id(node))
            if node.tag not in GRAMMAR:
                self.diag.error(f'unknown element <{node.tag}>'
                                + _element_hint(node.tag, (t for t, s in GRAMMAR.items()
                                                           if s.cls in SIMULATION.repeatable)),
                                node.file, node.line)

    def _check_attribute(self, key: str, tag: str, spec: ElementSpec, given: Iterable[str],
                         origin: Node, misspelled: set[str]) -> None:
        """Report attribute ``key`` that ``spec`` does not take: an error if no grammar knows
        it (with the closest name), else a warning."""
        own = spec.attributes | ALWAYS_ALLOWED
        if key in self.known_attributes:
            match = closest(key, own - {key})
            hint = f' (did you mean "{match}"?)' if match else ''
            self.diag.warn(f'unexpected attribute "{key}" of <{tag}>{hint}', origin.file,
                           origin.line)
            return
        match = closest(key, own, self.known_attributes)
        hint = f' (did you mean "{match}"?)' if match else ''
        self.diag.error(f'unknown attribute "{key}" of <{tag}>{hint}', origin.file, origin.line)
        if match is not None and match not in given:
            misspelled.add(match)

    def _resolve(self, text: str, scope: Scope | None, node: Node, key: str,
                 broken: set[str] | None = None) -> str:
        value, missing = substitute(text, scope)
        for name in missing:
            self.diag.error(f'unresolved placeholder "${name}" in attribute "{key}" of '
                            f'<{node.tag}>', node.file, node.line)
        if missing and broken is not None:
            broken.add(key)
        return value

    def _check_size(self, node: Node) -> None:
        size = self._expanded_size(node, {}, set())
        if size > self.budget.limit:
            raise limits.exceeded('max_elements', f'the scene expands to {size} elements '
                                  '(after ref and includes)', node.file, node.line)

    def _expanded_size(self, node: Node, memo: dict[int, int], visiting: set[int]) -> int:
        """Elements ``node`` becomes: its subtree plus what its ``ref`` brings (a ``$name``
        ref counts as nothing; loops are reported by the expansion)."""
        key = id(node)
        if key in memo or key in visiting:
            return memo.get(key, 0)
        visiting.add(key)
        total = 1 + sum(self._expanded_size(c, memo, visiting) for c in node.children)
        ref = node.attrs.get('ref')
        target = self.document.definitions.get((node.tag, ref)) if ref else None
        if target is not None:
            total += self._expanded_size(target, memo, visiting) - 1
        visiting.discard(key)
        memo[key] = total
        return total

    def _definition_chain(self, node: Node, scope: Scope | None) -> list[Node] | None:
        chain: list[Node] = []
        current = node
        while 'ref' in current.attrs:
            name = self._resolve(current.attrs['ref'], scope, current, 'ref')
            target = self.document.definitions.get((node.tag, name))
            if target is None:
                match = closest(name, (n for t, n in self.document.definitions if t == node.tag))
                hint = f' (did you mean "{match}"?)' if match else ''
                self.diag.error(f'unknown reference: no top-level <{node.tag} name="{name}">'
                                f'{hint}', current.file, current.line)
                return None
            if target is node or target in chain:
                self.diag.error(f'looping reference "{name}" of <{node.tag}>',
                                current.file, current.line)
                return None
            chain.append(target)
            current = target
        return chain

    def expand(self, node: Node, parent_scope: Scope | None,
               parent_spec: ElementSpec = SIMULATION) -> Instance | None:
        spec = GRAMMAR[node.tag]
        if parent_spec is SIMULATION:  # the top of an expansion: refuse a ref bomb up front
            self._check_size(node)
        self.budget.spend(1, 'elements (after ref and includes)', node.file, node.line)
        chain = self._definition_chain(node, parent_scope)
        if chain is None:
            return None
        passes = [node, *chain]
        raw: dict[str, str] = {}
        origins: dict[str, Node] = {}
        for source in passes:
            for key, value in source.attrs.items():
                if key not in raw:
                    raw[key] = value
                    origins[key] = source
        attrs: dict[str, str] = {}
        unknown: dict[str, str] = {}
        broken: set[str] = set()
        misspelled: set[str] = set()
        for key, value in raw.items():
            if key == 'ref':
                continue
            if key not in spec.attributes and key not in ALWAYS_ALLOWED:
                self._check_attribute(key, node.tag, spec, raw, origins[key], misspelled)
                unknown[key] = value
                continue
            attrs[key] = self._resolve(value, parent_scope, origins[key], key, broken)
        scope = Scope(parent_scope)
        instance = Instance(node.tag, spec, node, attrs, origins, scope, self.diag)
        instance.unknown = unknown
        instance.broken = broken
        instance.misspelled = misspelled
        pending = self._gather_children(instance, passes, scope)
        for child in pending:
            expanded = self.expand(child, scope, spec)
            if expanded is not None:
                instance.children.append(expanded)
        return instance

    def _gather_children(self, instance: Instance, passes: list[Node],
                         scope: Scope) -> list[Node]:
        spec = instance.spec
        parsed_before: set[str] = set()
        pending: list[Node] = []
        for source in passes:
            if source.text is not None:
                instance.texts.append(source)
            parsed_now: set[str] = set()
            for child in source.children:
                child_spec = GRAMMAR.get(child.tag)
                if child_spec is None:
                    self.diag.error(f'unknown element <{child.tag}>' + _element_hint(
                        child.tag, (t for t, s in GRAMMAR.items() if s.cls in spec.children)),
                        child.file, child.line)
                    continue
                cls = child_spec.cls
                if cls not in spec.children:
                    self.diag.warn(f'unexpected element <{child.tag}> in <{instance.tag}>',
                                   child.file, child.line)
                    continue
                if cls not in spec.repeatable:
                    if cls in parsed_before and cls not in parsed_now:
                        parsed_now.add(cls)  # replaced by the referencing element's child
                        continue
                    if cls in parsed_now:
                        self.diag.warn(f'unexpected second <{child.tag}> in <{instance.tag}>',
                                       child.file, child.line)
                        continue
                parsed_now.add(cls)
                if child.tag == 'Set':
                    self._apply_set(child, scope)
                else:
                    pending.append(child)
            parsed_before |= parsed_now
        for cls in spec.required:
            if cls not in parsed_before:
                names = ', '.join(f'<{tag}>' for tag, s in GRAMMAR.items() if s.cls == cls)
                self.diag.error(f'<{instance.tag}> needs a child element {names}',
                                instance.file, instance.line)
        return pending

    def _apply_set(self, node: Node, scope: Scope) -> None:
        name = node.attrs.get('name')
        value = node.attrs.get('value')
        misspelled: set[str] = set()
        for key in node.attrs:
            if key not in ('name', 'value'):
                self._check_attribute(key, 'Set', GRAMMAR['Set'], node.attrs, node, misspelled)
        if name is None or value is None:
            missing = 'name' if name is None else 'value'
            if missing not in misspelled:
                self.diag.error(f'missing required attribute "{missing}" of <Set>',
                                node.file, node.line)
            return
        name = self._resolve(name, scope, node, 'name')
        if name not in scope.values:
            scope.values[name] = self._resolve(value, scope, node, 'value')
