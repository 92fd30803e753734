"""Parse a Webots world or PROTO file into a :class:`Document` of nodes and PROTO definitions.

Grammar (VRML97 as Webots writes it)::

    file      := (EXTERNPROTO string | IMPORTABLE EXTERNPROTO string | proto | node | ROUTE ...)*
    proto     := PROTO name '[' interface* ']' '{' body '}'
    interface := (field | vrmlField | hiddenField | deprecatedField | unconnectedField)
                 Type ['{' allowed values '}'] name value
    node      := [DEF name] Type '{' (fieldName (value | IS name))* '}' | USE name | NULL
    value     := '[' item* ']' | node | scalar+        (scalar: number, string, TRUE, FALSE)

A PROTO body containing ``%< >%`` or ``%{ }%`` templates is kept as text and parsed per instance after the
template has been evaluated (see :mod:`.template`).
"""

from __future__ import annotations

import difflib
import math
from dataclasses import dataclass, field
from pathlib import Path

from scene_sim_ros import limits

from ...errors import SceneLoadError
from ..collector import collector_paused
from .lexer import Token, tokenize, version_of
from .nodes import IsRef, Item, Node, Value

INTERFACE_KEYWORDS = frozenset({'field', 'vrmlField', 'hiddenField', 'deprecatedField',
                                'unconnectedField', 'exposedField'})
IGNORED_STATEMENTS = frozenset({'ROUTE', 'IMPORT', 'EXPORT'})


@dataclass(slots=True)
class ProtoField:
    name: str
    type: str
    default: Value


@dataclass(slots=True)
class ProtoDef:
    name: str
    fields: dict[str, ProtoField]
    file: str
    line: int
    body: list[Node] = field(default_factory=list)
    template_text: str | None = None  # raw body of a procedural PROTO
    template_line: int = 0


@dataclass(slots=True)
class ExternProto:
    url: str
    line: int


@dataclass(slots=True)
class Document:
    file: str
    version: tuple[int, str] | None
    nodes: list[Node]
    protos: dict[str, ProtoDef]
    externprotos: dict[str, ExternProto]  # PROTO name (file stem) -> declaration


