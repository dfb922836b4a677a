"""`python -m tpu`: launching pretraining on Cloud TPU VMs and GPU hosts."""

from corpus.cli import print_index

print_index(
    "tpu",
    "pretraining on a TPU v3-8, a pod slice, one GPU host or a Slurm GPU cluster",
    {
        "launch": "create/setup/stage/train/logs/status/resume/delete a Cloud TPU job",
        "gpu": "one GPU host (local) or several under Slurm (sbatch script)",
        "worker": "what each host runs: pretrain.main with a log uploaded to the bucket",
        "preflight": "run by setup on every worker: Python and devices vs the accelerator",
    },
)
