"""Random stock `transformers` models for the side-by-side checks: the RoBERTa layout of the
released checkpoints and one way to move weights off their initialisation.

Shared by the import, export and continued-pretraining tests, which build their reference
models with stock `transformers` (never with our export code, so the check stays independent).
"""

from __future__ import annotations

#: `RobertaConfig`/`XLMRobertaConfig` fields of the released klue/roberta-* and XLM-R
#: checkpoints: [PAD] = 1, <s> = 0, </s> = 2, one token type, LayerNorm eps 1e-5.
ROBERTA_LAYOUT = dict(
    pad_token_id=1, bos_token_id=0, eos_token_id=2, type_vocab_size=1, layer_norm_eps=1e-5
)


def perturb(torch, model, seed: int) -> None:
    """Add N(0, 0.1) noise to every parameter (seeded): stock initialisations leave biases and
    LayerNorms at 0 and 1, where a wrongly mapped or transposed tensor would go unnoticed."""
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in model.parameters():
            p.add_(0.1 * torch.randn(p.shape, generator=gen))