class Parser:
    def __init__(self, tokens: list[Token], file: str, source: str):
        self.tokens = tokens  # ends with the 'eof' token
        self.last = len(tokens) - 1
        self.position = 0
        self.file = file
        self.source = source
        self.defs: dict[str, Node] = {}
        self.budget = limits.ElementBudget(file)  # nodes with every USE counted in full
        self.sizes: dict[int, int] = {}  # id(DEF node) -> its node count, USEs expanded

    # token helpers -------------------------------------------------------------------------
    def peek(self, ahead: int = 0) -> Token:
        if ahead:
            return self.tokens[min(self.position + ahead, self.last)]
        return self.tokens[self.position]

    def next(self) -> Token:
        """The next token; the end-of-file token stays next once reached."""
        token = self.tokens[self.position]
        if self.position < self.last:
            self.position += 1
        return token

    def fail(self, message: str, token: Token | None = None) -> SceneLoadError:
        return SceneLoadError(message, self.file, (token or self.peek()).line)

    def expect(self, text: str) -> Token:
        token = self.next()
        if token.text != text or token.kind not in ('punct', 'ident'):
            raise self.fail(f'expected {text!r}, found {token.text or "end of file"!r}', token)
        return token

    def expect_ident(self, what: str) -> Token:
        token = self.next()
        if token.kind != 'ident':
            raise self.fail(f'expected {what}, found {token.text or "end of file"!r}', token)
        return token

    # file ----------------------------------------------------------------------------------
    def document(self, version: tuple[int, str] | None) -> Document:
        nodes: list[Node] = []
        protos: dict[str, ProtoDef] = {}
        externs: dict[str, ExternProto] = {}
        while self.peek().kind != 'eof':
            token = self.peek()
            if token.text == 'IMPORTABLE' and self.peek(1).text == 'EXTERNPROTO':
                self.next()
                continue
            if token.text == 'EXTERNPROTO':
                self.next()
                url = self.next()
                if url.kind != 'string' or len(url.values or ()) != 1:
                    raise self.fail('EXTERNPROTO expects one URL string', url)
                name = Path(str(url.value).split('?')[0]).stem
                externs[name] = ExternProto(str(url.value), url.line)
            elif token.text == 'PROTO':
                proto = self.proto()
                protos[proto.name] = proto
            elif token.text in IGNORED_STATEMENTS:
                self.skip_statement()
            else:
                node = self.node()
                if node is not None:
                    nodes.append(node)
        return Document(self.file, version, nodes, protos, externs)

    def skip_statement(self) -> None:
        line = self.next().line
        while self.peek().kind != 'eof' and self.peek().line == line:
            self.next()

    # PROTO ---------------------------------------------------------------------------------
    def proto(self) -> ProtoDef:
        start = self.expect('PROTO')
        name = self.expect_ident('a PROTO name').text
        self.expect('[')
        fields: dict[str, ProtoField] = {}
        while self.peek().text != ']':
            keyword = self.expect_ident('a field declaration')
            if keyword.text not in INTERFACE_KEYWORDS:
                raise self.fail(f'unexpected {keyword.text!r} in the interface of PROTO {name}',
                                keyword)
            field_type = self.expect_ident('a field type').text
            if self.peek().text == '{':
                self.skip_braces()
            field_name = self.expect_ident('a field name').text
            fields[field_name] = ProtoField(field_name, field_type, self.value(field_type))
        self.expect(']')
        open_brace = self.expect('{')
        body_start = self.position
        depth = 1
        has_template = False
        while depth:
            token = self.next()
            if token.kind == 'eof':
                raise self.fail(f'PROTO {name}: missing closing brace', open_brace)
            has_template |= token.kind == 'template'
            if token.kind == 'punct':
                depth += {'{': 1, '}': -1}.get(token.text, 0)
        close = self.tokens[self.position - 1]
        proto = ProtoDef(name, fields, self.file, start.line)
        if has_template:
            proto.template_text = self.source[open_brace.offset + 1:close.offset]
            proto.template_line = open_brace.line
        else:
            body_parser = Parser(self.tokens[body_start:self.position - 1]
                                 + [Token('eof', '', close.line, close.offset)],
                                 self.file, self.source)
            proto.body = body_parser.body()
        return proto

    def body(self) -> list[Node]:
        nodes = []
        while self.peek().kind != 'eof':
            node = self.node()
            if node is not None:
                nodes.append(node)
        return nodes

    def skip_braces(self) -> None:
        self.expect('{')
        depth = 1
        while depth:
            token = self.next()
            if token.kind == 'eof':
                raise self.fail('missing closing brace')
            if token.kind == 'punct':
                depth += {'{': 1, '}': -1}.get(token.text, 0)

    # nodes ---------------------------------------------------------------------------------
    def node(self) -> Node | None:
        token = self.expect_ident('a node')
        if token.text == 'NULL':
            return None
        if token.text == 'USE':
            name = self.expect_ident('a DEF name')
            if name.text not in self.defs:
                match = difflib.get_close_matches(name.text, sorted(self.defs), n=1)
                hint = f' (did you mean {match[0]}?)' if match else ''
                raise self.fail(f'USE {name.text}: no node was defined with DEF {name.text}'
                                f'{hint}', name)
            used = self.defs[name.text]
            self.budget.spend(self.sizes[id(used)], 'nodes (USE copies counted)', None, name.line)
            return used
        def_name = None
        if token.text == 'DEF':
            def_name = self.expect_ident('a DEF name').text
            token = self.expect_ident('a node type')
        if token.text in ('PROTO', 'EXTERNPROTO'):
            raise self.fail(f'{token.text} must be declared at the top level', token)
        node = Node(token.text, {}, self.file, token.line, def_name)
        before = self.budget.count
        self.budget.spend(1, 'nodes (USE copies counted)', None, token.line)
        self.expect('{')
        while self.peek().text != '}' or self.peek().kind != 'punct':
            name = self.next()
            if name.kind == 'template':
                raise self.fail('a %< >% template outside a PROTO body', name)
            if name.kind != 'ident':
                raise self.fail(f'{node.type}: expected a field name, found '
                                f'{name.text or "end of file"!r}', name)
            if self.peek().text == 'IS' and self.peek().kind == 'ident':
                self.next()
                node.fields[name.text] = IsRef(self.expect_ident('a PROTO field name').text,
                                               name.line)
            else:
                value = self.value()
                # Webots keeps a field's IS binding when the same node also writes a value for
                # it (TiagoBase: `name IS name` ... `name "TIAGo base"`): the PROTO field wins.
                if not isinstance(node.fields.get(name.text), IsRef):
                    node.fields[name.text] = value
        self.expect('}')
        if def_name is not None:
            self.defs[def_name] = node  # after the body: VRML scopes DEF names that way
            self.sizes[id(node)] = self.budget.count - before
        return node

    def starts_node(self) -> bool:
        token = self.peek()
        if token.kind != 'ident':
            return False
        if token.text in ('DEF', 'USE', 'NULL'):
            return True
        return self.peek(1).text == '{'

    def scalars(self, items: list[Item]) -> bool:
        """Append the next token's values (a row of numbers, strings or booleans) to
        ``items``; whether they were numbers."""
        token = self.next()
        if token.kind == 'number':
            items.extend(self.finite(token))
            return True
        if token.kind in ('string', 'bool'):
            items.extend(token.values or ())
        elif token.kind == 'template':
            raise self.fail('a %< >% template outside a PROTO body', token)
        else:
            raise self.fail(f'expected a value, found {token.text or "end of file"!r}', token)
        return False

    def finite(self, token: Token) -> list[float]:
        numbers: list[float] = token.values or []
        if math.isfinite(sum(numbers)):
            return numbers
        places = token.number_places(self.source) if len(numbers) > 1 else \
            [(token.line, token.text)]
        for number, (line, text) in zip(numbers, places):
            if not math.isfinite(number):
                raise SceneLoadError(f'number {text} is not finite', self.file, line)
        return numbers  # only the sum overflowed

    def is_scalar(self) -> bool:
        token = self.peek()
        return token.kind in ('number', 'string', 'bool')

    def value(self, field_type: str | None = None) -> Value:
        line = self.peek().line
        items: list[Item] = []
        numbers = True
        if self.peek().text == '[' and self.peek().kind == 'punct':
            self.next()
            has_nodes = False
            while not (self.peek().text == ']' and self.peek().kind == 'punct'):
                if self.peek().kind == 'eof':
                    raise self.fail('missing closing bracket', None)
                if self.starts_node():
                    items.append(self.node())
                    has_nodes = True
                else:
                    numbers &= self.scalars(items)
            self.next()
            return Value(items, True, line, holds=_holds(has_nodes, numbers))
        if self.starts_node():
            return Value([self.node()], False, line)
        while self.is_scalar():
            numbers &= self.scalars(items)
        if not items:
            token = self.peek()
            if token.kind == 'template':
                raise self.fail('a %< >% template outside a PROTO body', token)
            raise self.fail(f'expected a value, found {token.text or "end of file"!r}', token)
        return Value(items, False, line, holds=_holds(False, numbers))


def _holds(has_nodes: bool, numbers: bool) -> str:
    return 'any' if has_nodes else 'numbers' if numbers else 'scalars'


def parse_text(text: str, file: str | Path, first_line: int = 1,
               version: tuple[int, str] | None = None) -> Document:
    """Parse the world or PROTO source ``text`` (``file`` names it in messages)."""
    name = str(file)
    if version is None:
        version = version_of(text)
    with collector_paused():
        tokens = tokenize(text, name, first_line)
        return Parser(tokens, name, text).document(version)


def parse_file(path: Path) -> Document:
    return parse_text(limits.read_text(path), path)
