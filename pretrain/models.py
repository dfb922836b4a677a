"""Flax NNX BERT and RoBERTa encoders with their pretraining heads.

The modules mirror Hugging Face's ``BertForPreTraining`` and ``RobertaForMaskedLM`` closely
enough that `pretrain.hf_export` can write a folder stock ``transformers`` loads with the same
logits (the export parity test checks this to 1e-4 in float32):

* embeddings: word + learned absolute position + token type, then LayerNorm and dropout;
* post-LayerNorm encoder layers (attention -> dropout -> add -> LayerNorm, then
  dense -> exact erf GELU -> dense -> dropout -> add -> LayerNorm);
* BERT only: pooler (dense + tanh on the first token) and the NSP classifier;
* MLM head: dense + GELU + LayerNorm, decoder tied to the word embeddings, output bias.

Position ids. BERT uses ``0 .. L-1``. RoBERTa does exactly what Hugging Face's
``RobertaEmbeddings.create_position_ids_from_input_ids`` does: real tokens (``input_ids !=
pad_token_id``) get ``pad_token_id + 1, pad_token_id + 2, ...`` and padding tokens get
``pad_token_id``. With KLUE's vocabulary ``[PAD] = 0``, real tokens are numbered from 1, so a
RoBERTa model for sequences of up to ``n`` tokens needs ``max_position_embeddings = n + 1``
(513 for 512; the released klue/roberta models have ``[PAD] = 1`` and hence 514). RoBERTa keeps
a token-type table of size 1 (always id 0), as Hugging Face's RobertaModel does, so that the
export is exact; the data pipeline sends all-zero ``token_type_ids`` for RoBERTa.

The attention mask comes from ``attention_mask`` (1 real, 0 pad); RoBERTa's position ids come
from ``input_ids`` as in Hugging Face, so the two must agree (the loader guarantees it).

Precision: parameters are kept in ``param_dtype`` (float32); matrix products run in ``dtype``
(bfloat16 by default, ``"float32"`` as a switch), LayerNorm statistics, the attention softmax
and the MLM/NSP logits are float32.

The MLM logits are computed only at ``masked_positions`` (gather before the vocabulary
projection), which saves most of the ``H x V`` product. This module knows nothing of data
files; it receives arrays and its own `ModelConfig`.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from typing import Any

import jax
import jax.numpy as jnp
from flax import nnx

from pretrain.masking import default_max_predictions

# "electra" is an ELECTRA discriminator imported for fine-tuning (KoELECTRA): BERT's layout
# (position ids 0 .. L-1, two token types) without a pooler; it has no pretraining heads here.
ARCHS = ("bert", "roberta", "electra")
DTYPES = ("bfloat16", "float32")
# Attention kernels: "xla" is the einsum path below (float32 scores); "fused" is
# jax.nn.dot_product_attention (cuDNN flash attention on a GPU in bfloat16, XLA's fused path
# elsewhere). "fused" has no attention-probability dropout, so it needs attention_dropout 0.
ATTENTIONS = ("xla", "fused")
# Rematerialisation policies (what the backward pass may keep instead of recomputing), by
# name: jax.checkpoint_policies.<name>. "nothing_saveable" recomputes the whole layer (least
# memory, about one extra forward); "dots_saveable" keeps matrix-product outputs (less
# recompute, more memory); "dots_with_no_batch_dims_saveable" keeps only the weight products
# (not the attention score/mix products, which grow with L^2); "everything_saveable" keeps
# all (as no remat; for comparisons).
REMAT_POLICIES = (
    "nothing_saveable",
    "dots_saveable",
    "dots_with_no_batch_dims_saveable",
    "everything_saveable",
)
# Parameter leaf names that receive weight decay (BERT's AdamWeightDecay excludes LayerNorm
# parameters and every bias; embeddings and dense kernels are decayed).
DECAYED_LEAF_NAMES = ("kernel", "embedding")


@dataclasses.dataclass(frozen=True)
class ModelConfig:
    """Shape and numerics of a BERT or RoBERTa pretraining model (no paths, no data)."""

    arch: str = "bert"
    vocab_size: int = 32000
    hidden_size: int = 768
    num_layers: int = 12
    num_heads: int = 12
    intermediate_size: int = 3072
    max_position_embeddings: int = 512
    type_vocab_size: int = 2
    hidden_dropout: float = 0.1
    attention_dropout: float = 0.1
    layer_norm_eps: float = 1e-12
    initializer_range: float = 0.02
    pad_token_id: int = 0
    dtype: str = "bfloat16"
    param_dtype: str = "float32"
    # Recompute each layer's activations in the backward pass (jax.checkpoint) under the named
    # policy (REMAT_POLICIES): less memory for larger micro-batches. Numerics unchanged.
    remat: bool = False
    remat_policy: str = "nothing_saveable"
    # Run the layer stack as one lax.scan over stacked layer weights: compile time independent
    # of depth. Parameters stay per layer (checkpoints and exports are unchanged); the forward
    # pass stacks them, which costs one copy of the encoder weights. Numerics unchanged.
    scan_layers: bool = False
    attention: str = "xla"  # one of ATTENTIONS
    # Width of the embedding tables when it differs from hidden_size (ELECTRA-small: 128 vs
    # 256): the embeddings (and their LayerNorm) are this wide and a dense layer projects them
    # to hidden_size, as transformers' ElectraModel.embeddings_project. None: hidden_size.
    embedding_size: int | None = None

    def __post_init__(self) -> None:
        if self.arch not in ARCHS:
            raise ValueError(f"arch must be one of {ARCHS}, got {self.arch!r}")
        if self.dtype not in DTYPES or self.param_dtype not in DTYPES:
            raise ValueError(f"dtype and param_dtype must be in {DTYPES}")
        if self.hidden_size % self.num_heads:
            raise ValueError(
                f"hidden_size {self.hidden_size} is not divisible by num_heads {self.num_heads}"
            )
        if self.remat_policy not in REMAT_POLICIES:
            raise ValueError(
                f"remat_policy must be one of {REMAT_POLICIES}, got {self.remat_policy!r}"
            )
        if self.attention not in ATTENTIONS:
            raise ValueError(f"attention must be one of {ATTENTIONS}, got {self.attention!r}")
        if self.attention == "fused" and self.attention_dropout != 0:
            raise ValueError(
                "attention='fused' has no attention-probability dropout: set "
                "--config.model_overrides.attention_dropout=0 (or use attention='xla')"
            )
        if self.embedding_size is not None and self.embedding_size <= 0:
            raise ValueError(f"embedding_size must be positive, got {self.embedding_size}")
        if not 0 <= self.pad_token_id < self.vocab_size:
            raise ValueError(f"pad_token_id {self.pad_token_id} outside the vocabulary")
        if self.arch == "roberta" and self.max_position_embeddings <= self.pad_token_id + 1:
            raise ValueError("roberta needs max_position_embeddings > pad_token_id + 1")

    @property
    def embedding_width(self) -> int:
        """Width of the embedding tables (``embedding_size``, else ``hidden_size``)."""
        return self.embedding_size or self.hidden_size

    @property
    def head_dim(self) -> int:
        return self.hidden_size // self.num_heads

    @property
    def max_seq_length(self) -> int:
        """Longest input the position table supports (RoBERTa reserves ``pad_token_id + 1``)."""
        if self.arch == "roberta":
            return self.max_position_embeddings - self.pad_token_id - 1
        return self.max_position_embeddings

    @property
    def has_nsp(self) -> bool:
        return self.arch == "bert"

    def replace(self, **changes: Any) -> ModelConfig:
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, values: dict[str, Any]) -> ModelConfig:
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = set(values) - names
        if unknown:
            raise ValueError(f"unknown ModelConfig fields: {sorted(unknown)}")
        return cls(**values)


def _bert(**kw: Any) -> ModelConfig:
    return ModelConfig(arch="bert", type_vocab_size=2, layer_norm_eps=1e-12, **kw)


def _roberta(max_seq_length: int = 512, pad_token_id: int = 0, **kw: Any) -> ModelConfig:
    return ModelConfig(
        arch="roberta",
        type_vocab_size=1,
        layer_norm_eps=1e-5,
        pad_token_id=pad_token_id,
        max_position_embeddings=max_seq_length + pad_token_id + 1,
        **kw,
    )


def _sized(hidden: int, layers: int, heads: int) -> dict[str, int]:
    return dict(
        hidden_size=hidden, num_layers=layers, num_heads=heads, intermediate_size=4 * hidden
    )


# The KLUE paper's models (vocabulary 32k, intermediate 4 x hidden, 512 positions) and tiny
# CPU models. `tiny*` take their vocabulary size from the tokenizer at run time:
# ``PRESETS["tiny"].replace(vocab_size=tokenizer_vocab_size)``.
PRESETS: dict[str, ModelConfig] = {
    "tiny": _bert(vocab_size=1000, max_position_embeddings=128, **_sized(64, 2, 2)),
    "tiny-roberta": _roberta(max_seq_length=128, vocab_size=1000, **_sized(64, 2, 2)),
    "bert-base": _bert(vocab_size=32000, max_position_embeddings=512, **_sized(768, 12, 12)),
    "roberta-small": _roberta(vocab_size=32000, **_sized(768, 6, 12)),
    "roberta-base": _roberta(vocab_size=32000, **_sized(768, 12, 12)),
    "roberta-large": _roberta(vocab_size=32000, **_sized(1024, 24, 16)),
}

# Parameter counts the KLUE paper reports (Park et al. 2021, model table), for the tests.
PAPER_PARAMS: dict[str, float] = {
    "bert-base": 110e6,
    "roberta-small": 68e6,
    "roberta-base": 110e6,
    "roberta-large": 337e6,
}


def _dtype(name: str) -> jnp.dtype:
    return jnp.dtype(name)


def _normal(config: ModelConfig) -> nnx.Initializer:
    return nnx.initializers.normal(stddev=config.initializer_range)


def _linear(config: ModelConfig, n_in: int, n_out: int, rngs: nnx.Rngs) -> nnx.Linear:
    return nnx.Linear(
        n_in,
        n_out,
        dtype=_dtype(config.dtype),
        param_dtype=_dtype(config.param_dtype),
        kernel_init=_normal(config),
        rngs=rngs,
    )


def _layer_norm(config: ModelConfig, rngs: nnx.Rngs, size: int | None = None) -> nnx.LayerNorm:
    return nnx.LayerNorm(
        size or config.hidden_size,
        epsilon=config.layer_norm_eps,
        dtype=_dtype(config.dtype),
        param_dtype=_dtype(config.param_dtype),
        use_fast_variance=False,
        rngs=rngs,
    )


def _embed(config: ModelConfig, n: int, rngs: nnx.Rngs, zero_row: int | None) -> nnx.Embed:
    embed = nnx.Embed(
        n,
        config.embedding_width,
        dtype=_dtype(config.dtype),
        param_dtype=_dtype(config.param_dtype),
        embedding_init=_normal(config),
        rngs=rngs,
    )
    if zero_row is not None:  # as torch.nn.Embedding(padding_idx=...) initialises it
        embed.embedding[...] = embed.embedding[...].at[zero_row].set(0.0)
    return embed


def gelu(x: jax.Array) -> jax.Array:
    """Exact (erf) GELU, Hugging Face's ``"gelu"``."""
    return jax.nn.gelu(x, approximate=False)


