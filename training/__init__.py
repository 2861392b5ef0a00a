"""Training scripts for the wargame environments: self-play PPO (``training.train``), the
single-agent self-play view and opponent pool (``training.selfplay``) and safe checkpoints
(``training.checkpoints``). Importing this package imports nothing heavy."""
