"""1.0.1's behaviour, side by side with the real 1.0.1: the same outcome (value or
exception type) for every input of ``refcases.py``, and the module's surface."""

from __future__ import annotations

import inspect
import os
import sys
from typing import Any, Dict, Tuple

import refcases
import scru128

from conftest import Reference

# Where this package differs from 1.0.1 on purpose, and how.
KNOWN_DIFFERENCES: Dict[str, Tuple[Any, Any]] = {
    # 1.0.1 kept any value that compared within range (a float, a Decimal, an
    # object), and failed later, in str() or the field properties. An ID is an int.
    "Scru128Id(1.5) constructs": (("ok", "Scru128Id"), ("raise", "TypeError")),
    "Scru128Id(Decimal) constructs": (("ok", "Scru128Id"), ("raise", "TypeError")),
    "Scru128Id(Fraction) constructs": (("ok", "Scru128Id"), ("raise", "TypeError")),
    "Scru128Id(ComparesButRaises) constructs": (("ok", "Scru128Id"), ("raise", "TypeError")),
    # 1.0.1's objects could not be pickled with protocols 0 and 1.
    "pickle round trip, protocol 0": (("raise", "TypeError"), ("ok", True)),
    "pickle round trip, protocol 1": (("raise", "TypeError"), ("ok", True)),
    # unittest.mock's autospec of a method of a C class (the generator's generate) is
    # a mock that is not bound to the object: it is called without the generator.
    "mock.patch('scru128.Scru128Generator.generate', autospec=True)": (
        ("ok", ("tuple", [("tuple", [("Scru128Id", 45), ("Scru128Id", 45)]), 2])),
        ("ok", ("tuple", [("tuple", [("Scru128Id", 44), ("Scru128Id", 44)]), 2])),
    ),
    # Calling __init__ again restarted 1.0.1's generator (two states of one generator
    # could repeat IDs).
    "generator __init__ called again": (("ok", "Scru128Id"), ("raise", "TypeError")),
    # PyO3's messages about argument counts do not count self.
    "argument counts: Scru128Id(1, 2)": (
        ("ok", ("tuple", ["TypeError", ("list", ["2", "3"])])),
        ("ok", ("tuple", ["TypeError", ("list", ["1", "2"])])),
    ),
    "argument counts: from_str(a, b)": (
        ("ok", ("tuple", ["TypeError", ("list", ["2", "3"])])),
        ("ok", ("tuple", ["TypeError", ("list", ["1", "2"])])),
    ),
    "argument counts: generate(1)": (
        ("ok", ("tuple", ["TypeError", ("list", ["1", "2"])])),
        ("ok", ("tuple", ["TypeError", ("list", ["1"])])),
    ),
}


# Before CPython 3.10, Python's own messages for these did not name the class
# ("__init__() missing ...") or the object (an unset slot: just "_value"); this
# package's name both, as 3.10 and later do. The exception types are the same.
MESSAGES_OF_PYTHON_BEFORE_3_10 = {
    "pickle an object made by __new__",
    "copy an object made by __new__",
    "message: no argument",
    "message: wrong keyword",
    "message: from_str no argument",
    "message: from_str wrong keyword",
    "message: from_fields three",
    "message: empty object",
}


def test_the_package_under_test_is_the_installed_wheel() -> None:
    # Not the source folder python/scru128, which has no native module.
    assert "site-packages" in scru128.__file__
    assert os.path.dirname(scru128.__file__) != os.path.join(os.path.dirname(__file__), "..", "scru128")
    assert hasattr(scru128, "scru128_strings")


def test_every_case_has_the_outcome_of_101_but_the_known_differences(ref: Reference) -> None:
    theirs = ref.run("import refcases, scru128\nresult = refcases.run_all(scru128)")
    ours = refcases.run_all(scru128)
    assert theirs.keys() == ours.keys()
    assert len(ours) > 500
    differences = {name: (theirs[name], ours[name]) for name in ours if theirs[name] != ours[name]}
    if sys.version_info < (3, 10):
        for name in MESSAGES_OF_PYTHON_BEFORE_3_10:
            if name in differences:
                their_outcome, our_outcome = differences.pop(name)
                assert exception_types(their_outcome) == exception_types(our_outcome), name
    assert differences == KNOWN_DIFFERENCES


