"""Pickles: those written by the real 1.0.1 load here, and 1.0.1 loads ours; copy."""

from __future__ import annotations

import copy
import pickle

import pytest
import scru128
from scru128 import Scru128Id

import subclassing
from conftest import Reference

VALUES = [0, 1, 2**64, 2**128 - 1, 0x017FA1DE51A80FD992F9E8CC2D5EB88E]


def test_pickles_written_by_101_load(ref: Reference) -> None:
    pickles = ref.run(
        "import pickle, scru128\n"
        f"values = {VALUES!r}\n"
        "result = {p: pickle.dumps([scru128.Scru128Id(v) for v in values], protocol=p)"
        " for p in range(2, pickle.HIGHEST_PROTOCOL + 1)}"
    )
    assert sorted(pickles) == list(range(2, pickle.HIGHEST_PROTOCOL + 1))
    for protocol, data in pickles.items():
        # The pickle names 1.0.1's class by its module and name, which are ours.
        assert b"scru128" in data and b"Scru128Id" in data
        loaded = pickle.loads(data)
        assert [type(x) for x in loaded] == [Scru128Id] * len(VALUES), protocol
        assert [int(x) for x in loaded] == VALUES
        assert loaded == [Scru128Id(v) for v in VALUES]
        assert [hash(x) for x in loaded] == [hash(v) for v in VALUES]
        assert [str(x) for x in loaded] == [str(Scru128Id(v)) for v in VALUES]


def test_containers_pickled_by_101_load(ref: Reference) -> None:
    data = ref.run(
        "import pickle, scru128\n"
        "x = scru128.Scru128Id.from_str('017FA1DE51A80FD992F9E8CC2D')\n"
        "result = pickle.dumps({'id': x, 'ids': (x, x), 'by_id': {x: 1}})"
    )
    loaded = pickle.loads(data)
    x = Scru128Id.from_str("017FA1DE51A80FD992F9E8CC2D")
    assert loaded == {"id": x, "ids": (x, x), "by_id": {x: 1}}
    # One object in 1.0.1's pickle is one object here too (the memo works).
    assert loaded["ids"][0] is loaded["ids"][1] is loaded["id"]


def test_subclass_pickled_by_101_loads_with_its_attributes(ref: Reference) -> None:
    data = ref.run(
        "import pickle, subclassing\n"
        "result = pickle.dumps(subclassing.tagged(42, 'from 1.0.1'))"
    )
    loaded = pickle.loads(data)
    assert type(loaded) is subclassing.Tagged
    assert int(loaded) == 42
    assert loaded.tag == "from 1.0.1"


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_our_pickles_load_in_101(ref: Reference, protocol: int) -> None:
    data = pickle.dumps([Scru128Id(v) for v in VALUES], protocol=protocol)
    theirs = ref.run(
        "import pickle, scru128\n"
        f"loaded = pickle.loads({data!r})\n"
        "result = [(type(x).__module__, type(x).__name__, int(x), str(x)) for x in loaded]"
    )
    assert theirs == [("scru128", "Scru128Id", v, str(Scru128Id(v))) for v in VALUES]


def test_our_subclass_pickles_load_in_101(ref: Reference) -> None:
    data = pickle.dumps(subclassing.tagged(42, "ours"))
    theirs = ref.run(
        "import pickle, subclassing\n"
        f"x = pickle.loads({data!r})\n"
        "result = (type(x).__name__, int(x), x.tag)"
    )
    assert theirs == ("Tagged", 42, "ours")


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_round_trips(protocol: int) -> None:
    ids = scru128.default_generator.generate_many(100)
    assert pickle.loads(pickle.dumps(ids, protocol=protocol)) == ids
    x = subclassing.tagged(7, "t")
    y = pickle.loads(pickle.dumps(x, protocol=protocol))
    assert (type(y), int(y), y.tag) == (subclassing.Tagged, 7, "t")