def position_ids(config: ModelConfig, input_ids: jax.Array) -> jax.Array:
    """Position ids as Hugging Face computes them for this architecture (see module doc)."""
    batch, length = input_ids.shape
    if config.arch != "roberta":
        return jnp.broadcast_to(jnp.arange(length, dtype=jnp.int32), (batch, length))
    real = (input_ids != config.pad_token_id).astype(jnp.int32)
    return jnp.cumsum(real, axis=1) * real + config.pad_token_id


class Embeddings(nnx.Module):
    """Word + position + token-type embeddings, LayerNorm, dropout."""

    def __init__(self, config: ModelConfig, *, rngs: nnx.Rngs):
        self.config = config
        pad = config.pad_token_id
        self.word_embeddings = _embed(config, config.vocab_size, rngs, zero_row=pad)
        self.position_embeddings = _embed(
            config,
            config.max_position_embeddings,
            rngs,
            zero_row=pad if config.arch == "roberta" else None,
        )
        self.token_type_embeddings = _embed(config, config.type_vocab_size, rngs, zero_row=None)
        self.layer_norm = _layer_norm(config, rngs, config.embedding_width)
        self.dropout = nnx.Dropout(config.hidden_dropout, rngs=rngs)

    def __call__(self, input_ids, token_type_ids, *, deterministic: bool, rngs=None):
        positions = position_ids(self.config, input_ids)
        x = (
            self.word_embeddings(input_ids)
            + self.position_embeddings(positions)
            + self.token_type_embeddings(token_type_ids)
        )
        x = self.layer_norm(x)
        return self.dropout(x, deterministic=deterministic, rngs=rngs)