def exception_types(outcome: Any) -> Any:
    """The outcome with the messages of ("tuple", [type name, message]) left out."""
    if isinstance(outcome, tuple) and len(outcome) == 2 and outcome[0] == "tuple" and len(outcome[1]) == 2:
        first, second = outcome[1]
        if isinstance(first, str) and first.endswith("Error") and isinstance(second, str):
            return first
    if isinstance(outcome, tuple):
        return tuple(exception_types(part) for part in outcome)
    if isinstance(outcome, list):
        return [exception_types(part) for part in outcome]
    return outcome


def test_the_known_differences_are_cases() -> None:
    assert set(KNOWN_DIFFERENCES) <= set(refcases.CASES)
    assert MESSAGES_OF_PYTHON_BEFORE_3_10 <= set(refcases.CASES)


def test_public_names_of_101_exist_with_the_same_kind(ref: Reference) -> None:
    theirs = ref.run(
        "import inspect, scru128\n"
        "result = {n: (inspect.isclass(v), callable(v), type(v).__name__)"
        " for n, v in vars(scru128).items()"
        " if not n.startswith('_') and not inspect.ismodule(v) and n != 'annotations'}"
    )
    for name, (is_class, is_callable, type_name) in theirs.items():
        value = getattr(scru128, name)
        assert inspect.isclass(value) == is_class, name
        assert callable(value) == is_callable, name
        if not is_callable:
            assert type(value).__name__ == type_name, name


def parameters(obj: Any) -> Any:
    return [(p.name, p.kind.name, p.default is inspect.Parameter.empty) for p in inspect.signature(obj).parameters.values()]


def test_signatures_have_the_parameters_of_101(ref: Reference) -> None:
    names = [
        "scru128",
        "scru128_string",
        "Scru128Id.from_fields",
        "Scru128Id.from_str",
        "Scru128Generator.generate",
    ]
    theirs = ref.run(
        "import inspect, operator, scru128\n"
        f"names = {names!r}\n"
        "def params(o):\n"
        "    return [(p.name, p.kind.name, p.default is inspect.Parameter.empty)"
        " for p in inspect.signature(o).parameters.values()]\n"
        "result = {n: params(operator.attrgetter(n)(scru128)) for n in names}\n"
        "result['Scru128Id'] = params(scru128.Scru128Id)\n"
        "result['Scru128Generator'] = params(scru128.Scru128Generator)\n"
    )
    import operator

    for name in names:
        ours = parameters(operator.attrgetter(name)(scru128))
        expected = [p for p in theirs[name] if p[0] not in ("self", "cls")]
        assert [p for p in ours if p[0] not in ("self", "cls")] == expected, name
    assert parameters(scru128.Scru128Id) == theirs["Scru128Id"]
    assert parameters(scru128.Scru128Generator) == theirs["Scru128Generator"]


def test_ids_of_one_package_are_read_by_the_other(ref: Reference) -> None:
    texts = scru128.scru128_strings(100)
    ints = [int(scru128.Scru128Id.from_str(t)) for t in texts]
    theirs = ref.run(
        "import scru128\n"
        f"texts = {texts!r}\n"
        "result = ([int(scru128.Scru128Id.from_str(t)) for t in texts],"
        " [str(scru128.scru128()) for _ in range(100)])"
    )
    assert theirs[0] == ints
    their_texts = theirs[1]
    assert [str(scru128.Scru128Id.from_str(t)) for t in their_texts] == their_texts
    # Theirs, made after ours, sort after ours.
    assert max(texts) < min(their_texts)
    assert sys.version_info >= (3, 8)


def test_a_subclass_has_the_signature_of_its_own_init() -> None:
    # Before CPython 3.10 the package gives the classes a __signature__ (the stable
    # ABI has no text signature there); a subclass must not inherit it.
    class Named(scru128.Scru128Id):
        def __init__(self, value: int, name: str) -> None:
            self.name = name

    assert [p.name for p in inspect.signature(Named).parameters.values()] == ["value", "name"]
    assert [p.name for p in inspect.signature(scru128.Scru128Id).parameters.values()] == ["int_value"]