def test_pickle_is_compact() -> None:
    # `Scru128Id(int)`, not the object's state.
    assert len(pickle.dumps(Scru128Id(2**128 - 1), protocol=4)) < 70


def test_copy_and_deepcopy() -> None:
    x = scru128.scru128()
    assert copy.copy(x) == x and copy.deepcopy(x) == x
    assert copy.deepcopy({"a": [x]}) == {"a": [x]}
    t = subclassing.tagged(5, "tag")
    for c in (copy.copy(t), copy.deepcopy(t)):
        assert (type(c), int(c), c.tag) == (subclassing.Tagged, 5, "tag")
    # deepcopy copies a subclass's attributes, copy shares them.
    t.tag = ["mutable"]
    assert copy.deepcopy(t).tag is not t.tag
    assert copy.copy(t).tag is t.tag


def test_an_empty_object_can_only_be_set_once() -> None:
    # What unpickling a 1.0.1 pickle does: __new__, then the `_value` slot.
    x = Scru128Id.__new__(Scru128Id)
    with pytest.raises(AttributeError):
        str(x)
    with pytest.raises(AttributeError):
        hash(x)
    x.__setstate__((None, {"_value": 9}))
    assert int(x) == 9
    x.__setstate__((None, {"_value": 9}))  # the same value again is fine
    with pytest.raises(TypeError):
        x.__setstate__((None, {"_value": 10}))
    with pytest.raises(TypeError):
        Scru128Id.__init__(x, 10)
    assert int(x) == 9
    with pytest.raises(ValueError):
        Scru128Id.__new__(Scru128Id).__setstate__((None, {"_value": -1}))
    with pytest.raises(TypeError):
        Scru128Id.__new__(Scru128Id).__setstate__(5)
    with pytest.raises(AttributeError):
        # A base-class object has no __dict__ for other attributes, as in 1.0.1.
        Scru128Id.__new__(Scru128Id).__setstate__((None, {"other": 1}))


def test_subclass_slots_pickled_by_101_load(ref: Reference) -> None:
    data = ref.run(
        "import pickle, subclassing\n"
        "x = subclassing.slotted(42, 'from 1.0.1')\n"
        "x.note = 7\n"
        "result = pickle.dumps(x)"
    )
    loaded = pickle.loads(data)
    assert (type(loaded), int(loaded), loaded.tag, loaded.note) == (subclassing.Slotted, 42, "from 1.0.1", 7)


def test_our_subclass_slots_load_in_101(ref: Reference) -> None:
    x = subclassing.slotted(42, "ours")
    data = pickle.dumps(x)
    theirs = ref.run(
        "import pickle, subclassing\n"
        f"x = pickle.loads({data!r})\n"
        "result = (type(x).__name__, int(x), x.tag, hasattr(x, 'note'))"
    )
    assert theirs == ("Slotted", 42, "ours", False)


def test_a_subclass_own_state_goes_both_ways(ref: Reference) -> None:
    data = pickle.dumps(subclassing.OwnState(21))
    theirs = ref.run(
        "import pickle, subclassing\n"
        f"x = pickle.loads({data!r})\n"
        "result = (type(x).__name__, x.got, pickle.dumps(subclassing.OwnState(4)))"
    )
    assert theirs[:2] == ("OwnState", {"own": 42})
    assert pickle.loads(theirs[2]).got == {"own": 8}


def test_an_object_made_by_new_pickles_both_ways(ref: Reference) -> None:
    data = pickle.dumps(Scru128Id.__new__(Scru128Id))
    theirs = ref.run(
        "import pickle, scru128\n"
        f"x = pickle.loads({data!r})\n"
        "result = (type(x).__name__, hasattr(x, '_value'), pickle.dumps(scru128.Scru128Id.__new__(scru128.Scru128Id)))"
    )
    assert theirs[:2] == ("Scru128Id", False)
    empty = pickle.loads(theirs[2])
    assert type(empty) is Scru128Id
    with pytest.raises(AttributeError, match="_value"):
        int(empty)