class SelfAttention(nnx.Module):
    """Multi-head self-attention with separate query/key/value/output projections."""

    def __init__(self, config: ModelConfig, *, rngs: nnx.Rngs):
        self.config = config
        h = config.hidden_size
        self.query = _linear(config, h, h, rngs)
        self.key = _linear(config, h, h, rngs)
        self.value = _linear(config, h, h, rngs)
        self.output = _linear(config, h, h, rngs)
        self.dropout = nnx.Dropout(config.attention_dropout, rngs=rngs)

    def __call__(self, x, attention_mask, *, deterministic: bool, rngs=None):
        cfg = self.config
        batch, length, _ = x.shape
        shape = (batch, length, cfg.num_heads, cfg.head_dim)
        q = self.query(x).reshape(shape)
        k = self.key(x).reshape(shape)
        v = self.value(x).reshape(shape)
        if cfg.attention == "fused":
            return self.output(fused_attention(q, k, v, attention_mask).reshape(batch, length, -1))
        # Scores and softmax in float32 whatever the compute dtype.
        scores = jnp.einsum("bqhd,bkhd->bhqk", q, k, preferred_element_type=jnp.float32)
        scores = scores / math.sqrt(cfg.head_dim)
        keep = attention_mask[:, None, None, :].astype(bool)
        scores = jnp.where(keep, scores, jnp.finfo(jnp.float32).min)
        probs = jax.nn.softmax(scores, axis=-1).astype(v.dtype)
        probs = self.dropout(probs, deterministic=deterministic, rngs=rngs)
        context = jnp.einsum("bhqk,bkhd->bqhd", probs, v).reshape(batch, length, -1)
        return self.output(context)


