"""The one exit policy: the exit codes (``exitcodes``), the baseline of accepted pairs
(``baseline``) and the outcome of a finished scan against it (``outcome``), which every
command's exit status comes from."""
