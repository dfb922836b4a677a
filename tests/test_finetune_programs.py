"""The per-process cache of compiled fine-tuning programs (`finetune.steps.build_program`).

Two task instances share a program only when everything that shapes the head and the loss is
the same: the options the task was constructed with (WoS's gate input and value loss, DP's
parser sizes, RE's representation) and what the head reads from the data (WoS's decoding
length, RE's relation list). Building a program only traces shapes (nothing is compiled), so
this runs in seconds on a tiny config.
"""

from __future__ import annotations

import types

import jax
import pytest

from finetune import steps
from finetune.tasks.base import get_task
from finetune.tasks.dp import DpTask
from finetune.tasks.re import Re
from finetune.tasks.wos import WosTask
from pretrain import models, sharding

OPT = {
    "learning_rate": 1e-3,
    "end_learning_rate": 0.0,
    "warmup_steps": 1,
    "num_train_steps": 4,
    "weight_decay": 0.0,
    "adam_b1": 0.9,
    "adam_b2": 0.999,
    "adam_eps": 1e-8,
    "max_grad_norm": 1.0,
    "grad_accum_steps": 1,
    "seed": 0,
}
KEYS = ("input_ids", "token_type_ids", "attention_mask")


@pytest.fixture(scope="module")
def build():
    config = models.PRESETS["tiny"].replace(
        hidden_size=16, num_layers=1, num_heads=2, intermediate_size=32, dtype="float32"
    )
    # build_program reads only the encoder's config and whether it has a pooler.
    loaded = types.SimpleNamespace(config=config, encoder=types.SimpleNamespace(pooler=None))
    mesh = sharding.make_mesh(1)
    return lambda task: steps.build_program(task, loaded, OPT, mesh, 2**16, KEYS, KEYS)


def _shapes(program):
    return jax.tree.map(lambda x: x.shape, program.abstract_state.params)


def test_wos_options_get_their_own_program_and_equal_options_share_one(build):
    plain = build(WosTask())
    with_state = build(WosTask(gate_input="context_state"))
    filled = build(WosTask(value_loss="filled"))
    assert with_state is not plain and filled is not plain and filled is not with_state
    # The gate that also reads the decoder state has a wider input: another head.
    assert _shapes(with_state) != _shapes(plain)
    # Equal options, spelled out or left to the defaults, hit the cache.
    assert build(WosTask(value_loss="all", gate_input="context")) is plain
    assert build(get_task("wos", value_loss="filled")) is filled


def test_wos_decoding_length_read_from_the_data_is_part_of_the_key(build):
    short, long_ = WosTask(), WosTask()
    short.max_value_length, long_.max_value_length = 3, 7  # what encode(train=True) sets
    assert build(short) is not build(long_)


def test_dp_parser_sizes_get_their_own_program(build):
    small = dict(lstm_size=8, arc_space=8, type_space=4, pos_dim=4)
    a = build(DpTask(**small))
    b = build(DpTask(**{**small, "arc_space": 12}))
    assert a is not b and _shapes(a) != _shapes(b)
    assert build(get_task("dp", **small)) is a


def test_re_representation_and_relation_list_are_part_of_the_key(build):
    relations = ("no_relation", "org:founded", "per:origin")
    cls = build(Re(relations))
    assert build(Re(relations, "mention_mean")) is not cls
    assert build(Re(relations[:2])) is not cls
    assert build(Re(list(relations), representation="cls")) is cls


def test_options_are_recorded_canonically_and_checked():
    assert WosTask().options == WosTask(gate_input="context", max_value_length=0).options
    assert dict(DpTask(lstm_size=8).options)["lstm_size"] == 8
    assert get_task("ynat").options == ()
    with pytest.raises(TypeError, match="ynat"):
        get_task("ynat", representation="cls")
    with pytest.raises(TypeError, match="dp"):
        get_task("dp", hidden=3)