def _fused_implementation(dtype: jnp.dtype) -> str | None:
    """cuDNN flash attention on a GPU for 16-bit inputs; XLA's implementation otherwise."""
    if jax.default_backend() == "gpu" and dtype in (jnp.bfloat16, jnp.float16):
        return "cudnn"
    return None


def fused_attention(q, k, v, attention_mask) -> jax.Array:
    """`jax.nn.dot_product_attention` on ``[B, L, heads, head_dim]``, softmax in float32.

    On cuDNN the padding is given as per-row key lengths (``sum(attention_mask)``), which
    assumes real tokens come first, as every batch of our loader has them; elsewhere the
    boolean mask itself is passed, which holds for any mask.
    """
    implementation = _fused_implementation(q.dtype)
    if implementation == "cudnn":
        lengths = jnp.sum(attention_mask.astype(jnp.int32), axis=-1)
        return jax.nn.dot_product_attention(
            q, k, v, key_value_seq_lengths=lengths, implementation="cudnn"
        )
    mask = attention_mask[:, None, None, :].astype(bool)
    return jax.nn.dot_product_attention(q, k, v, mask=mask)


class EncoderLayer(nnx.Module):
    """One post-LayerNorm Transformer encoder layer."""

    def __init__(self, config: ModelConfig, *, rngs: nnx.Rngs):
        self.attention = SelfAttention(config, rngs=rngs)
        self.attention_dropout = nnx.Dropout(config.hidden_dropout, rngs=rngs)
        self.attention_layer_norm = _layer_norm(config, rngs)
        self.intermediate = _linear(config, config.hidden_size, config.intermediate_size, rngs)
        self.output = _linear(config, config.intermediate_size, config.hidden_size, rngs)
        self.output_dropout = nnx.Dropout(config.hidden_dropout, rngs=rngs)
        self.output_layer_norm = _layer_norm(config, rngs)

    def __call__(self, x, attention_mask, *, deterministic: bool, rngs=None):
        a = self.attention(x, attention_mask, deterministic=deterministic, rngs=rngs)
        a = self.attention_dropout(a, deterministic=deterministic, rngs=rngs)
        x = self.attention_layer_norm(x + a)
        h = self.output(gelu(self.intermediate(x)))
        h = self.output_dropout(h, deterministic=deterministic, rngs=rngs)
        return self.output_layer_norm(x + h)


