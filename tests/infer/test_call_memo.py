"""The memo of calls drops exactly the entries that hold a changed object."""

from __future__ import annotations

from tensorshape.infer.memo import CallMemo


class Obj:
    pass


def key(*args: object) -> tuple[object, ...]:
    return ("f", None, tuple(args), (), False)


def test_drop_holding_removes_the_entries_holding_the_object_only() -> None:
    a, b = Obj(), Obj()
    memo: CallMemo[str] = CallMemo()
    memo[key(a)] = "a"
    memo[key(a, b)] = "ab"
    memo[key(b)] = "b"
    memo["not a call key"] = "other"
    memo.drop_holding(a)
    assert set(memo.values()) == {"b", "other"}
    memo.drop_holding(a)  # nothing left to drop
    assert set(memo.values()) == {"b", "other"}
    memo.drop_holding(b)
    assert set(memo.values()) == {"other"}


def test_an_entry_stored_again_after_a_drop_is_dropped_again() -> None:
    a = Obj()
    memo: CallMemo[int] = CallMemo()
    memo[key(a)] = 1
    memo.drop_holding(a)
    memo[key(a)] = 2
    memo[key(a)] = 3  # overwritten, indexed once
    memo.drop_holding(a)
    assert not memo


def test_an_entry_deleted_otherwise_is_skipped() -> None:
    a = Obj()
    memo: CallMemo[int] = CallMemo()
    memo[key(a)] = 1
    del memo[key(a)]
    memo.drop_holding(a)
    assert not memo


def test_an_entry_removed_leaves_the_index() -> None:
    """The index holds the keys in the table only (it keeps no argument of a removed entry alive)."""
    a, b = Obj(), Obj()
    memo: CallMemo[int] = CallMemo()
    memo[key(a, b)] = 1
    memo[key(b)] = 2
    memo.pop(key(a, b))
    del memo[key(b)]
    assert memo.pop(key(a), 3) == 3
    assert not memo._holding
