"""Builders of two tiny random causal LMs sharing a local word-level tokenizer (no download)."""

from __future__ import annotations

from pathlib import Path

WORDS = (
    "the a of and to in is was for on with as by at from it this that be are river valley water"
    " rock slope land bakers bread oven flour salt crust morning night city library budget"
    " committee winter hours . , ! ?"
).split()
EOS = "<|endoftext|>"


def build_tokenizer(folder: Path):
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    vocabulary = {token: index for index, token in enumerate(["[UNK]", EOS, *WORDS])}
    core = Tokenizer(models.WordLevel(vocab=vocabulary, unk_token="[UNK]"))
    core.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=core, unk_token="[UNK]", eos_token=EOS)
    tokenizer.save_pretrained(folder)
    return tokenizer


def build_model(folder: Path, seed: int, vocabulary_size: int) -> None:
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel

    torch.manual_seed(seed)
    config = GPT2Config(
        vocab_size=vocabulary_size,
        n_positions=600,
        n_embd=32,
        n_layer=2,
        n_head=2,
        eos_token_id=1,
        bos_token_id=1,
    )
    model = GPT2LMHeadModel(config)
    with torch.no_grad():  # sharper random distributions than the default init
        for parameter in model.parameters():
            parameter.mul_(4.0)
    model.save_pretrained(folder)