def _apply_layer(layer: EncoderLayer, x, attention_mask, rngs, deterministic: bool):
    return layer(x, attention_mask, deterministic=deterministic, rngs=rngs)


@functools.cache
def _remat_apply(policy: str):
    """`_apply_layer` under nnx.remat with the named jax.checkpoint policy (built once)."""
    return nnx.remat(
        _apply_layer, static_argnums=(4,), policy=getattr(jax.checkpoint_policies, policy)
    )


def _scan_layers(config: ModelConfig, layers, x, attention_mask, rngs, deterministic: bool):
    """The layer stack as one ``lax.scan`` over weights stacked on a leading layer axis.

    Each layer's dropout key is ``fold_in(key, layer index)`` from one draw of the ``dropout``
    stream (the loop draws one per dropout call instead, so with dropout the two paths give
    different, equally valid, masks; without dropout the same numbers).
    """
    graphdef, _ = nnx.split(layers[0])
    stacked = jax.tree.map(lambda *xs: jnp.stack(xs), *[nnx.state(layer) for layer in layers])
    base = rngs.dropout() if (rngs is not None and not deterministic) else None

    def body(h, xs):
        state, index = xs
        layer = nnx.merge(graphdef, state)
        layer_rngs = nnx.Rngs(dropout=jax.random.fold_in(base, index)) if base is not None else None
        return layer(h, attention_mask, deterministic=deterministic, rngs=layer_rngs), None

    if config.remat:
        body = jax.checkpoint(body, policy=getattr(jax.checkpoint_policies, config.remat_policy))
    x, _ = jax.lax.scan(body, x, (stacked, jnp.arange(len(layers))))
    return x


class Encoder(nnx.Module):
    """Embeddings, the encoder stack and (BERT) the tanh pooler; reusable for fine-tuning.

    With ``config.embedding_size`` set and unequal to ``hidden_size`` a dense layer
    (``embedding_projection``) maps the embeddings to the hidden width (ELECTRA).
    Returns ``(sequence_output [B, L, H] in the compute dtype, pooled [B, H] or None)``.
    """

    def __init__(self, config: ModelConfig, *, rngs: nnx.Rngs, add_pooler: bool | None = None):
        self.config = config
        self.embeddings = Embeddings(config, rngs=rngs)
        width, h = config.embedding_width, config.hidden_size
        self.embedding_projection = _linear(config, width, h, rngs) if width != h else None
        self.layers = nnx.List([EncoderLayer(config, rngs=rngs) for _ in range(config.num_layers)])
        if add_pooler is None:
            add_pooler = config.arch == "bert"
        h = config.hidden_size
        self.pooler = _linear(config, h, h, rngs) if add_pooler else None

    def __call__(
        self, input_ids, token_type_ids, attention_mask, *, deterministic: bool = True, rngs=None
    ):
        x = self.embeddings(input_ids, token_type_ids, deterministic=deterministic, rngs=rngs)
        if self.embedding_projection is not None:
            x = self.embedding_projection(x)
        if self.config.scan_layers:
            x = _scan_layers(self.config, self.layers, x, attention_mask, rngs, deterministic)
        else:
            apply = _remat_apply(self.config.remat_policy) if self.config.remat else _apply_layer
            for layer in self.layers:
                x = apply(layer, x, attention_mask, rngs, deterministic)
        pooled = jnp.tanh(self.pooler(x[:, 0])) if self.pooler is not None else None
        return x, pooled


