"""KLUE fine-tuning tasks: the Task interface (`base`) and one module per task family."""
