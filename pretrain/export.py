"""Export a pretraining workdir as a folder stock Hugging Face ``transformers`` loads.

    python -m pretrain.export --workdir W --output H

reads the newest complete checkpoint of ``W`` (``pretrain.checkpointing.load_for_export``, on
CPU) and writes ``H/config.json``, ``H/model.safetensors`` (PyTorch names, no torch needed),
the tokenizer files and a model card ``README.md`` (`pretrain.hf_export`). Then::

    from transformers import AutoModelForMaskedLM, AutoTokenizer
    model = AutoModelForMaskedLM.from_pretrained("H")   # BertForPreTraining / RobertaForMaskedLM
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import tempfile
from pathlib import Path
from typing import Any

from etils import epath

from corpus.cli import USER_ERRORS, report_errors
from pretrain import hf_export, storage

VERIFY_TOLERANCE = 1e-4  # max abs logit difference in float32


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m pretrain.export",
        description="Write a pretraining workdir's newest checkpoint as a Hugging Face folder "
        "(config.json, model.safetensors, tokenizer files, README.md model card).",
    )
    parser.add_argument("--workdir", required=True, help="training workdir (pretrain.main)")
    parser.add_argument("--output", required=True, help="folder to write (must be new or empty)")
    parser.add_argument("--step", type=int, default=None, help="checkpoint step (default newest)")
    parser.add_argument(
        "--tokenizer-dir",
        default=None,
        help="tokenizer folder (default: the one recorded in the checkpoint)",
    )
    parser.add_argument(
        "--name", default=None, help="model name for the model card (default: the workdir's)"
    )
    parser.add_argument(
        "--license",
        default=None,
        help="licence id for the model card (default: from the licences the training text "
        "declares, 'unknown' when one is not known)",
    )
    parser.add_argument("--overwrite", action="store_true", help="replace an existing --output")
    parser.add_argument(
        "--verify",
        action="store_true",
        help="load the folder with transformers (needs torch) and compare logits with ours "
        f"on a padded batch; fail above {VERIFY_TOLERANCE}",
    )
    return parser


def _training_info(workdir: str, step: int | None) -> dict[str, Any]:
    """Training facts for the model card, from the trainer when it offers them."""
    from pretrain import checkpointing

    info_fn = getattr(checkpointing, "export_info", None)
    if info_fn is None:
        return {}
    try:
        info = info_fn(workdir) if step is None else info_fn(workdir, step=step)
    except (OSError, KeyError, ValueError) as err:  # the card is optional, the weights are not
        logging.warning("no training info for the model card: %s", err)
        return {}
    return dict(info or {})


def corpus_card(workdir: str) -> dict[str, Any]:
    """The card's corpus facts, traced from the examples the run trained on
    (`pretrain.provenance`): sources, sizes, processing, licence, pseudonymised or not."""
    from pretrain import provenance

    try:
        meta = json.loads((storage.path(workdir) / "config.json").read_text())
    except (OSError, ValueError):
        return {}
    examples = meta.get("examples_dir")
    if not examples or storage.is_remote(examples):
        return {}
    prov = provenance.trace(examples)
    return {
        "corpus": provenance.corpus_text(prov),
        "license": prov["license"],
        "pseudonymised": any(s["stage"] == "pseudonymize" for s in prov["stages"]),
    }


def continued_card(arch: str, training: dict[str, Any]) -> dict[str, str]:
    """Model-card description and training-data text of a continued pretraining run (empty
    for a run from scratch): which checkpoint it continued from, and on what."""
    source = training.get("continued from")
    if not source:
        return {}
    examples = training.get("pretraining examples", "the examples of the run")
    kind = "BERT" if arch == "bert" else "RoBERTa"
    return {
        "description": (
            f"A Korean {kind} encoder: the checkpoint {source} with "
            f"{training.get('steps', '?')} steps of continued (domain-adaptive) masked-language-"
            f"model pretraining ({training.get('objective')} objective, whole-word masking) on "
            f"{examples}, with the open KLUE pretraining pipeline (a rebuild of the KLUE paper, "
            "Park et al. 2021, arXiv 2105.09680). The vocabulary and tokenizer are the source "
            "checkpoint's."
        ),
        "corpus": (
            f"First the source checkpoint's own pretraining data (see its model card), then "
            f"{examples}."
        ),
    }


def export(
    workdir: str,
    output: str,
    *,
    step: int | None = None,
    tokenizer_dir: str | None = None,
    name: str | None = None,
    license_id: str | None = None,
    overwrite: bool = False,
    verify: bool = False,
) -> Path | epath.Path:
    """Load the workdir's checkpoint and write the Hugging Face folder; returns its path.

    With ``verify``, reload the folder with transformers and raise ``ValueError`` when its
    logits differ from ours by more than `VERIFY_TOLERANCE`. ``workdir``, ``tokenizer_dir``
    and ``output`` may be ``gs://`` URIs (`pretrain.storage`): a bucket output is written and
    verified in a local temporary folder, then uploaded (not atomic, unlike a local export).
    """
    from pretrain import checkpointing

    if step is None:
        config, model, recorded_tokenizer = checkpointing.load_for_export(workdir)
    else:
        config, model, recorded_tokenizer = checkpointing.load_for_export(workdir, step=step)
    tok = tokenizer_dir or recorded_tokenizer
    if not tok:
        raise ValueError(f"{workdir} records no tokenizer folder: pass --tokenizer-dir")
    if storage.is_remote(workdir) and not storage.path(tok).is_dir():
        raise FileNotFoundError(
            f"tokenizer folder {tok} not found (a path on the training host?): "
            "pass --tokenizer-dir, e.g. gs://BUCKET/NAME/tokenizer"
        )
    run_name = (
        storage.path(workdir) if storage.is_remote(workdir) else Path(workdir).resolve()
    ).name
    if not name:
        logging.warning("no --name: the model card calls the model %s-%s", run_name, config.arch)
    card = {
        "name": name or f"{run_name}-{config.arch}",
        "training": _training_info(workdir, step),
        **corpus_card(workdir),
    }
    if license_id:
        card["license"] = license_id
    continued = continued_card(config.arch, card["training"])
    if continued and card.get("corpus"):  # the traced corpus is what it continued on
        continued["corpus"] = (
            "First the source checkpoint's own pretraining data (see its model card), then: "
            + card["corpus"]
        )
    card.update(continued)
    if not storage.is_remote(output) and not storage.is_remote(tok):
        out = hf_export.write_hf_folder(model, tok, output, card, overwrite=overwrite)
        if verify:
            _verify(model, out)
        return out
    # A bucket as tokenizer source or as output: assembled (and verified) in a local
    # temporary folder first, then uploaded.
    with tempfile.TemporaryDirectory(prefix="pretrain-export-") as tmp:
        tok_local = storage.local_copy(tok, Path(tmp) / "tokenizer")
        if not storage.is_remote(output):
            out = hf_export.write_hf_folder(model, tok_local, output, card, overwrite=overwrite)
            if verify:
                _verify(model, out)
            return out
        target = storage.path(output)
        if target.exists() and any(target.iterdir()) and not overwrite:
            raise FileExistsError(f"{target} exists and is not empty (use overwrite)")
        local = hf_export.write_hf_folder(model, tok_local, Path(tmp) / "out", card)
        if verify:
            _verify(model, local)
        if target.exists():
            target.rmtree()
        storage.upload_folder(local, target)
    return target


def _verify(model: Any, folder: Path) -> None:
    diffs = hf_export.compare_with_transformers(model, folder)
    for key, value in diffs.items():
        print(f"{key}: {value:.3g}")
    if max(diffs.values()) > VERIFY_TOLERANCE:
        raise ValueError(f"exported logits differ from ours: {diffs}")


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    from pretrain.metric_log import log_info_without_library_chatter

    log_info_without_library_chatter()  # orbax's restore said 45 INFO lines of its own

    def work() -> str:
        out = export(
            args.workdir,
            args.output,
            step=args.step,
            tokenizer_dir=args.tokenizer_dir,
            name=args.name,
            license_id=args.license,
            overwrite=args.overwrite,
            verify=args.verify,
        )
        return f"wrote {out}"

    return report_errors(work, prog="pretrain.export", errors=(*USER_ERRORS, ImportError))


if __name__ == "__main__":
    sys.exit(main())
