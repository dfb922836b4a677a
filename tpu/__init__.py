"""tpu package."""