class PretrainingModel(nnx.Module):
    """BERT (MLM + NSP) or RoBERTa (MLM) pretraining model.

    ``__call__(input_ids, token_type_ids, attention_mask, masked_positions, deterministic=True,
    rngs=None)`` returns ``{"mlm_logits": float32 [B, P, V], "nsp_logits": float32 [B, 2] or
    None}``. Dropout draws from the ``dropout`` stream of the ``rngs`` given at construction
    (state carried in the model) unless an explicit ``rngs`` is passed to the call, which lets a
    pure train step derive dropout keys from (seed, step).
    """

    def __init__(self, config: ModelConfig, *, rngs: nnx.Rngs):
        if config.arch == "electra" or config.embedding_width != config.hidden_size:
            raise ValueError(
                "ELECTRA encoders and embedding projections are for fine-tuning only "
                "(the MLM decoder is tied to hidden-wide word embeddings)"
            )
        self.config = config
        h = config.hidden_size
        self.encoder = Encoder(config, rngs=rngs)
        self.mlm_dense = _linear(config, h, h, rngs)
        self.mlm_layer_norm = _layer_norm(config, rngs)
        self.mlm_output_bias = nnx.Param(
            jnp.zeros((config.vocab_size,), dtype=_dtype(config.param_dtype))
        )
        self.nsp = _linear(config, h, 2, rngs) if config.has_nsp else None

    def mlm_logits(self, hidden: jax.Array) -> jax.Array:
        """MLM head on ``hidden [..., H]``: float32 logits ``[..., V]`` (tied decoder)."""
        x = self.mlm_layer_norm(gelu(self.mlm_dense(hidden)))
        table = self.encoder.embeddings.word_embeddings.embedding[...]
        logits = jnp.einsum(
            "...h,vh->...v", x, table.astype(x.dtype), preferred_element_type=jnp.float32
        )
        return logits + self.mlm_output_bias[...].astype(jnp.float32)

    def __call__(
        self,
        input_ids: jax.Array,
        token_type_ids: jax.Array,
        attention_mask: jax.Array,
        masked_positions: jax.Array,
        *,
        deterministic: bool = True,
        rngs: nnx.Rngs | None = None,
    ) -> dict[str, jax.Array | None]:
        sequence, pooled = self.encoder(
            input_ids, token_type_ids, attention_mask, deterministic=deterministic, rngs=rngs
        )
        # Gather before the vocabulary projection: only P of L positions reach the H x V product.
        picked = jnp.take_along_axis(sequence, masked_positions[..., None].astype(jnp.int32), 1)
        out: dict[str, jax.Array | None] = {"mlm_logits": self.mlm_logits(picked)}
        out["nsp_logits"] = self.nsp(pooled).astype(jnp.float32) if self.nsp is not None else None
        return out


def count_params(config: ModelConfig) -> int:
    """Number of parameters of `PretrainingModel(config)` (the tied decoder counted once).

    embeddings  V*H + P*H + T*H + 2H            (P positions, T token types, LayerNorm)
    per layer   4(H*H + H) + (H*I + I) + (I*H + H) + 4H
    pooler      H*H + H                         (BERT)
    MLM head    H*H + H + 2H + V                (dense, LayerNorm, output bias)
    NSP         2H + 2                          (BERT)
    """
    h, i, v = config.hidden_size, config.intermediate_size, config.vocab_size
    emb = (v + config.max_position_embeddings + config.type_vocab_size) * h + 2 * h
    layer = 4 * (h * h + h) + (h * i + i) + (i * h + h) + 4 * h
    heads = h * h + h + 2 * h + v
    if config.has_nsp:
        heads += (h * h + h) + (2 * h + 2)
    return emb + config.num_layers * layer + heads


