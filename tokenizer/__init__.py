"""tokenizer package."""
