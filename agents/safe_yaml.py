"""The one reader of YAML a user gives (config files, variant specs, ``--set`` values,
``--grid`` lists): :func:`load_yaml` with :class:`ConfigLoader`, a ``SafeLoader`` that also
reads ``1e6`` as a number and refuses a key given twice, deep nesting and aliases that expand
past :data:`MAX_YAML_VALUES` values (:mod:`fortythieves_agents.config`'s docstring, YAML)."""

from __future__ import annotations

import re
import typing
from typing import Any

import yaml

__all__ = [
    "MAX_NESTING",
    "MAX_YAML_BYTES",
    "MAX_YAML_VALUES",
    "ConfigLoader",
    "YAMLProblem",
    "load_yaml",
]

MAX_YAML_BYTES = 2**20
"""The largest config or variant-spec file read (1 MiB; the shipped configs are under 4 KB)."""


MAX_NESTING = 32
"""The deepest nesting of mappings and lists a config file, a ``--set`` value or a ``--grid``
list may have (the top level is level 1; the shipped configs reach 4, at
``policy.player.scorer_arch``), and the most parts a ``--set`` or ``--grid`` key may have.
PyYAML builds nested data recursively: 2,000 levels raised ``RecursionError``."""


MAX_YAML_VALUES = 10_000
"""The most values (mappings, lists and scalars, keys included) a YAML document may hold once
its aliases are expanded (the shipped configs hold under 300). An alias names a collection
again without copying it, so a few lines can stand for a billion values (the "billion
laughs"): the package's readers walk them as expanded (merging, validation, messages), and
``evaluate --variant-spec`` and ``train`` hung on one."""


class ConfigLoader(yaml.SafeLoader):
    """``yaml.SafeLoader`` for every YAML the package reads (config files, variant specs,
    ``--set`` values, ``--grid`` lists: through :func:`load_yaml`), with four differences:

    - its float resolver also accepts exponents without a dot (``1e6``);
    - a key given twice in one mapping is refused (PyYAML keeps the last silently, so a
      config with two ``ppo:`` blocks lost the first; yaml/pyyaml#165); the ``<<`` merge
      key's entries may still be overridden;
    - nesting deeper than :data:`MAX_NESTING` levels is refused before it is built;
    - a document whose aliases expand it past :data:`MAX_YAML_VALUES` values or
      :data:`MAX_NESTING` levels, or make it contain itself, is refused before it is built
      (counted on the composed nodes, each shared node once).

    Raises (from ``yaml.load``):
        yaml.MarkedYAMLError: ``problem_mark`` at the repeated key (``problem`` names the key
            and the lines, and the columns on one line, of both) or at the first collection
            too deep (``problem`` gives the depth and the limit); for aliases, ``problem``
            says which bound they break and ``problem_mark`` is None; a ``yaml.YAMLError``.
    """

    def __init__(self, stream: str | bytes | typing.IO[str] | typing.IO[bytes]) -> None:
        super().__init__(stream)
        self._depth = 0

    def compose_document(self) -> yaml.Node | None:
        node: yaml.Node | None = super().compose_document()
        if node is not None:
            problem = _alias_problem(node)
            if problem is not None:
                raise yaml.composer.ComposerError(None, None, problem, None)
        return node

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node | None:
        if not self.check_event(yaml.MappingStartEvent, yaml.SequenceStartEvent):
            return super().compose_node(parent, index)  # type: ignore[no-any-return]
        self._depth += 1
        try:
            if self._depth > MAX_NESTING:
                mark = self.peek_event().start_mark
                raise yaml.composer.ComposerError(
                    None,
                    None,
                    f"nested {self._deepest()} levels deep; at most {MAX_NESTING} are allowed",
                    mark,
                )
            return super().compose_node(parent, index)  # type: ignore[no-any-return]
        finally:
            self._depth -= 1

    def _deepest(self) -> int:
        """The document's deepest nesting, counted by reading (not building) the rest of it."""
        depth = deepest = self._depth - 1  # the next event opens level ``self._depth``
        while not self.check_event(yaml.DocumentEndEvent, yaml.StreamEndEvent):
            event = self.get_event()
            if isinstance(event, yaml.CollectionStartEvent):
                depth += 1
                deepest = max(deepest, depth)
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
        return deepest

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        if isinstance(node, yaml.MappingNode):
            seen: dict[Any, yaml.Node] = {}
            for key_node, _ in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    continue
                key = self.construct_object(key_node, deep=True)
                try:
                    first = seen.setdefault(key, key_node)
                except TypeError:  # an unhashable key: PyYAML refuses it below
                    continue
                if first is not key_node:
                    a, b = first.start_mark, key_node.start_mark
                    where = (
                        f"line {a.line + 1}, columns {a.column + 1} and {b.column + 1}"
                        if a.line == b.line
                        else f"lines {a.line + 1} and {b.line + 1}"
                    )
                    raise yaml.constructor.ConstructorError(
                        None,
                        None,
                        f"key {key!r} is given twice in one mapping, at {where}: YAML would "
                        "keep only the last and drop the first silently",
                        b,
                    )
        return super().construct_mapping(node, deep=deep)  # type: ignore[no-any-return]