def count_model_params(model: nnx.Module) -> int:
    """Parameters actually held by an NNX model."""
    return sum(x.size for x in jax.tree_util.tree_leaves(nnx.state(model, nnx.Param)))


def flops_per_token(config: ModelConfig, seq_len: int, max_predictions: int | None = None) -> float:
    """Training FLOPs per input token (forward + backward) of the matrix products.

    With ``N_layer = L (4 H^2 + 2 H I)`` the encoder's dense weights and ``f = P / seq_len`` the
    share of positions that reach the MLM head (``P`` prediction slots, default ceil(0.15 L)):

        6 * (N_layer + f * (H^2 + H V) + [BERT] (H^2 + 2H) / seq_len)   dense products
      + 12 * L * seq_len * H                                          attention scores and mix

    The factor 6 is 2 FLOPs per multiply-add times 3 (forward, and backward for activations and
    weights). Embedding lookups, LayerNorm, softmax and biases are not counted (they are not
    matrix products); the pooler and NSP run once per sequence, hence ``/ seq_len``. This is the
    "6 x params x tokens plus attention" model-FLOPs estimate used for MFU, with params counting
    only the weights that multiply each token.
    """
    h, i, v, n_layers = (
        config.hidden_size,
        config.intermediate_size,
        config.vocab_size,
        config.num_layers,
    )
    p = default_max_predictions(seq_len) if max_predictions is None else max_predictions
    dense = n_layers * (4 * h * h + 2 * h * i) + (p / seq_len) * (h * h + h * v)
    if config.has_nsp:
        dense += (h * h + 2 * h) / seq_len
    return 6.0 * dense + 12.0 * n_layers * seq_len * h


def _leaf_name(path: tuple) -> str | None:
    """Last parameter name on a pytree path, skipping Variable's ``value`` attribute."""
    for key in reversed(path):
        name = getattr(key, "key", getattr(key, "name", key))
        if isinstance(name, str) and name != "value":
            return name
    return None


def decay_mask(params_state: Any) -> Any:
    """Pytree of bools (same structure as ``params_state``): True where weight decay applies.

    Decayed: dense kernels and embedding tables. Not decayed: every bias (including the MLM
    output bias) and every LayerNorm scale/bias. Works on ``nnx.state(model, nnx.Param)`` and
    on plain nested dicts (e.g. ``nnx.to_pure_dict``), so it can be given to
    ``optax.adamw(mask=decay_mask)``.
    """
    return jax.tree_util.tree_map_with_path(
        lambda path, _: _leaf_name(path) in DECAYED_LEAF_NAMES, params_state
    )


def concrete_rest(abstract_rest: Any) -> Any:
    """Concrete values for a model's non-parameter state (RNG keys, counters) from its shapes.

    ``nnx.split(nnx.eval_shape(...), nnx.Param, ...)`` gives abstract rest state; merging needs
    arrays. Keys become ``key(0)`` and counters zeros: the train step passes its own dropout
    keys, so these values are never used for randomness.
    """

    def make(s: Any) -> Any:
        if jax.dtypes.issubdtype(s.dtype, jax.dtypes.prng_key):
            return jax.random.key(0)
        return jnp.zeros(s.shape, s.dtype)

    return jax.tree.map(make, abstract_rest)


def build_model(config: ModelConfig, seed: int = 0) -> PretrainingModel:
    """``PretrainingModel(config, rngs=nnx.Rngs(params=seed, dropout=seed + 1))``."""
    return PretrainingModel(config, rngs=nnx.Rngs(params=seed, dropout=seed + 1))
