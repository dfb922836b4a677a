"""pretrain package."""
