import numpy as np
import pytest

from tempnets._numerics.random import as_generator, spawn


def test_int_seed_is_reproducible():
    assert np.array_equal(as_generator(3).random(5), as_generator(3).random(5))
    assert not np.array_equal(as_generator(3).random(5), as_generator(4).random(5))


def test_generator_is_passed_through_unchanged():
    g = np.random.default_rng(1)
    assert as_generator(g) is g


def test_none_gives_a_fresh_generator():
    assert isinstance(as_generator(None), np.random.Generator)


@pytest.mark.parametrize("bad", [1.5, "7", np.random.RandomState(0), True])
def test_bad_types_are_rejected_with_what_is_allowed(bad):
    with pytest.raises(TypeError, match="Generator, a non-negative int seed or None"):
        as_generator(bad)


def test_negative_seed_is_rejected():
    with pytest.raises(ValueError, match="rng seed must be a non-negative integer, got -1"):
        as_generator(-1)


def test_spawned_child_k_does_not_depend_on_how_many_were_spawned():
    alone = spawn(7, 4)[3].random(10)
    among_many = spawn(7, 20)[3].random(10)
    assert np.array_equal(alone, among_many)


def test_spawned_children_differ():
    a, b = spawn(7, 2)
    assert not np.array_equal(a.random(10), b.random(10))


def test_spawn_validates_count():
    with pytest.raises(ValueError, match="n must be an integer >= 0, got -1"):
        spawn(0, -1)
