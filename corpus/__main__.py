"""`python -m corpus`: the corpus stages."""

from corpus.cli import print_index

print_index(
    "corpus",
    "raw Korean text to clean, decontaminated, pseudonymised sentence records",
    {
        "prepare": "raw sources -> sentence records (normalise, split, length filter, exact dedup)",
        "dedup": "remove sentences that match KLUE benchmark text (BM25)",
        "pseudonymize": "find and replace 16 types of personal information",
        "calibrate": "measure the BM25 threshold on a labelled set built from KLUE",
    },
)
