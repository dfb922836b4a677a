"""Fine-tuning configs: `common` (every field, KLUE-baseline code defaults) and one per task."""