def _alias_problem(root: yaml.Node) -> str | None:
    """What is wrong with ``root``'s document once its aliases are expanded (None: nothing):
    more than :data:`MAX_YAML_VALUES` values, nesting deeper than :data:`MAX_NESTING`, or a
    collection that contains itself. Each node is visited once (a depth-first walk without
    recursion; an alias is the node it names, shared), its expanded size and depth computed
    from its children's."""
    expanded: dict[int, tuple[int, int]] = {}  # id(node) -> (values, depth) once expanded
    open_: set[int] = set()  # the collections being walked: the current node's ancestors
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, finished = stack.pop()
        children: list[yaml.Node] = []
        if isinstance(node, yaml.MappingNode):
            children = [part for pair in node.value for part in pair]
        elif isinstance(node, yaml.SequenceNode):
            children = list(node.value)
        if finished:
            values = 1 + sum(expanded[id(c)][0] for c in children)
            depth = 1 + max((expanded[id(c)][1] for c in children), default=0)
            if values > MAX_YAML_VALUES:
                return (
                    f"it holds more than {MAX_YAML_VALUES:,} values once its aliases are "
                    f"expanded; at most {MAX_YAML_VALUES:,} are allowed"
                )
            if isinstance(node, yaml.CollectionNode) and depth > MAX_NESTING:
                return (
                    f"its aliases nest it more than {MAX_NESTING} levels deep; at most "
                    f"{MAX_NESTING} are allowed"
                )
            expanded[id(node)] = (values, depth if isinstance(node, yaml.CollectionNode) else 0)
            open_.discard(id(node))
            continue
        if id(node) in expanded:
            continue
        open_.add(id(node))
        stack.append((node, True))
        for child in children:
            if id(child) in open_:
                return "an alias names a collection it is inside of (endless nesting)"
            if id(child) not in expanded:
                stack.append((child, False))
    return None


def load_yaml(text: str) -> Any:
    """The data of YAML ``text`` a user gave (a config file, a variant spec, a ``--set``
    value, a ``--grid`` list): the one YAML reader of the package, :class:`ConfigLoader`
    (floats such as ``1e6``; a key given twice, nesting past :data:`MAX_NESTING` and aliases
    expanding past :data:`MAX_YAML_VALUES` values refused).

    Raises:
        YAMLProblem: the text is not YAML or breaks a bound; one line, with its place.
    """
    try:
        return yaml.load(text, Loader=ConfigLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = getattr(exc, "problem", None) or " ".join(str(exc).split())
        raise YAMLProblem(
            " ".join(problem.split()),
            None if mark is None else mark.line + 1,
            None if mark is None else mark.column + 1,
        ) from None


class YAMLProblem(ValueError):
    """Why :func:`load_yaml` refused a text: ``problem`` (one line), and the ``line`` and
    ``column`` (from 1) where it was found, if known; ``located`` is ``"line L, column C:
    problem"`` (the problem alone without a place)."""

    def __init__(self, problem: str, line: int | None, column: int | None) -> None:
        super().__init__(problem)
        self.problem = problem
        self.line = line
        self.column = column

    @property
    def located(self) -> str:
        if self.line is None:
            return self.problem
        return f"line {self.line}, column {self.column}: {self.problem}"


ConfigLoader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(
        r"""^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+]?[0-9]+)?
        |[-+]?(?:[0-9][0-9_]*)(?:[eE][-+]?[0-9]+)
        |\.[0-9_]+(?:[eE][-+]?[0-9]+)?
        |[-+]?\.(?:inf|Inf|INF)
        |\.(?:nan|NaN|NAN))$""",
        re.X,
    ),
    list("-+0123456789."),
)
